// npm run eval:qa -- --collections --reader: where the answer step loses answerable questions, on the development
// halves only (never the test halves). Every reading is answered (the learned decision is replaced by one that says
// yes), so each answerable question shows what the reader itself picked; each wrong answer is put in one kind:
//   - right_sentence_wrong_span: the sentence the answer comes from holds a gold answer, the span shown does not;
//   - wrong_sentence, answer_in_first_passage / in_later_passage: the reader picked a sentence without the answer
//     although a retrieved passage (the best-ranked one, or another) holds it;
//   - not_retrieved: no retrieved passage holds a gold answer (or the gold answer is worded otherwise in the text);
//   - refused_before_reading: the pipeline refused before any reading (no relevant passage, the catalogue rules).
// With the unanswerable questions of the same split, it also gives the ceiling of any refusal decision over these
// readings (ceilingOf): the share strictly right when exactly the right readings are answered.
// Writes docs/results/qa-reader-dev.json. With a folder of other sets laid out as eval/collections (`--sets train/qa`:
// <set>/docs and <set>/questions.json), every answerable question of each set instead, written to
// docs/results/qa-reader-<folder, its slashes as dashes>.json (qa-reader-train-qa.json).
import { join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../../src/infra/paths.js';
import { ANSWERABILITY_FEATURES, type Answerability } from '../../../src/text/rag/ask/answerability.js';
import { openModel } from '../ml/logistic.js';
import { round4, writeResults } from '../results.js';
import {
  type AskOutcome,
  COLLECTIONS_DIR,
  type CollectionQuestion,
  bar,
  contains,
  listCollections,
  readQuestions,
  splitOf,
  verdictOf,
  withFolder,
} from './collections-eval.js';

/** A decision that answers every reading. */
export const ANSWER_EVERY_READING: Answerability = { ...openModel(ANSWERABILITY_FEATURES), levels: { high: 1, medium: 1 } };

export const KINDS = [
  'right',
  'right_sentence_wrong_span',
  'wrong_sentence_answer_in_first_passage',
  'wrong_sentence_answer_in_later_passage',
  'not_retrieved',
  'refused_before_reading',
] as const;
export type Kind = (typeof KINDS)[number];

/** The kind of one answerable question's outcome (see the header). */
export function kindOf(q: Pick<CollectionQuestion, 'kind' | 'answerable' | 'answers'>, r: AskOutcome): Kind {
  if (r.refused) return 'refused_before_reading';
  if (verdictOf(q, r) === 'right') return 'right';
  const holds = (text: string) => q.answers.some((a) => contains(text, a));
  if (holds(r.passage)) return 'right_sentence_wrong_span';
  const at = r.context.findIndex(holds);
  if (at === 0) return 'wrong_sentence_answer_in_first_passage';
  return at > 0 ? 'wrong_sentence_answer_in_later_passage' : 'not_retrieved';
}

export async function runReaderDiagnosis(setsDir?: string): Promise<void> {
  const dir = setsDir ? resolve(setsDir) : COLLECTIONS_DIR;
  const collections: Record<string, Record<string, Record<Kind, number>>> = {};
  const unanswerable: Record<string, number> = {};
  for (const name of listCollections(dir)) {
    const asked = setsDir ? readQuestions(name, dir) : readQuestions(name).filter((q) => splitOf(name, q.id) === 'dev');
    const questions = asked.filter((q) => q.answerable !== false);
    unanswerable[name] = asked.length - questions.length;
    const byKind: Record<string, Record<Kind, number>> = {};
    await withFolder(
      join(dir, name, 'docs'),
      async (ask) => {
        const b = bar(questions.length, name);
        for (const q of questions) {
          const counts = (byKind[q.kind] ??= Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>);
          counts[kindOf({ ...q, answerable: true }, await ask(q.question))]++;
          b.increment();
        }
        b.stop();
      },
      ANSWER_EVERY_READING,
    );
    collections[name] = byKind;
  }
  const totals = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  for (const byKind of Object.values(collections)) for (const counts of Object.values(byKind)) for (const k of KINDS) totals[k] += counts[k];
  console.log('\n| kind (answerable development questions, every reading answered) | questions |\n|---|---|');
  for (const k of KINDS) console.log(`| ${k} | ${totals[k]} |`);
  const ceiling = ceilingOf(collections, unanswerable);
  console.log(`the most a refusal decision could reach over this reader: ${JSON.stringify(ceiling)}`);
  const name = setsDir ? `qa-reader-${relative(PROJECT_ROOT, dir).replaceAll('/', '-')}` : 'qa-reader-dev';
  const split = setsDir ? `every question of ${relative(PROJECT_ROOT, dir)}` : 'dev';
  const results = { split, questions: 'answerable', decision: 'every reading answered', totals, collections, unanswerable, ceiling };
  console.log(`wrote ${writeResults(name, results)}`);
}

/**
 * The share strictly right that a perfect "not in the collection" decision would give over this reader and retrieval:
 * one that answers exactly the right readings and refuses every other question, the unanswerable ones included. No
 * decision over the same readings can do better, whatever its inputs or threshold.
 */
export function ceilingOf(collections: Record<string, Record<string, Record<Kind, number>>>, unanswerable: Record<string, number>) {
  const byCollection = Object.fromEntries(
    Object.entries(collections).map(([name, byKind]) => {
      const counts = Object.values(byKind);
      const answerable = counts.reduce((n, c) => n + KINDS.reduce((m, k) => m + c[k], 0), 0);
      const right = counts.reduce((n, c) => n + c.right, 0) + (unanswerable[name] ?? 0);
      const questions = answerable + (unanswerable[name] ?? 0);
      return [name, { questions, right, share: questions ? round4(right / questions) : 0 }];
    }),
  );
  const shares = Object.values(byCollection).map((c) => c.share);
  const mean = shares.length ? round4(shares.reduce((a, b) => a + b, 0) / shares.length) : 0;
  return { mean_share: mean, collections: byCollection };
}
