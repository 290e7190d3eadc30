// The generalisation evaluation: document collections of different kinds (eval/collections/<name>/: docs/ and
// questions.json, written from the documents alone before the service answered any), and SQuAD 2.0 on the seven
// articles of data/datasets/squad2. Every question is asked through /rag/ask's pipeline without an LLM and scored
// strictly, as a user sees the answer:
// - a factoid is right only when the answer shown contains an acceptable answer (its sentence does not count);
// - an open question is right when the answer or its passage contains one;
// - a refusal ("not in the collection") is right only when the documents cannot answer.
// SQuAD 2.0 is scored the SQuAD way: token F1 of the answer (a refusal scores 1 on an unanswerable question, 0 on an
// answerable one), overall and on the answerable questions, and the share of unanswerable questions refused.
//
// Each question set is split by a fixed hash of its id into a development half (look at it, fix kinds of failure) and
// a test half (run only to report; its rows are never written). SQuAD 2.0 is split by article instead: three articles
// to fit the learned decisions on, two to choose on (dev), two to report (test).
import { createHash } from 'node:crypto';
import cliProgress from 'cli-progress';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/infra/config.js';
import { PROJECT_ROOT } from '../../../src/infra/paths.js';
import type { Answerability } from '../../../src/text/rag/ask/answerability.js';
import { requireDataFile } from '../datasets.js';
import { bestF1 } from './squad-eval.js';

export type Split = 'dev' | 'test';
export type ArticleRole = 'fit' | Split;

export interface CollectionQuestion {
  id: string;
  question: string;
  kind: 'factoid' | 'open';
  answerable: boolean;
  near_miss?: boolean;
  answers: string[];
  source?: string | null;
}

export const COLLECTIONS_DIR = join(PROJECT_ROOT, 'eval', 'collections');
export const SQUAD2_FILE = 'data/datasets/squad2/dev-v2.0-part-a.json';

/** The half a question belongs to: a fixed hash of its collection and id. */
export function splitOf(collection: string, id: string): Split {
  return createHash('sha256').update(`${collection}/${id}`).digest()[0]! < 128 ? 'dev' : 'test';
}

/** SQuAD 2.0 articles by role: ranked by a hash of their title, three to fit on, two to choose on, two to report. */
export function squadArticleRoles(titles: string[]): Map<string, ArticleRole> {
  const ranked = [...titles].sort((a, b) => hashHex(a).localeCompare(hashHex(b)));
  return new Map(ranked.map((t, i) => [t, i < 3 ? 'fit' : i < 5 ? 'dev' : 'test'] as const));
}

const hashHex = (s: string) => createHash('sha256').update(s).digest('hex');

/** Lower case, punctuation and dashes as spaces, one space between words: containment is word-bounded. */
export function words(s: string): string {
  return ` ${s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}%$.]+/gu, ' ')
    .replace(/\.(?!\d)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()} `;
}

export const contains = (text: string, answer: string) => words(text).includes(words(answer));

export interface AskOutcome {
  refused: boolean;
  answer: string;
  passage: string;
  confidence: string;
  answer_type: string;
  context: string[];
  ms: number;
  /** The learned decision's verdict on the reading, when it made one (guardrails.answerability). */
  answerability: { probability: number; features: Record<string, number> } | null;
  /** The response's warnings: a refusal says there why it refused. */
  warnings: string[];
}

export type Verdict = 'right' | 'false_refusal' | 'wrong_answer_passage_held' | 'wrong_answer' | 'false_answer';

/** Strict scoring of one answer (see the header). */
export function verdictOf(q: Pick<CollectionQuestion, 'kind' | 'answerable' | 'answers'>, r: AskOutcome): Verdict {
  if (!q.answerable) return r.refused ? 'right' : 'false_answer';
  if (r.refused) return 'false_refusal';
  const shown = q.kind === 'factoid' ? r.answer : `${r.answer} ${r.passage}`;
  if (q.answers.some((a) => contains(shown, a))) return 'right';
  return r.context.some((c) => q.answers.some((a) => contains(c, a))) ? 'wrong_answer_passage_held' : 'wrong_answer';
}

