// npm run train:answerability
// Trains the learned "not in the collection" decision (src/text/rag/ask/answerability.ts). Every question is asked
// through /rag/ask's pipeline without an LLM, with a decision that answers every reading, so that each reading's
// features and answer are seen; the answer is then scored:
// - fit on SQuAD 2.0's fitting articles (label: the answer's token F1; 0 for an unanswerable question) and the
//   evaluation collections' development halves (label: strictly right, collections-eval.ts);
// - choose the threshold on SQuAD 2.0's development articles and the same halves: the one with the best strict share
//   right over the collections, SQuAD 2.0 F1 breaking ties; the confidence levels are the terciles of the answered
//   questions' probabilities there.
// The questions of eval/trials and train/qa (user-like development folders) are asked too and shown in the threshold
// sweep beside the halves (trials_right, train_qa_right), never fitted or chosen on.
// The test halves and SQuAD 2.0's test articles are never read. Writes models/text/reader/answerability.json and
// docs/results/answerability.json. The fit has no random state, but the passages' similarity scores vary slightly
// between index builds, so a re-run need not give the same file byte for byte.
// With --evaluate-only, the shipped model is scored on the same rows and only docs/results/answerability.json is
// written, with how far a fresh fit lands from the shipped one (its threshold and its largest weight difference).
// With --rows FILE, every row (its features, scores, collection and role) is written to FILE too, for analysis.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import {
  ANSWERABILITY_FEATURES,
  ANSWERABILITY_FILE,
  type Answerability,
  answerabilityProbability,
  loadAnswerability,
} from '../src/text/rag/ask/answerability.js';
import { fitLogistic, largestDifference } from './lib/ml/logistic.js';
import { round4, writeResults } from './lib/results.js';
import {
  COLLECTIONS_DIR,
  type AskOutcome,
  type CollectionQuestion,
  bar,
  listCollections,
  readQuestions,
  splitOf,
  squad2Collection,
  squad2F1,
  verdictOf,
  withFolder,
} from './lib/text/collections-eval.js';
import { ANSWER_EVERY_READING } from './lib/text/reader-diagnosis.js';

/** A decision that answers every reading: its features are recorded, its verdict is always yes. */
const OPEN = ANSWER_EVERY_READING;
const { values: args } = parseArgs({ options: { 'evaluate-only': { type: 'boolean', default: false }, rows: { type: 'string' } } });
const evaluateOnly = args['evaluate-only'];

/**
 * User-like development folders laid out as eval/collections: every question of each is asked and shown in the threshold
 * sweep beside the halves, never fitted or chosen on (eval/trials: folders tried as a new user would; train/qa: the
 * reader's training sets of other kinds of text, which no decision was fitted on).
 */
const SHOWN_SETS = { trials: 'eval/trials', train_qa: 'train/qa' } as const;
type ShownSet = keyof typeof SHOWN_SETS;

interface Row {
  set: 'squad2' | 'collection' | ShownSet;
  /** The collection's name (squad2 for SQuAD 2.0's articles). */
  name: string;
  role: 'fit' | 'choose' | 'shown';
  /** Features of the reading, or null when the pipeline refused before any reading (always refused). */
  x: number[] | null;
  /** Score when answered (F1 or strictly right), and when refused (1 for an unanswerable question). */
  answeredScore: number;
  refusedScore: number;
}

const rows: Row[] = [];

function record(set: Row['set'], name: string, role: Row['role'], r: AskOutcome, answeredScore: number, refusedScore: number) {
  const f = r.answerability?.features;
  rows.push({ set, name, role, x: f && !r.refused ? ANSWERABILITY_FEATURES.map((k) => f[k]!) : null, answeredScore, refusedScore });
}

