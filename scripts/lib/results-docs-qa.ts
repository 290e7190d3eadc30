// Views of the question-answering results files (retrieval, SQuAD, the natural set, the evaluation collections, the
// reader's failures by kind, the support check and the learned decision), for results-docs.ts.
import { type View, fixed, int, pct, table, view } from './results-format.js';

interface Retrieval {
  questions: number;
  retrievers: Record<string, Record<string, number>>;
}
interface QaSquad {
  f1: number;
  exact_match: number;
  questions: number;
  half: string;
  confidence: { right_means: string; levels: Record<string, { answers: number; share: number; right: number; exact_match: number }> };
}
interface QaNatural {
  by_kind: Record<string, { questions: number; share_right: number; strict_right: number; share_strict_right: number }>;
}

const RETRIEVER_LABELS: Record<string, string> = {
  'semantic only': 'semantic only (best sentence of each chunk)',
  'hybrid, weight 0.7, theoretical normalisation': 'hybrid, weight 0.7, theoretical normalisation (default)',
};
const retrieval: Record<string, View> = {
  table: view<Retrieval>((x) =>
    table(
      ['retriever (compact 100-d embedder)', 'recall@1', 'recall@5', 'recall@10', 'MRR'],
      Object.entries(x.retrievers)
        // Each half apart stays in the file.
        .filter(([name]) => !/, (development|held-out) half$/.test(name))
        .map(([name, r]) => [RETRIEVER_LABELS[name] ?? name, ...['recall_at_1', 'recall_at_5', 'recall_at_10', 'mrr'].map((k) => fixed(r[k]!, 3))]),
    ),
  ),
  questions: view<Retrieval>((x) => int(x.questions)),
};

const qaSquad: Record<string, View> = {
  confidence: view<QaSquad>((x) =>
    table(
      ['`confidence`', 'share of answers', `right (${x.confidence.right_means})`],
      Object.entries(x.confidence.levels).map(([level, l]) => [`\`${level}\``, pct(l.share), pct(l.right)]),
    ),
  ),
  overall: view<QaSquad>((x) => `token F1 is ${fixed(x.f1, 3)} (exact match ${fixed(x.exact_match, 3)})`),
  levels: view<QaSquad>((x) =>
    table(
      [`confidence level (${x.half} half)`, 'answers', `right (${x.confidence.right_means})`, 'exact match'],
      Object.entries(x.confidence.levels).map(([level, l]) => [level, int(l.answers), fixed(l.right, 3), fixed(l.exact_match, 3)]),
    ),
  ),
};

const qaNatural: Record<string, View> = {
  overall: view<QaNatural>((x) => {
    const all = x.by_kind.all!;
    const unanswerable = (x.by_kind.out_of_scope?.questions ?? 0) + (x.by_kind.near_miss?.questions ?? 0);
    return `${pct(all.share_right)} of a set of ${all.questions} natural questions about the sample collection, ${unanswerable} of them unanswerable,`;
  }),
  strict: view<QaNatural>((x) => {
    const all = x.by_kind.all!;
    return `${all.strict_right} of ${all.questions} (${pct(all.share_strict_right)})`;
  }),
};

interface QaCollections {
  split: string;
  mean_share_right: number;
  collections: Record<
    string,
    { questions: number; right: number; share_right: number; confidence: Record<string, { answers: number; right: number; share_right: number | null }> }
  >;
  squad2: {
    questions: number;
    f1: number;
    answerable_f1: number;
    unanswerable_refused: number;
    answerable_refused: number;
    refuse_everything_f1: number;
  } | null;
}

const qaCollections: Record<string, View> = {
  mean: view<QaCollections>((x) => pct(x.mean_share_right)),
  table: view<QaCollections>((x) =>
    table(
      ['collection', 'questions', 'strictly right', 'answers at high / medium / low confidence: right'],
      [
        ...Object.entries(x.collections).map(([name, c]) => [
          name,
          c.questions,
          pct(c.share_right),
          ['high', 'medium', 'low'].map((l) => `${c.confidence[l]!.right} of ${c.confidence[l]!.answers}`).join(' / '),
        ]),
        ['mean', '', pct(x.mean_share_right), ''],
      ],
    ),
  ),
  squad2: view<QaCollections>((x) => {
    const s = x.squad2!;
    return `overall F1 ${fixed(s.f1, 2)} (refusing every question would score ${fixed(s.refuse_everything_f1, 2)}), answerable F1 ${fixed(s.answerable_f1, 2)}, ${pct(s.unanswerable_refused)} of the ${int(s.questions)} questions' unanswerable ones refused`;
  }),
};

interface QaReader {
  totals: Record<string, number>;
  collections: Record<string, Record<string, Record<string, number>>>;
  ceiling: { mean_share: number; collections: Record<string, { questions: number; right: number; share: number }> };
}

const READER_KINDS: [string, string][] = [
  ['right', 'right'],
  ['right_sentence_wrong_span', 'the right sentence, a wrong span'],
  ['wrong_sentence_answer_in_first_passage', 'a wrong sentence; the answer in the best passage'],
  ['wrong_sentence_answer_in_later_passage', 'a wrong sentence; the answer in another passage'],
  ['not_retrieved', 'no retrieved passage holds the answer'],
  ['refused_before_reading', 'refused before any reading'],
];