type App = Awaited<ReturnType<typeof buildApp>>;

/** Indexes a folder into a throw-away data directory and runs fn with an asker, without any LLM. */
export async function withFolder<T>(
  docsDir: string,
  fn: (ask: (question: string) => Promise<AskOutcome>) => Promise<T>,
  /** Replaces the shipped learned decision (training: one that answers every reading). */
  answerability?: Answerability | null,
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'collections-eval-'));
  const app: App = await buildApp({
    config: {
      ...loadConfig(),
      LLM_API_KEY: undefined,
      LOG_LEVEL: 'warn',
      DOCS_DIR: docsDir,
      DATA_DIR: dataDir,
      RAG_COLLECTION: 'collections-eval',
      RAG_INDEX_ON_START: false,
    },
  });
  try {
    await (await app.rag.service()).index({ full: true });
    const asker = await app.rag.ask();
    if (answerability !== undefined) asker.useAnswerability(answerability);
    return await fn(async (question) => {
      const t0 = performance.now();
      const r = await asker.ask(question, 5);
      return {
        refused: r.answer_passage === null,
        answer: r.answer_passage === null ? '' : r.answer,
        passage: r.answer_passage ?? '',
        confidence: r.confidence,
        answer_type: r.answer_type,
        context: r.context.map((c) => c.text),
        ms: performance.now() - t0,
        answerability: (r.guardrails as { answerability?: AskOutcome['answerability'] }).answerability ?? null,
        warnings: r.warnings,
      };
    });
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The collections of a folder laid out as eval/collections (<name>/docs, <name>/questions.json): its folders. */
export function listCollections(dir = COLLECTIONS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function readQuestions(collection: string, dir = COLLECTIONS_DIR): CollectionQuestion[] {
  return (JSON.parse(readFileSync(join(dir, collection, 'questions.json'), 'utf8')) as { questions: CollectionQuestion[] }).questions;
}

type Squad2 = {
  data: { title: string; paragraphs: { context: string; qas: { id: string; question: string; is_impossible?: boolean; answers: { text: string }[] }[] }[] }[];
};

export interface Squad2Question {
  id: string;
  question: string;
  answers: string[];
  impossible: boolean;
  role: ArticleRole;
}

/** Writes the SQuAD 2.0 articles to a folder (one .txt each) and returns their questions with their article's role. */
export function squad2Collection(dir: string): Squad2Question[] {
  const squad = JSON.parse(readFileSync(requireDataFile(SQUAD2_FILE), 'utf8')) as Squad2;
  const roles = squadArticleRoles(squad.data.map((a) => a.title));
  mkdirSync(dir, { recursive: true });
  const out: Squad2Question[] = [];
  for (const a of squad.data) {
    writeFileSync(join(dir, `${a.title.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`), a.paragraphs.map((p) => p.context).join('\n\n'));
    for (const p of a.paragraphs)
      for (const qa of p.qas)
        out.push({
          id: qa.id,
          question: qa.question,
          answers: qa.answers.map((x) => x.text),
          impossible: qa.is_impossible === true,
          role: roles.get(a.title)!,
        });
  }
  return out;
}

/** SQuAD 2.0 scoring of one answer: token F1, where a refusal is right exactly on an unanswerable question. */
export function squad2F1(q: Squad2Question, r: AskOutcome): number {
  if (q.impossible) return r.refused ? 1 : 0;
  return r.refused ? 0 : bestF1(r.answer, q.answers);
}

/** A progress bar for one collection's questions (plain lines every 5 s when the output is not a terminal). */
export function bar(total: number, name: string) {
  const b = new cliProgress.SingleBar(
    { format: ` ${name.padEnd(15)} |{bar}| {value}/{total}`, noTTYOutput: true, notTTYSchedule: 5000 },
    cliProgress.Presets.shades_classic,
  );
  b.start(total, 0);
  return b;
}