async function squad2Rows() {
  const dir = mkdtempSync(join(tmpdir(), 'answerability-squad2-'));
  try {
    const questions = squad2Collection(dir).filter((q) => q.role !== 'test');
    await withFolder(
      dir,
      async (ask) => {
        const b = bar(questions.length, 'squad2');
        for (const q of questions) {
          const r = await ask(q.question);
          record('squad2', 'squad2', q.role === 'fit' ? 'fit' : 'choose', r, squad2F1(q, { ...r, refused: false }), q.impossible ? 1 : 0);
          b.increment();
        }
        b.stop();
      },
      OPEN,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows of a folder's questions (`<dir>/<name>/docs` and its questions.json), scored strictly, in the given roles. */
async function folderRows(dir: string, name: string, questions: CollectionQuestion[], set: Row['set'], roles: Row['role'][]) {
  await withFolder(
    join(dir, name, 'docs'),
    async (ask) => {
      const b = bar(questions.length, name);
      for (const q of questions) {
        const r = await ask(q.question);
        const answered = verdictOf(q, { ...r, refused: false }) === 'right' ? 1 : 0;
        for (const role of roles) record(set, name, role, r, answered, q.answerable ? 0 : 1);
        b.increment();
      }
      b.stop();
    },
    OPEN,
  );
}

await squad2Rows();
// The development halves both fit the weights and take part in choosing the threshold.
for (const name of listCollections())
  await folderRows(
    COLLECTIONS_DIR,
    name,
    readQuestions(name).filter((q) => splitOf(name, q.id) === 'dev'),
    'collection',
    ['fit', 'choose'],
  );
for (const [set, folder] of Object.entries(SHOWN_SETS) as [ShownSet, string][]) {
  const dir = fromRoot(folder);
  for (const name of listCollections(dir)) {
    const questions = readQuestions(name, dir).map((q) => ({ ...q, answerable: q.answerable !== false }));
    await folderRows(dir, name, questions, set, ['shown']);
  }
}
// --rows FILE: every row (features, scores, set and role) for analysis outside this script.
if (args.rows) writeFileSync(args.rows, JSON.stringify({ features: ANSWERABILITY_FEATURES, rows }));

const fit = rows.filter((r) => r.role === 'fit' && r.x);
const fitted = fitLogistic(
  fit.map((r) => r.x!),
  fit.map((r) => r.answeredScore),
  { l2: 0.01, iterations: 4000, rate: 0.5 },
);
const shipped = evaluateOnly ? loadAnswerability() : null;
const gridOf = () => Array.from({ length: 19 }, (_, i) => Math.round((0.05 + i * 0.05) * 100) / 100);

/** The threshold sweep of a model's probabilities over the choosing rows. */
function sweep(weights: Omit<Answerability, 'threshold' | 'levels'>) {
  const probability = (r: Row) => (r.x ? answerabilityProbability({ ...OPEN, ...weights }, r.x) : -1);
  /** Mean score of a set's choosing rows when readings from `t` are answered. */
  const scoreAt = (set: Row['set'], t: number) => {
    const of = rows.filter((r) => r.role !== 'fit' && r.set === set);
    return of.reduce((s, r) => s + (probability(r) >= t ? r.answeredScore : r.refusedScore), 0) / of.length;
  };
  /** What answering readings from `t` gives on each set (the shown sets beside, never chosen on). */
  const at = (t: number) => ({
    threshold: t,
    squad2_f1: scoreAt('squad2', t),
    collections_right: scoreAt('collection', t),
    trials_right: scoreAt('trials', t),
    train_qa_right: scoreAt('train_qa', t),
  });
  const table = gridOf().map(at);
  // The users' own kinds of document come first: the best share right over the collections' development halves, and of
  // equal ones the best SQuAD 2.0 F1 (SQuAD 2.0 rewards refusing: its unanswerable questions are half of it).
  const best = table.reduce((a, b) =>
    b.collections_right > a.collections_right || (b.collections_right === a.collections_right && b.squad2_f1 > a.squad2_f1) ? b : a,
  );
  return { probability, at, table, best };
}

const fresh = sweep({ features: ANSWERABILITY_FEATURES, ...fitted });
const used = shipped ? sweep(shipped) : fresh;
const threshold = shipped ? shipped.threshold : fresh.best.threshold;
const chosenRow = used.table.find((t) => t.threshold === threshold) ?? used.at(threshold);
const rounded = (t: typeof chosenRow) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k, round4(v)])) as typeof chosenRow;
const { threshold: _every, ...everythingRead } = rounded(used.at(0));
const answered = rows
  .filter((r) => r.role === 'choose' && used.probability(r) >= threshold)
  .map(used.probability)
  .sort((a, b) => a - b);
const tercile = (q: number) => round4(answered[Math.floor(q * (answered.length - 1))]!);
const model: Answerability = shipped ?? {
  features: ANSWERABILITY_FEATURES,
  ...fitted,
  threshold,
  levels: { high: tercile(2 / 3), medium: tercile(1 / 3) },
};
const results = {
  model: shipped ? `the shipped ${ANSWERABILITY_FILE}` : 'fitted by this run',
  fit_rows: fit.length,
  choose_rows: rows.filter((r) => r.role === 'choose').length,
  never_read: rows.filter((r) => !r.x).length,
  shown_rows: Object.fromEntries(Object.keys(SHOWN_SETS).map((set) => [set, rows.filter((r) => r.set === set).length])),
  thresholds: used.table.map(rounded),
  chosen: rounded(chosenRow),
  answering_everything_read: everythingRead,
  ...(shipped
    ? {
        refit: {
          threshold: fresh.best.threshold,
          largest_weight_difference: round4(largestDifference(fitted, shipped)),
        },
      }
    : {}),
};
if (!shipped)
  writeFileSync(
    fromRoot(ANSWERABILITY_FILE),
    `${JSON.stringify(
      {
        name: 'answerability',
        task: 'whether the answer the reader shows is right, or the answer should be "not in the collection" (src/text/rag/ask/answerability.ts)',
        data: 'fit: SQuAD 2.0 fitting articles and the development halves of eval/collections; threshold: SQuAD 2.0 development articles and those halves; never the test halves or test articles',
        command: 'npm run train:answerability',
        model,
        results,
      },
      null,
      2,
    )}\n`,
  );
console.log(`\nthreshold ${threshold}: SQuAD 2.0 dev F1 ${round4(chosenRow.squad2_f1)}, collections dev right ${round4(chosenRow.collections_right)}`);
console.log(`(answering every reading: ${JSON.stringify(results.answering_everything_read)}); levels ${JSON.stringify(model.levels)}`);
if (shipped) console.log(`a fresh fit: ${JSON.stringify(results.refit)}`);
console.log(`wrote ${shipped ? '' : `${ANSWERABILITY_FILE} and `}${writeResults('answerability', results)}`);
