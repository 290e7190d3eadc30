// The docs' figures, rendered from the results files: each `<!-- results:<file>:<view> -->` ... `<!-- /results -->`
// span of a doc is the view's output for docs/results/<file>.json. A marker on its own line holds a table (with the
// line that says where and when it was measured); a marker inside a sentence holds a few words.
import { existsSync, readFileSync } from 'node:fs';
import { fromRoot } from '../../src/infra/paths.js';
import type { ResultsEnvelope } from './results.js';
import { sentimentBenchmarks } from './results-docs-sentiment.js';

type Results = ResultsEnvelope<unknown>;
type View = (r: Results) => string;
/** A view over one results file's shape, as its script writes it (a field it lacks fails the render: see below). */
const view =
  <T>(render: (x: T) => string): View =>
  (r) =>
    render(r.results as T);

/** The docs whose figures come from results files, in the order the generator rewrites them. */
export const RESULTS_DOCS = ['docs/benchmarks.md', 'README.md', 'docs/operations.md', 'docs/production.md', 'docs/text.md'];

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fixed = (n: number, digits: number) => Number(n).toFixed(digits);
const pct = (x: number) => `${Math.round(x * 100)}%`;
const ms = (n: number) => (Number(n) < 1 ? 'under 1 ms' : `${int(Number(n))} ms`);
const secs = (msValue: number) => `${fixed(msValue / 1000, 1)} s`;
/** A rate: whole requests from 100 a second up, one decimal below. */
const rate = (n: number) => (n >= 100 ? int(n) : fixed(n, 1));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The line under a table: the command, the commit (and whether the tree had changes), the date and the machine. */
export function provenance(r: Results): string {
  const m = r.machine;
  const load = m.load_1m === undefined ? '' : `, load ${fixed(m.load_1m, 1)}`;
  const commit = r.dirty ? `commit ${r.commit} plus uncommitted changes` : `commit ${r.commit}`;
  return `\`${r.command}\` at ${commit}, ${r.date.slice(0, 10)}; ${m.cores} cores (${m.cpu.trim()}), ${m.memory_gb} GB${load}, Node ${m.node}.`;
}

const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

/** A share of a rate alone; within a tenth either side it is run-to-run noise, and says so. */
function shareOfAlone(beside: number, alone: number): string {
  const share = beside / alone;
  return share >= 0.9 ? `${pct(share)} (as fast as alone: the difference is noise)` : pct(share);
}

interface Rate {
  connections: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}
interface Mixed {
  predict_alone: Rate;
  predict_beside: Rate;
  ask: Rate;
  explain: Rate;
  total_beside_rps: number;
  predict_beside_long_sentiment: Rate;
  long_sentiment: Rate & { words: number };
  event_loop_p99_ms: number;
  errors: number;
  rss_mb: { start: number; end: number };
}
interface Route {
  route: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}
interface Soak {
  soak: Route[];
  total_rps: number;
  errors: number;
  event_loop_p99_ms: number;
  rss_mb: { start: number; end: number; growth_percent: number };
  images: { count: number; max: number };
}
interface Predict {
  connections: number;
  duration_s: number;
  runs: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
}
interface Explain {
  trees: number;
  shapley_alone_ms: { p50: number; p99: number };
  explain_waterfall_ms: { p50: number; p99: number; runs: number };
  rps_one_connection: number;
}
interface CollectRate {
  requests: number;
  limit_per_s: number;
  steady_per_s: number;
  max_in_1s: number;
}
interface Collect {
  runs: number;
  catalog_rate: CollectRate;
  ratings_rate: CollectRate;
  upsert_10000_pglite_ms?: { insert: number; update: number };
  upsert_10000_postgresql_ms?: { insert: number; update: number };
}
interface Rag {
  stats: { documents: number; chunks: number; sentence_vectors: number };
  indexing_ms: number[];
  search: { p50: string; p99: string };
  ask: { p50: string; p99: string };
  ask_once: Record<string, { docs: string; questions: number; first_ms: number; p50: number; p90: number; max: number }>;
}
interface SentimentBench {
  cold_first_request_ms: number;
  model_load_ms: number;
  requests: { request: string; requests: number; p50_ms: number; p99_ms: number }[];
  rss_mb: { before_models: number; after: number };
}
interface TextModelsBench {
  words: number;
  calls: number;
  pipelines: { pipeline: string; p50_ms: number; p99_ms: number }[];
}
interface ModelLoading {
  models: { role: string; bytes: number; load_ms_median: Record<string, number>; rss_added_mb_median: Record<string, number> }[];
}
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

