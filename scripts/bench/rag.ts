// npm run bench:rag: POST /rag/search latency on the sample collection (sequential requests to the built service).
import { percentile, startService } from './lib.js';

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
  // Wait for the start-up index of the sample collection.
  for (let i = 0; i < 300; i++) {
    const s = (await (await fetch(`${service.url}/rag/stats`)).json()) as { chunks?: number };
    if ((s.chunks ?? 0) > 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const post = async (query: string) => {
    const t = performance.now();
    const res = await fetch(`${service.url}/rag/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, top_k: 5 }) });
    if (!res.ok) throw new Error(`status ${res.status}`);
    await res.arrayBuffer();
    return performance.now() - t;
  };
  for (const q of QUERIES) await post(q);
  const runs: { p50: number; p99: number }[] = [];
  for (let run = 0; run < 3; run++) {
    const times: number[] = [];
    for (let i = 0; i < 200; i++) times.push(await post(QUERIES[i % QUERIES.length]!));
    runs.push({ p50: percentile(times, 0.5), p99: percentile(times, 0.99) });
    console.log(`run ${run + 1}: p50 ${runs.at(-1)!.p50.toFixed(1)} ms  p99 ${runs.at(-1)!.p99.toFixed(1)} ms`);
  }
  const med = (rs: { p50: number; p99: number }[], k: 'p50' | 'p99') => rs.map((r) => r[k]).sort((a, b) => a - b)[1]!.toFixed(1);
  const QUESTIONS = QUERIES.map((q) => (q.endsWith('?') ? q : `What was said about ${q}?`));
  const ask = async (question: string) => {
    const t = performance.now();
    const res = await fetch(`${service.url}/rag/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) });
    if (!res.ok) throw new Error(`status ${res.status}`);
    await res.arrayBuffer();
    return performance.now() - t;
  };
  for (const q of QUESTIONS) await ask(q);
  const askRuns: { p50: number; p99: number }[] = [];
  for (let run = 0; run < 3; run++) {
    const times: number[] = [];
    for (let i = 0; i < 200; i++) times.push(await ask(QUESTIONS[i % QUESTIONS.length]!));
    askRuns.push({ p50: percentile(times, 0.5), p99: percentile(times, 0.99) });
    console.log(`ask run ${run + 1}: p50 ${askRuns.at(-1)!.p50.toFixed(1)} ms  p99 ${askRuns.at(-1)!.p99.toFixed(1)} ms`);
  }
  console.log('\n| request (sample collection) | p50 | p99 | target |\n|---|---|---|---|');
  console.log(`| POST /rag/search, top_k 5 | ${med(runs, 'p50')} ms | ${med(runs, 'p99')} ms | p50 <= 30 ms |`);
  console.log(`| POST /rag/ask, no LLM | ${med(askRuns, 'p50')} ms | ${med(askRuns, 'p99')} ms | p50 <= 60 ms |`);
} finally {
  await service.stop();
}
