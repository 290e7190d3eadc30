// npm run eval:qa -- --collections [names] [--split dev|test] [--dump file.json]: runs the generalisation evaluation
// of collections-eval.ts and writes docs/results/qa-collections-<split>.json. The development split's rows (each
// question, its answer and verdict) go to --dump, to be read; the test split writes figures only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { round4, writeResults } from '../results.js';
import {
  type AskOutcome,
  COLLECTIONS_DIR,
  type CollectionQuestion,
  type Split,
  type Verdict,
  bar,
  listCollections,
  readQuestions,
  splitOf,
  squad2Collection,
  squad2F1,
  verdictOf,
  withFolder,
} from './collections-eval.js';

const LEVELS = ['high', 'medium', 'low'] as const;
const share = (n: number, of: number) => (of ? round4(n / of) : null);

interface Row {
  id: string;
  group: string;
  verdict: Verdict;
  confidence: string;
  ms: number;
}

const groupOf = (q: CollectionQuestion) => (q.answerable ? q.kind : q.near_miss ? 'unanswerable_near_miss' : 'unanswerable_other');

function summarise(rows: Row[]) {
  const right = rows.filter((r) => r.verdict === 'right').length;
  const groups = Object.fromEntries(
    [...new Set(rows.map((r) => r.group))].sort().map((g) => {
      const of = rows.filter((r) => r.group === g);
      return [g, { questions: of.length, right: of.filter((r) => r.verdict === 'right').length }];
    }),
  );
  const verdicts = Object.fromEntries(
    (['false_refusal', 'wrong_answer_passage_held', 'wrong_answer', 'false_answer'] as const).map((v) => [v, rows.filter((r) => r.verdict === v).length]),
  );
  const confidence = Object.fromEntries(
    LEVELS.map((l) => {
      const of = rows.filter((r) => r.confidence === l);
      return [
        l,
        {
          answers: of.length,
          right: of.filter((r) => r.verdict === 'right').length,
          share_right: share(of.filter((r) => r.verdict === 'right').length, of.length),
        },
      ];
    }),
  );
  return { questions: rows.length, right, share_right: share(right, rows.length), groups, verdicts, confidence };
}

async function runCollection(name: string, split: Split, dump: unknown[]) {
  const questions = readQuestions(name).filter((q) => splitOf(name, q.id) === split);
  const rows: Row[] = [];
  await withFolder(join(COLLECTIONS_DIR, name, 'docs'), async (ask) => {
    const b = bar(questions.length, name);
    for (const q of questions) {
      const r = await ask(q.question);
      const verdict = verdictOf(q, r);
      rows.push({ id: q.id, group: groupOf(q), verdict, confidence: r.refused ? 'refused' : r.confidence, ms: r.ms });
      if (split === 'dev') dump.push({ collection: name, ...q, verdict, got: outcomeView(r) });
      b.increment();
    }
    b.stop();
  });
  return { ...summarise(rows), latency_ms: latency(rows.map((r) => r.ms)) };
}

const outcomeView = (r: AskOutcome) => ({
  refused: r.refused,
  answer: r.answer,
  passage: r.passage,
  confidence: r.confidence,
  answer_type: r.answer_type,
  answerability: r.answerability?.probability ?? null,
  warnings: r.warnings,
});

function latency(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => round4(s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0);
  return { p50: at(0.5), p90: at(0.9) };
}

async function runSquad2(split: Split, dump: unknown[]) {
  const dir = mkdtempSync(join(tmpdir(), 'squad2-docs-'));
  try {
    const questions = squad2Collection(dir).filter((q) => q.role === split);
    const f1s: { f1: number; impossible: boolean; refused: boolean }[] = [];
    await withFolder(dir, async (ask) => {
      const b = bar(questions.length, 'squad2');
      for (const q of questions) {
        const r = await ask(q.question);
        const f1 = squad2F1(q, r);
        f1s.push({ f1, impossible: q.impossible, refused: r.refused });
        if (split === 'dev')
          dump.push({ collection: 'squad2', id: q.id, question: q.question, answers: q.answers, impossible: q.impossible, f1, got: outcomeView(r) });
        b.increment();
      }
      b.stop();
    });
    const mean = (xs: number[]) => (xs.length ? round4(xs.reduce((s, x) => s + x, 0) / xs.length) : null);
    const answerable = f1s.filter((x) => !x.impossible);
    const impossible = f1s.filter((x) => x.impossible);
    return {
      questions: f1s.length,
      answerable: answerable.length,
      unanswerable: impossible.length,
      f1: mean(f1s.map((x) => x.f1)),
      answerable_f1: mean(answerable.map((x) => x.f1)),
      unanswerable_refused: share(impossible.filter((x) => x.refused).length, impossible.length),
      answerable_refused: share(answerable.filter((x) => x.refused).length, answerable.length),
      refuse_everything_f1: share(impossible.length, f1s.length),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runCollectionsEval(opts: { split: Split; only: string[] | null; dump: string | undefined }): Promise<void> {
  const names = [...listCollections(), 'squad2'].filter((n) => !opts.only || opts.only.includes(n));
  const dump: unknown[] = [];
  const collections: Record<string, ReturnType<typeof summarise>> = {};
  let squad2: Awaited<ReturnType<typeof runSquad2>> | null = null;
  for (const name of names) {
    if (name === 'squad2') squad2 = await runSquad2(opts.split, dump);
    else collections[name] = await runCollection(name, opts.split, dump);
  }
  const shares = Object.values(collections).map((c) => c.share_right ?? 0);
  const mean = shares.length ? round4(shares.reduce((s, x) => s + x, 0) / shares.length) : null;
  console.log(`\n| collection (${opts.split}) | questions | right | share | high | medium | low |`);
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, c] of Object.entries(collections))
    console.log(
      `| ${name} | ${c.questions} | ${c.right} | ${c.share_right} | ${LEVELS.map((l) => `${c.confidence[l]!.right}/${c.confidence[l]!.answers}`).join(' | ')} |`,
    );
  if (mean !== null) console.log(`mean share right: ${mean}`);
  if (squad2) console.log(`squad2 (${opts.split}): ${JSON.stringify(squad2)}`);
  if (opts.dump && opts.split === 'dev') {
    writeFileSync(opts.dump, `${JSON.stringify(dump, null, 1)}\n`);
    console.log(`rows written to ${opts.dump}`);
  }
  if (!opts.only) console.log(`wrote ${writeResults(`qa-collections-${opts.split}`, { split: opts.split, mean_share_right: mean, collections, squad2 })}`);
}
