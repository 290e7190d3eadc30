// npm run eval:retrieval -- --squad data/datasets/squad/dev-v1.1-part-a.json [--limit N] [--rerank]
// Indexes each SQuAD article as a document through the service's own code, asks every question, and prints
// recall@1/5/10 and MRR for BM25 only, semantic only and hybrid (a hit: a retrieved chunk contains a gold answer);
// with --rerank also for the hybrid results reordered by the cross-encoder of RERANK_MODEL.
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { writeResults } from './lib/results.js';
import { summarise } from './lib/text/squad-eval.js';
import { withSquadCollection } from './lib/text/squad-collection.js';

const { values } = parseArgs({
  options: {
    squad: { type: 'string', default: 'data/datasets/squad/dev-v1.1-part-a.json' },
    limit: { type: 'string' },
    rerank: { type: 'boolean', default: false },
  },
});

await withSquadCollection(values.squad, async (app, questions) => {
  const rag = await app.rag.service();
  const asked = values.limit ? questions.slice(0, Number(values.limit)) : questions;
  const w = rag.opts.semanticWeight;
  const modes = {
    'BM25 only': [0, 'theoretical'],
    'semantic only': [1, 'theoretical'],
    [`hybrid, weight ${w}, theoretical normalisation`]: [w, 'theoretical'],
    [`hybrid, weight ${w}, min-max normalisation`]: [w, 'minmax'],
  } as const;
  const ranks: Record<string, number[]> = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
  const halves: Record<string, number[]> = {};
  const bar = new cliProgress.SingleBar(
    { format: ' questions |{bar}| {value}/{total}', noTTYOutput: true, notTTYSchedule: 5000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(asked.length, 0);
  const reranked = `hybrid reranked by ${app.config.RERANK_MODEL}`;
  if (values.rerank) await rag.opts.crossEncoder!(); // fails here, with the reason, when the model cannot be loaded
  if (values.rerank) ranks[reranked] = [];
  for (const [i, { question, answers, article }] of asked.entries()) {
    const runs: [string, () => ReturnType<typeof rag.search>][] = Object.entries(modes).map(([mode, [weight, normalisation]]) => [
      mode,
      () => rag.search(question, 10, 'weighted', weight, normalisation),
    ]);
    if (values.rerank) runs.push([reranked, () => rag.searchReranked(question, 10)]);
    for (const [mode, run] of runs) {
      const r = (await run()).findIndex((h) => answers.some((a) => h.text.includes(a)));
      const rank = r < 0 ? Infinity : r + 1;
      ranks[mode]!.push(rank);
      // Design choices were made on the even-numbered articles; the odd-numbered half is reported apart.
      (halves[`${mode}, ${article % 2 === 0 ? 'development' : 'held-out'} half`] ??= []).push(rank);
    }
    bar.update(i + 1);
  }
  bar.stop();
  console.log(`\n| retriever (${asked.length} questions, chunks of 2,048 characters) | recall@1 | recall@5 | recall@10 | MRR |\n|---|---|---|---|---|`);
  const table: Record<string, ReturnType<typeof summarise>> = {};
  for (const [name, r] of [...Object.entries(ranks), ...Object.entries(halves).sort()]) {
    const s = summarise(r);
    table[name] = s;
    console.log(`| ${name} | ${s.recall_at_1.toFixed(3)} | ${s.recall_at_5.toFixed(3)} | ${s.recall_at_10.toFixed(3)} | ${s.mrr.toFixed(3)} |`);
  }
  console.log(writeResults('eval-retrieval', { questions: asked.length, chunk_chars: 2048, retrievers: table }));
});