const mixed: Record<string, View> = {
  predict: view<Mixed>((x) =>
    table(
      ['`POST /api/predict`, 1 connection', 'req/s', 'p99', 'of its rate alone'],
      [
        ['alone', int(x.predict_alone.rps), ms(x.predict_alone.p99_ms), '-'],
        [
          `beside \`/rag/ask\` (${x.ask.connections} connections) and \`/api/explain\` (${x.explain.connections}), plots and the reader in a worker`,
          int(x.predict_beside.rps),
          ms(x.predict_beside.p99_ms),
          shareOfAlone(x.predict_beside.rps, x.predict_alone.rps),
        ],
        [
          `beside \`/analyze/sentiment\` on a ${int(x.long_sentiment.words)}-word text (${x.long_sentiment.connections}), scored in a worker`,
          int(x.predict_beside_long_sentiment.rps),
          ms(x.predict_beside_long_sentiment.p99_ms),
          shareOfAlone(x.predict_beside_long_sentiment.rps, x.predict_alone.rps),
        ],
      ],
    ),
  ),
  others: view<Mixed>((x) =>
    table(
      ['beside the others', 'req/s', 'p99'],
      [
        [`\`/rag/ask\` (${x.ask.connections} connections)`, fixed(x.ask.rps, 1), ms(x.ask.p99_ms)],
        [`\`/api/explain\` with a PNG (${x.explain.connections} connection)`, fixed(x.explain.rps, 1), ms(x.explain.p99_ms)],
        ['all three routes together', int(x.total_beside_rps), '-'],
        [
          `\`/analyze/sentiment\`, ${int(x.long_sentiment.words)} words (${x.long_sentiment.connections} connection)`,
          `${fixed(x.long_sentiment.rps, 1)} (p50 ${ms(x.long_sentiment.p50_ms)})`,
          '-',
        ],
      ],
    ),
  ),
  summary: view<Mixed>(
    (x) =>
      `event-loop delay p99 ${x.event_loop_p99_ms} ms; ${x.errors} errors; resident memory ${x.rss_mb.start} MB at the start and ${x.rss_mb.end} MB at the end`,
  ),
  alone: view<Mixed>((x) => `${int(x.predict_alone.rps)} req/s`),
  targets: view<Mixed>((x) => {
    const met = x.predict_beside.p99_ms <= 10 && x.predict_beside.rps >= 0.5 * x.predict_alone.rps;
    return met ? '**met**' : '**not met**';
  }),
};

const soakTable: View = view<Soak>((x) =>
  table(
    ['route (connections)', 'req/s', 'p50', 'p99', 'errors'],
    x.soak.map((r) => [`${r.route} (${r.connections})`, rate(r.rps), ms(r.p50), ms(r.p99), r.errors + r.non2xx]),
  ),
);

const soak: Record<string, View> = {
  table: soakTable,
  summary: view<Soak>(
    (x) =>
      `${int(x.total_rps)} req/s in all, ${x.errors} errors (target 0); event-loop delay p99 ${x.event_loop_p99_ms} ms; resident memory ${x.rss_mb.start} MB after warm-up and ${x.rss_mb.end} MB at the end (${x.rss_mb.growth_percent}%; targets: growth under 10%, at most 400 MB); ${x.images.count} explanation images on disk (bound ${x.images.max})`,
  ),
  'rss-end': view<Soak>((x) => `${x.rss_mb.end} MB`),
  'rss-range': view<Soak>((x) => `${Math.min(x.rss_mb.start, x.rss_mb.end)} to ${Math.max(x.rss_mb.start, x.rss_mb.end)} MB`),
  'long-texts': view<Soak>((x) => {
    const peak = Math.max(x.rss_mb.start, x.rss_mb.end);
    return `resident memory ${x.rss_mb.start} MB after warm-up and ${x.rss_mb.end} MB at the end, ${x.errors} errors; ${peak > 400 ? `**over the 400 MB target** by ${peak - 400} MB at its peak` : 'within the 400 MB target'}`;
  }),
};

