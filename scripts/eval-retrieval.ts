// npm run eval:retrieval -- --squad ../shared/data/squad/dev-v1.1-part-a.json
// Writes each SQuAD article's paragraphs to one document, indexes them into a separate collection through the
// service's own code (chunks, Chroma, BM25), asks every question, and prints recall@1/5/10 and MRR for BM25 only,
// semantic only and hybrid (a retrieved chunk is a hit when it contains a gold answer).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/infra/config.js';
import { fromRoot } from '../src/infra/paths.js';
import { summarise } from './lib/text/squad-eval.js';

const { values } = parseArgs({ options: { squad: { type: 'string', default: '../shared/data/squad/dev-v1.1-part-a.json' }, limit: { type: 'string' } } });
type Squad = { data: { title: string; paragraphs: { context: string; qas: { question: string; answers: { text: string }[] }[] }[] }[] };
const squad = JSON.parse(readFileSync(fromRoot(values.squad!), 'utf8')) as Squad;
const docs = join(tmpdir(), `squad-docs-${process.pid}`);
const dataDir = join(tmpdir(), `squad-data-${process.pid}`);
mkdirSync(docs, { recursive: true });
const questions: { q: string; answers: string[] }[] = [];
for (const a of squad.data) {
  writeFileSync(join(docs, `${a.title.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`), a.paragraphs.map((p) => p.context).join('\n\n'));
  for (const p of a.paragraphs) for (const qa of p.qas) questions.push({ q: qa.question, answers: qa.answers.map((x) => x.text) });
}
const asked = values.limit ? questions.slice(0, Number(values.limit)) : questions;
const app = await buildApp({ config: { ...loadConfig(), LOG_LEVEL: 'warn', DOCS_DIR: docs, DATA_DIR: dataDir, RAG_COLLECTION: 'squad-eval', RAG_INDEX_ON_START: false } });
try {
  const rag = await app.rag.service();
  const t0 = performance.now();
  const indexed = await rag.index({ full: true });
  console.log(`indexed ${indexed.documents} articles into ${indexed.chunks_added} chunks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const modes = { bm25: 0, semantic: 1, hybrid: rag.opts.semanticWeight } as const;
  const ranks: Record<string, number[]> = { bm25: [], semantic: [], hybrid: [] };
  const bar = new cliProgress.SingleBar({ format: ' questions |{bar}| {value}/{total}', noTTYOutput: true, notTTYSchedule: 5000 }, cliProgress.Presets.shades_classic);
  bar.start(asked.length, 0);
  for (const [i, { q, answers }] of asked.entries()) {
    for (const [mode, weight] of Object.entries(modes)) {
      const hits = await rag.search(q, 10, 'weighted', weight);
      const r = hits.findIndex((h) => answers.some((a) => h.text.includes(a)));
      ranks[mode]!.push(r < 0 ? Infinity : r + 1);
    }
    bar.update(i + 1);
  }
  bar.stop();
  console.log(`\n| retriever (${asked.length} questions, chunks of 2,048 characters) | recall@1 | recall@5 | recall@10 | MRR |\n|---|---|---|---|---|`);
  for (const [mode, r] of Object.entries(ranks)) {
    const s = summarise(r);
    const name = mode === 'hybrid' ? `hybrid (semantic weight ${modes.hybrid})` : mode;
    console.log(`| ${name} | ${s.recall_at_1.toFixed(3)} | ${s.recall_at_5.toFixed(3)} | ${s.recall_at_10.toFixed(3)} | ${s.mrr.toFixed(3)} |`);
  }
} finally {
  await app.close();
  rmSync(docs, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
