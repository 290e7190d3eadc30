// npm run eval:qa -- [--squad data/datasets/squad/dev-v1.1-part-a.json] [--half odd|even|all] [--limit N] [--dump file.json]
// Asks SQuAD questions through /rag/ask's pipeline without any LLM and scores the extractive answers with the
// official SQuAD v1.1 normalisation (exact match, token F1, best over the gold answers), and how often answers are
// right at each confidence level. The reader is trained on the even-numbered articles and its settings (and the
// confidence thresholds) are chosen on the odd-numbered ones: `--half odd` (the default) is the reported figure.
// Writes docs/results/qa-squad.json (not with --limit).
// npm run eval:qa -- --natural [--questions eval/questions/sample-collection.json --docs docs/sample-collection]
// The natural-question set instead (scripts/lib/text/natural-eval.ts): writes docs/results/qa-natural.json.
// npm run eval:qa -- --collections --reader [--sets train/qa]: the reader's failures by kind on the development halves
// (scripts/lib/text/reader-diagnosis.ts), or on every question of the sets in a folder laid out as eval/collections
// (the reader's training sets of other kinds of text, which no shipped model was fitted on): writes
// docs/results/qa-reader-dev.json, or qa-reader-<folder>.json (qa-reader-eval-trials.json).
// npm run eval:qa -- --collections [--only a,b] [--split dev|test] [--dump rows.json]
// The generalisation evaluation (scripts/lib/text/collections-eval.ts): eval/collections/* and SQuAD 2.0, scored
// strictly; writes docs/results/qa-collections-<split>.json (without --only).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { WEIGHTS } from '../src/text/rag/ask/confidence.js';
import { round4, writeResults } from './lib/results.js';
import { runCollectionsEval } from './lib/text/collections-run.js';
import { runNaturalEval } from './lib/text/natural-eval.js';
import { runReaderDiagnosis } from './lib/text/reader-diagnosis.js';
import { withSquadCollection } from './lib/text/squad-collection.js';
import { bestF1, exactMatch, normalise } from './lib/text/squad-eval.js';

const { values } = parseArgs({
  options: {
    squad: { type: 'string', default: 'data/datasets/squad/dev-v1.1-part-a.json' },
    half: { type: 'string', default: 'odd' },
    limit: { type: 'string' },
    dump: { type: 'string' },
    natural: { type: 'boolean', default: false },
    questions: { type: 'string', default: 'eval/questions/sample-collection.json' },
    docs: { type: 'string', default: 'docs/sample-collection' },
    collections: { type: 'boolean', default: false },
    only: { type: 'string' },
    split: { type: 'string', default: 'dev' },
    reader: { type: 'boolean', default: false },
    sets: { type: 'string' },
  },
});
if (!['odd', 'even', 'all'].includes(values.half)) throw new Error('--half is odd, even or all');

/** An answer counts as right when its token F1 against the best gold answer is at least this. */
const RIGHT_F1 = 0.5;
const LEVELS = ['high', 'medium', 'low'] as const;