const predict: Record<string, View> = {
  table: view<Predict>((x) =>
    table(
      [`\`bench:predict\` (${x.connections} connections, ${x.runs} runs x ${x.duration_s} s, median)`, 'value'],
      [
        ['requests/s', int(x.rps)],
        ['p50 latency', ms(x.p50_ms)],
        ['p99 latency', ms(x.p99_ms)],
        ['errors and non-2xx answers', x.errors],
      ],
    ),
  ),
};

const explain: Record<string, View> = {
  table: view<Explain>((x) =>
    table(
      [`\`bench:explain\` (${x.explain_waterfall_ms.runs} runs, median)`, 'p50', 'p99'],
      [
        [`Shapley values alone, ${x.trees} trees (ms per passenger)`, fixed(x.shapley_alone_ms.p50, 3), fixed(x.shapley_alone_ms.p99, 3)],
        [
          `\`POST /api/explain\` with a PNG, 1 connection (ms; ${fixed(x.rps_one_connection, 1)} req/s)`,
          fixed(x.explain_waterfall_ms.p50, 0),
          fixed(x.explain_waterfall_ms.p99, 0),
        ],
      ],
    ),
  ),
};

const collect: Record<string, View> = {
  table: view<Collect>((x) => {
    const row = (name: string, s: CollectRate) => [
      `${name} rate, ${s.requests} requests, 50 ms latency`,
      `<= ${s.limit_per_s}/s, >= 95%`,
      `${fixed(s.steady_per_s, 3)}/s (${fixed((s.steady_per_s / s.limit_per_s) * 100, 1)}%; at most ${s.max_in_1s} in any 1 s)`,
    ];
    const upsert = (name: string, target: string, u?: { insert: number; update: number }) =>
      u ? [[`upsert 10,000 movies, ${name}`, target, `insert ${int(u.insert)} ms, update ${int(u.update)} ms`]] : [];
    return table(
      ['`bench:collect`', 'target', `median of ${x.runs} runs`],
      [
        row('catalog', x.catalog_rate),
        row('ratings', x.ratings_rate),
        ...upsert('PGlite', '<= 3 s', x.upsert_10000_pglite_ms),
        ...upsert('PostgreSQL', '<= 1 s', x.upsert_10000_postgresql_ms),
      ],
    );
  }),
};

const rag: Record<string, View> = {
  table: view<Rag>((x) =>
    table(
      [
        `\`bench:rag\` (sample collection; index: median of ${x.indexing_ms.length} full runs; requests: 3 runs of 200 sequential, the median run)`,
        'p50',
        'p99',
        'target',
      ],
      [
        [
          `\`POST /rag/index {"full": true}\`: ${x.stats.documents} files, ${int(x.stats.chunks)} chunks, ${int(x.stats.sentence_vectors)} sentences`,
          secs(median(x.indexing_ms)),
          '-',
          '<= 30 s',
        ],
        ['`POST /rag/search`, top_k 5', `${x.search.p50} ms`, `${x.search.p99} ms`, 'p50 <= 30 ms'],
        ['`POST /rag/ask`, no LLM (learned reader; the question tagged and read in the worker)', `${x.ask.p50} ms`, `${x.ask.p99} ms`, 'p50 <= 60 ms'],
      ],
    ),
  ),
  // Varied questions, each asked once, in a fresh service right after /ready: nothing is remembered between them.
  'ask-once': view<Rag>((x) =>
    table(
      ['`POST /rag/ask`, no LLM, each question asked once', 'questions', 'first question', 'p50', 'p90', 'target'],
      Object.values(x.ask_once).map((o) => [
        `\`${o.docs}\``,
        o.questions,
        `${fixed(o.first_ms, 0)} ms`,
        `${fixed(o.p50, 0)} ms`,
        `${fixed(o.p90, 0)} ms`,
        'p50 <= 60 ms, p90 <= 150 ms',
      ]),
    ),
  ),
};

/** The latency targets: a short text and a page of text, at the median. */
const SENTIMENT_TARGETS: Record<string, number> = { '20 words': 10, '2,000 words': 60 };
const sentimentBench: Record<string, View> = {
  table: view<SentimentBench>((x) =>
    table(
      ['`POST /analyze/sentiment`', 'requests', 'p50', 'p99', 'target'],
      [
        ['cold first request (loads both models)', 1, `${fixed(x.cold_first_request_ms, 0)} ms`, '-', '<= 2 s'],
        ...x.requests.map((q) => {
          const target = SENTIMENT_TARGETS[q.request];
          const verdict = target === undefined ? '-' : `p50 <= ${target} ms: ${q.p50_ms <= target ? 'met' : '**not met**'}`;
          const t = (n: number) => (n >= 100 ? `${int(n)} ms` : `${fixed(n, 1)} ms`);
          return [q.request, q.requests, t(q.p50_ms), t(q.p99_ms), verdict];
        }),
      ],
    ),
  ),
  memory: view<SentimentBench>((x) => `${int(x.rss_mb.before_models)} MB before the models and ${int(x.rss_mb.after)} MB after`),
};

