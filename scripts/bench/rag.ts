// npm run bench:rag: full indexing time and POST /rag/search and /rag/ask latency on the sample collection
// (sequential requests to the built service).
import { percentile, settled, startService, timedPost } from './lib.js';

const QUERIES = [
  'What did the president say about the navy?',
  'railroads and commerce between the states',
  'taxes on income and the national debt',
  'education and schools for children',
  'war in Europe and the defense of democracy',
  'health care costs for families',
  'relations with Mexico and Spain',
  'unemployment and the economic depression',
];

const service = await startService({ RAG_INDEX_ON_START: 'true' });
try {
  await settled(service.url); // the start-up index of the sample collection has finished
  /** Three runs of 200 sequential requests after one warm-up pass; the median run's p50 and p99. */
  const measure = async (name: string, url: string, bodies: unknown[]) => {
    for (const b of bodies) await timedPost(url, b);
    const runs: { p50: number; p99: number }[] = [];
    for (let run = 0; run < 3; run++) {
      const times: number[] = [];
      for (let i = 0; i < 200; i++) times.push(await timedPost(url, bodies[i % bodies.length]));
      runs.push({ p50: percentile(times, 0.5), p99: percentile(times, 0.99) });
      console.log(`${name} run ${run + 1}: p50 ${runs.at(-1)!.p50.toFixed(1)} ms  p99 ${runs.at(-1)!.p99.toFixed(1)} ms`);
    }
    const med = (k: 'p50' | 'p99') => runs.map((r) => r[k]).sort((a, b) => a - b)[1]!.toFixed(1);
    return { p50: med('p50'), p99: med('p99') };
  };
  // Full re-index of the sample collection (chunks and their sentences), three times.
  const indexing: number[] = [];
  for (let run = 0; run < 3; run++) {
    const res = await fetch(`${service.url}/rag/index`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"full": true}' });
    if (!res.ok) throw new Error(`POST /rag/index answered ${res.status}: ${await res.text()}`);
    const r = (await res.json()) as { duration_ms: number; documents: number; chunks_added: number };
    indexing.push(r.duration_ms);
    console.log(`index run ${run + 1}: ${r.documents} files, ${r.chunks_added} chunks in ${(r.duration_ms / 1000).toFixed(2)} s`);
  }
  const stats = (await (await fetch(`${service.url}/rag/stats`)).json()) as { documents: number; chunks: number; sentence_vectors: number };
  const search = await measure('search', `${service.url}/rag/search`, QUERIES.map((query) => ({ query, top_k: 5 })));
  const ask = await measure('ask', `${service.url}/rag/ask`, QUERIES.map((q) => ({ question: q.endsWith('?') ? q : `What was said about ${q}?` })));
  console.log('\n| request (sample collection) | p50 | p99 | target |\n|---|---|---|---|');
  console.log(`| POST /rag/index {"full": true}: ${stats.documents} files, ${stats.chunks} chunks, ${stats.sentence_vectors} sentences | ${(indexing.sort((a, b) => a - b)[1]! / 1000).toFixed(2)} s | - | <= 30 s |`);
  console.log(`| POST /rag/search, top_k 5 | ${search.p50} ms | ${search.p99} ms | p50 <= 30 ms |`);
  console.log(`| POST /rag/ask, no LLM | ${ask.p50} ms | ${ask.p99} ms | p50 <= 60 ms |`);
} finally {
  await service.stop();
}
