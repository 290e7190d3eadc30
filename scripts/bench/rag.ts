// npm run bench:rag: full indexing time and POST /rag/search and /rag/ask latency on the sample collection
// (sequential requests to the built service), and search latency with and without the shared-generation check
// (RAG_SYNC_INTERVAL_MS), and /rag/ask over varied questions each asked once, from the first one after /ready answers
// 200, on the sample collection and on the largest evaluation collection, and the first question again at the end.
// Writes docs/results/bench-rag.json.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeResults } from '../lib/results.js';
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
  const med = (k: 'p50' | 'p99') =>
    runs
      .map((r) => r[k])
      .sort((a, b) => a - b)[1]!
      .toFixed(1);
  return { p50: med('p50'), p99: med('p99') };
};
const searches = QUERIES.map((query) => ({ query, top_k: 5 }));

/**
 * Questions each asked once (no answer is cached from an earlier request): the service is started on the folder,
 * /ready is polled until it answers 200, and the first question goes at once; the rest follow one at a time.
 */
const firstTime = async (label: string, docsDir: string, questionsFile: string) => {
  const questions = (JSON.parse(readFileSync(questionsFile, 'utf8')) as { questions: { question: string }[] }).questions.map((q) => q.question);
  const svc = await startService({ RAG_INDEX_ON_START: 'true', DOCS_DIR: docsDir });
  try {
    const end = Date.now() + 300_000;
    while (Date.now() < end && (await fetch(`${svc.url}/ready`).catch(() => null))?.status !== 200) await sleep(100);
    const times: number[] = [];
    for (const [i, question] of questions.entries()) {
      times.push(await timedPost(`${svc.url}/rag/ask`, { question }));
      if (i % 20 === 19 || i === questions.length - 1) console.log(`ask once (${label}): ${i + 1}/${questions.length}`);
    }
    // The first question once more, after the rest: what it costs when nothing is cold, to compare with its first time.
    const again = await timedPost(`${svc.url}/rag/ask`, { question: questions[0] });
    const rest = times.slice(1);
    const r = {
      docs: docsDir,
      questions: times.length,
      first_ms: +times[0]!.toFixed(1),
      first_again_ms: +again.toFixed(1),
      p50: +percentile(rest, 0.5).toFixed(1),
      p90: +percentile(rest, 0.9).toFixed(1),
      max: +Math.max(...rest).toFixed(1),
    };
    console.log(`ask once (${label}): first ${r.first_ms} ms (asked again at the end: ${r.first_again_ms} ms), then p50 ${r.p50} ms, p90 ${r.p90} ms`);
    return r;
  } finally {
    await svc.stop();
  }
};

const service = await startService({ RAG_INDEX_ON_START: 'true' });
let results: Record<string, unknown>;
try {
  await settled(service.url); // the start-up index of the sample collection has finished
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
  const search = await measure('search', `${service.url}/rag/search`, searches);
  const ask = await measure(
    'ask',
    `${service.url}/rag/ask`,
    QUERIES.map((q) => ({ question: q.endsWith('?') ? q : `What was said about ${q}?` })),
  );
  results = { stats, indexing_ms: indexing.sort((a, b) => a - b), search, ask };
} finally {
  await service.stop();
}

// The generation check (another replica may have re-indexed) costs one Chroma request per interval: the same searches
// with it effectively off (once an hour) and on every search.
const sync: Record<string, { p50: string; p99: string }> = { '1000 (default)': results.search as { p50: string; p99: string } };
for (const [label, interval] of [
  ['3600000 (off)', '3600000'],
  ['0 (every search)', '0'],
] as const) {
  const other = await startService({ RAG_INDEX_ON_START: 'true', RAG_SYNC_INTERVAL_MS: interval });
  try {
    await settled(other.url);
    sync[label] = await measure(`search, RAG_SYNC_INTERVAL_MS=${interval}`, `${other.url}/rag/search`, searches);
  } finally {
    await other.stop();
  }
}
results.search_by_sync_interval = sync;
results.ask_once = {
  sample: await firstTime('sample collection', 'docs/sample-collection', 'eval/questions/sample-collection.json'),
  narrative: await firstTime('narrative collection', 'eval/collections/narrative/docs', 'eval/collections/narrative/questions.json'),
};
const file = writeResults('bench-rag', results);
{
  const { stats, indexing_ms, search, ask } = results as {
    stats: { documents: number; chunks: number; sentence_vectors: number };
    indexing_ms: number[];
    search: { p50: string; p99: string };
    ask: { p50: string; p99: string };
  };
  const indexing = indexing_ms;
  console.log(`\n${file}`);
  console.log('\n| request (sample collection) | p50 | p99 | target |\n|---|---|---|---|');
  console.log(
    `| POST /rag/index {"full": true}: ${stats.documents} files, ${stats.chunks} chunks, ${stats.sentence_vectors} sentences | ${(indexing.sort((a, b) => a - b)[1]! / 1000).toFixed(2)} s | - | <= 30 s |`,
  );
  console.log(`| POST /rag/search, top_k 5 | ${search.p50} ms | ${search.p99} ms | p50 <= 30 ms |`);
  console.log(`| POST /rag/ask, no LLM | ${ask.p50} ms | ${ask.p99} ms | p50 <= 60 ms |`);
  console.log('\n| POST /rag/search by RAG_SYNC_INTERVAL_MS | p50 | p99 |\n|---|---|---|');
  for (const [label, r] of Object.entries(sync)) console.log(`| ${label} | ${r.p50} ms | ${r.p99} ms |`);
}