const textModels: Record<string, View> = {
  table: view<TextModelsBench>((x) =>
    table(
      ['pipeline', 'p50 (ms)', 'p99 (ms)', 'target'],
      x.pipelines.map((p) => [p.pipeline, fixed(p.p50_ms, 3), fixed(p.p99_ms, 3), `<= 2 ms: ${p.p50_ms <= 2 ? 'met' : '**not met**'}`]),
    ),
  ),
  calls: view<TextModelsBench>((x) => `one ${x.words}-word text, ${int(x.calls)} sequential calls`),
};

const modelLoading: Record<string, View> = {
  table: view<ModelLoading>((x) =>
    table(
      ['Model (files)', 'Local directory (ms)', 'Hub, empty cache (ms)', 'Cache, Hub down (ms)', 'Memory added, local (MB)'],
      x.models.map((m) => [
        `${m.role} (${fixed(m.bytes / 1e6, 1)} MB)`,
        m.load_ms_median.local_directory!,
        m.load_ms_median.hub_empty_cache!,
        m.load_ms_median.cache_hub_down!,
        m.rss_added_mb_median.local_directory!,
      ]),
    ),
  ),
};

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

export const VIEWS: Record<string, Record<string, View>> = {
  answerability: refit,
  'support-gate': supportGate,
  'qa-reader-dev': qaReader,
  'qa-support': qaSupport,
  'bench-mixed': mixed,
  'bench-soak': soak,
  'bench-soak-long-texts': soak,
  'bench-predict': predict,
  'bench-explain': explain,
  'bench-collect': collect,
  'bench-rag': rag,
  'bench-sentiment': sentimentBench,
  'bench-text-models': textModels,
  'sentiment-benchmarks': sentimentBenchmarks,
  'sentiment-baseline-bag-of-words': sentimentBenchmarks,
  'model-loading': modelLoading,
  'eval-retrieval': retrieval,
  'qa-squad': qaSquad,
  'qa-natural': qaNatural,
  'qa-collections-test': qaCollections,
  'qa-collections-dev': qaCollections,
};

const MARKED = /<!-- results:([\w-]+):([\w-]+) -->(\n?)([\s\S]*?)<!-- \/results -->/g;

export function readResults(name: string): Results {
  const file = `docs/results/${name}.json`;
  if (!existsSync(fromRoot(file))) throw new Error(`${file} is missing: run the command that writes it (docs/benchmarks.md lists them)`);
  return JSON.parse(readFileSync(fromRoot(file), 'utf8')) as Results;
}

/** The doc with every marked span rendered from its results file; `read` is how a results file is found. */
export function renderResults(doc: string, read: (name: string) => Results = readResults): string {
  return doc.replace(MARKED, (_all, file: string, name: string, newline: string) => {
    const render = VIEWS[file]?.[name];
    if (!render) throw new Error(`no view "${name}" for results file ${file}`);
    const r = read(file);
    let out: string;
    try {
      out = render(r);
    } catch (err) {
      throw new Error(`docs/results/${file}.json, view ${name}: ${(err as Error).message}`);
    }
    // A field the file lacks (a script that changed its output) shows as NaN or undefined: fail, not print it.
    if (/NaN|undefined/.test(out)) throw new Error(`docs/results/${file}.json, view ${name}: a field is missing (${out})`);
    // A table says where it was measured, on the line under it.
    return newline
      ? `<!-- results:${file}:${name} -->\n${out}\n\n_${provenance(r)}_\n<!-- /results -->`
      : `<!-- results:${file}:${name} -->${out}<!-- /results -->`;
  });
}

/** The results files a doc links to (`results/<name>.json`), to check that each exists. */
export const citedResults = (doc: string): string[] => [...new Set([...doc.matchAll(/results\/([\w-]+)\.json/g)].map((m) => m[1]!))];