if (values.collections && values.reader) await runReaderDiagnosis(values.sets);
else if (values.collections) {
  if (values.split !== 'dev' && values.split !== 'test') throw new Error('--split is dev or test');
  await runCollectionsEval({ split: values.split, only: values.only ? values.only.split(',') : null, dump: values.dump });
} else if (values.natural) await runNaturalEval(values.questions, values.docs, normalise);
else
  await withSquadCollection(values.squad, async (app, questions) => {
    if (app.llm.available) console.log('note: LLM_API_KEY is set, but this evaluation scores the extractive answers only');
    const asker = await app.rag.ask();
    const inHalf = questions.filter((q) => values.half === 'all' || q.article % 2 === (values.half === 'even' ? 0 : 1));
    const asked = values.limit ? inHalf.slice(0, Number(values.limit)) : inHalf;
    let em = 0;
    let f1Sum = 0;
    let notFound = 0;
    let inPassage = 0;
    let refused = 0;
    const levels = Object.fromEntries(LEVELS.map((l) => [l, { n: 0, right: 0, exact: 0, f1: 0 }]));
    const types: Record<string, { n: number; f1: number }> = {};
    type Row = { f1: number; em: number; score: number; retrieval: number; support: number | null; type: string };
    const dump: (Row & { question: string; answer: string; gold: string[]; passage: string })[] = [];
    const latencies: number[] = [];
    const bar = new cliProgress.SingleBar(
      { format: ' questions |{bar}| {value}/{total}  F1 {f1}', noTTYOutput: true, notTTYSchedule: 5000 },
      cliProgress.Presets.shades_classic,
    );
    bar.start(asked.length, 0, { f1: '-' });
    for (const [i, { question, answers }] of asked.entries()) {
      let answer = '';
      let passage = '';
      let level: (typeof LEVELS)[number] = 'low';
      let type = 'refused';
      try {
        const t0 = performance.now();
        const r = await asker.ask(question, 5);
        latencies.push(performance.now() - t0);
        if (r.answer_passage === null) notFound++;
        answer = r.answer_passage === null ? '' : r.answer;
        passage = r.answer_passage ?? '';
        level = r.confidence;
        type = r.answer_type;
        const factors = r.confidence_factors as unknown as Record<string, number>;
        const retrieval = Object.entries(WEIGHTS).reduce((s, [k, w]) => s + w * factors[k]!, 0);
        dump.push({
          f1: 0,
          em: 0,
          score: r.confidence_score,
          retrieval,
          support: factors.answer_support ?? null,
          type,
          question,
          answer,
          gold: answers,
          passage,
        });
      } catch {
        // A refused question scores zero.
        refused++;
        dump.push({ f1: 0, em: 0, score: 0, retrieval: 0, support: null, type, question, answer, gold: answers, passage });
      }
      const exact = exactMatch(answer, answers) ? 1 : 0;
      const score = bestF1(answer, answers);
      dump[dump.length - 1]!.f1 = score;
      dump[dump.length - 1]!.em = exact;
      em += exact;
      f1Sum += score;
      const l = levels[level]!;
      l.n++;
      l.right += score >= RIGHT_F1 ? 1 : 0;
      l.exact += exact;
      l.f1 += score;
      const t = (types[type] ??= { n: 0, f1: 0 });
      t.n++;
      t.f1 += score;
      if (answers.some((a) => passage.includes(a))) inPassage++;
      bar.update(i + 1, { f1: (f1Sum / (i + 1)).toFixed(3) });
    }
    bar.stop();
    const n = asked.length;
    latencies.sort((a, b) => a - b);
    const results = {
      data: values.squad,
      half: values.half,
      questions: n,
      exact_match: round4(em / n),
      f1: round4(f1Sum / n),
      answer_sentence_holds_gold: round4(inPassage / n),
      not_in_collection_answers: notFound,
      refused,
      by_answer_type: Object.fromEntries(Object.entries(types).map(([k, v]) => [k, { questions: v.n, f1: round4(v.f1 / v.n) }])),
      confidence: {
        right_means: `token F1 >= ${RIGHT_F1}`,
        thresholds_chosen_on: 'the odd half (this evaluation when --half odd): its level accuracies are in-sample for the thresholds',
        levels: Object.fromEntries(
          LEVELS.map((k) => {
            const v = levels[k]!;
            return [
              k,
              {
                answers: v.n,
                share: round4(v.n / n),
                right: v.n ? round4(v.right / v.n) : null,
                exact_match: v.n ? round4(v.exact / v.n) : null,
                f1: v.n ? round4(v.f1 / v.n) : null,
              },
            ];
          }),
        ),
      },
      ask_latency_ms: { p50: round4(latencies[Math.floor(latencies.length / 2)] ?? 0), p95: round4(latencies[Math.floor(latencies.length * 0.95)] ?? 0) },
    };
    console.log(`\n| extractive QA, no LLM (${n} questions, ${values.half} half) | value |\n|---|---|`);
    console.log(`| exact match | ${results.exact_match.toFixed(3)} |`);
    console.log(`| token F1 | ${results.f1.toFixed(3)} |`);
    for (const [k, v] of Object.entries(results.by_answer_type)) console.log(`| token F1, ${k} answers (${v.questions}) | ${v.f1.toFixed(3)} |`);
    console.log(`| answer's sentence contains a gold answer | ${results.answer_sentence_holds_gold.toFixed(3)} |`);
    console.log(`| "not in the collection" answers | ${notFound} |`);
    console.log(`\n| confidence | answers | right (F1 >= ${RIGHT_F1}) | exact match | mean F1 |\n|---|---|---|---|---|`);
    for (const [k, v] of Object.entries(results.confidence.levels))
      console.log(`| ${k} | ${v.answers} | ${v.right ?? '-'} | ${v.exact_match ?? '-'} | ${v.f1 ?? '-'} |`);
    console.log(`\nask latency p50 ${results.ask_latency_ms.p50} ms, p95 ${results.ask_latency_ms.p95} ms`);
    if (values.dump) writeFileSync(values.dump, JSON.stringify(dump));
    if (!values.limit) console.log(`wrote ${writeResults('qa-squad', results)}`);
  });
