// A SQuAD file as a document collection: one .txt per article, indexed through the service's own code into a
// separate collection and data directory that are removed afterwards.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/infra/config.js';
import { requireDataFile } from '../datasets.js';
import { squadFileName } from './squad-eval.js';

type Squad = { data: { title: string; paragraphs: { context: string; qas: { question: string; answers: { text: string }[] }[] }[] }[] };

export interface SquadQuestion {
  question: string;
  answers: string[];
  /** Position of the question's article in the file. */
  article: number;
  /** Whether the question's article is in the indexed collection (with `include`, some are left out). */
  indexed: boolean;
}

export async function withSquadCollection<T>(
  path: string,
  fn: (app: Awaited<ReturnType<typeof buildApp>>, questions: SquadQuestion[]) => Promise<T>,
  /** Articles (by position) to index; every one without. Questions of every article are returned. */
  include: (article: number) => boolean = () => true,
): Promise<T> {
  const squad = JSON.parse(readFileSync(requireDataFile(path), 'utf8')) as Squad;
  const docs = join(tmpdir(), `squad-docs-${process.pid}`);
  const dataDir = join(tmpdir(), `squad-data-${process.pid}`);
  mkdirSync(docs, { recursive: true });
  const questions: SquadQuestion[] = [];
  for (const [article, a] of squad.data.entries()) {
    const indexed = include(article);
    if (indexed) writeFileSync(join(docs, squadFileName(a.title)), a.paragraphs.map((p) => p.context).join('\n\n'));
    for (const p of a.paragraphs) for (const qa of p.qas) questions.push({ question: qa.question, answers: qa.answers.map((x) => x.text), article, indexed });
  }
  const app = await buildApp({
    config: { ...loadConfig(), LOG_LEVEL: 'warn', DOCS_DIR: docs, DATA_DIR: dataDir, RAG_COLLECTION: 'squad-eval', RAG_INDEX_ON_START: false },
  });
  try {
    const rag = await app.rag.service();
    const t0 = performance.now();
    const indexed = await rag.index({ full: true });
    console.log(`indexed ${indexed.documents} articles into ${indexed.chunks_added} chunks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return await fn(app, questions);
  } finally {
    await app.close();
    rmSync(docs, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