const qaReader: Record<string, View> = {
  table: view<QaReader>((x) => {
    const names = Object.keys(x.collections);
    const of = (name: string, kind: string) => Object.values(x.collections[name]!).reduce((n, c) => n + (c[kind] ?? 0), 0);
    const all = Object.values(x.totals).reduce((a, b) => a + b, 0);
    return table(
      ['answerable development questions, every reading answered', ...names, 'all', 'share'],
      READER_KINDS.map(([k, label]) => [label, ...names.map((n) => of(n, k)), x.totals[k] ?? 0, pct((x.totals[k] ?? 0) / all)]),
    );
  }),
  ceiling: view<QaReader>((x) => {
    const each = Object.entries(x.ceiling.collections).map(([name, c]) => `${name} ${c.right} of ${c.questions} (${pct(c.share)})`);
    return `${pct(x.ceiling.mean_share)} on average (${each.join(', ')})`;
  }),
};

interface QaSupport {
  settings: { rareWord: number };
  answerable: number;
  unanswerable: number;
  false_not_found: number;
  false_not_found_relevance: number;
  caught: number;
  caught_by_relevance: number;
  rare_word_sweep: { rare_word: number | string; false_not_found: number; caught: number }[];
}

const qaSupport: Record<string, View> = {
  table: view<QaSupport>((x) => {
    const rule = x.rare_word_sweep.find((r) => r.rare_word === x.settings.rareWord)!;
    return table(
      ['SQuAD odd articles, two folds, no LLM', 'relevance filter only', 'the support rule alone', 'the service (the rule, then the learned decision)'],
      [
        [
          `answerable questions answered "not in the collection" (${int(x.answerable)})`,
          fixed(x.false_not_found_relevance, 3),
          fixed(rule.false_not_found, 3),
          fixed(x.false_not_found, 3),
        ],
        [
          `unanswerable questions answered "not in the collection" (${int(x.unanswerable)})`,
          fixed(x.caught_by_relevance, 3),
          fixed(rule.caught, 3),
          fixed(x.caught, 3),
        ],
      ],
    );
  }),
};

interface Refit {
  chosen: { threshold: number };
  refit?: { threshold: number; largest_weight_difference: number };
}
/** How far a fresh fit lands from the shipped model (the --evaluate-only runs of train:answerability and train:support-gate). */
const refit: Record<string, View> = {
  refit: view<Refit & { threshold?: number }>((x) => {
    if (!x.refit) throw new Error('no refit: the file was written by a training run, not by --evaluate-only');
    const shipped = x.chosen?.threshold ?? x.threshold;
    const threshold = x.refit.threshold === shipped ? `the same threshold (${shipped})` : `threshold ${x.refit.threshold} (shipped: ${shipped})`;
    return `${threshold}, its weights within ${x.refit.largest_weight_difference} of the shipped ones`;
  }),
};

interface SweepRow {
  squad2_f1: number;
  collections_right: number;
  trials_right: number;
  train_qa_right: number;
}
interface AnswerabilitySweep {
  chosen: { threshold: number };
  thresholds: (SweepRow & { threshold: number })[];
  answering_everything_read: SweepRow;
}
/** The thresholds the learned decision could use, from 0.05 to 0.3, and what each gives on every development set. */
const answerability: Record<string, View> = {
  ...refit,
  sweep: view<AnswerabilitySweep>((x) => {
    const row = (name: string, r: SweepRow) => [name, ...[r.squad2_f1, r.collections_right, r.trials_right, r.train_qa_right].map((v) => fixed(v, 3))];
    return table(
      [
        'readings answered from probability',
        'SQuAD 2.0 development articles: F1',
        'development halves: share strictly right',
        '`eval/trials`: share strictly right',
        '`train/qa`: share strictly right',
      ],
      [
        row('0 (every reading)', x.answering_everything_read),
        ...x.thresholds
          .filter((t) => t.threshold <= 0.3)
          .map((t) => row(t.threshold === x.chosen.threshold ? `**${t.threshold}** (shipped)` : String(t.threshold), t)),
      ],
    );
  }),
};

interface SupportGateResults {
  threshold: number;
  odd_half: Record<'rule_alone' | 'with_gate', { false_not_found: number; caught: number; answerable_f1: number }>;
}
const supportGate: Record<string, View> = {
  ...refit,
  table: view<SupportGateResults>((x) =>
    table(
      ['SQuAD odd articles, two folds, no LLM', 'false "not in the collection"', 'caught', 'F1 of the answerable'],
      [
        ['support rule alone', x.odd_half.rule_alone],
        [`with the gate (threshold ${x.threshold})`, x.odd_half.with_gate],
      ].map(([name, o]) => {
        const r = o as SupportGateResults['odd_half']['rule_alone'];
        return [name as string, fixed(r.false_not_found, 3), fixed(r.caught, 3), fixed(r.answerable_f1, 3)];
      }),
    ),
  ),
};

/** The question-answering views, by results file. */
export const QA_VIEWS: Record<string, Record<string, View>> = {
  answerability,
  'support-gate': supportGate,
  'qa-reader-dev': qaReader,
  'qa-reader-eval-trials': { ceiling: qaReader.ceiling! },
  'qa-support': qaSupport,
  'eval-retrieval': retrieval,
  'qa-squad': qaSquad,
  'qa-natural': qaNatural,
  'qa-collections-test': qaCollections,
  'qa-collections-dev': qaCollections,
};
