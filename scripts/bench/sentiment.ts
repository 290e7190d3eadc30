// npm run bench:sentiment: /analyze/sentiment latency for 20, 2,000 and 20,000 words, cold load, resident memory.
import { readFileSync } from 'node:fs';
import { percentile, settled, startService, timedPost } from './lib.js';
import { writeResults } from '../lib/results.js';

const WORDS = 'revenue rose sharply while costs fell and the board raised its outlook although some analysts remained cautious about demand'.split(' ');
const text = (n: number) => {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[i % WORDS.length]! + ((i + 1) % 15 === 0 ? '.' : ''));
  return out.join(' ');
};

const post = (url: string, body: string) => timedPost(`${url}/analyze/sentiment`, body);

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const service = await startService();
try {
  const t0 = performance.now();
  await settled(service.url);
  console.log(`database, document index and answer step ready ${((performance.now() - t0) / 1000).toFixed(1)} s after the port opened`);
  const cases = [
    { name: '20 words', body: JSON.stringify({ text: text(20) }), n: 300, target: '<= 10 ms' },
    { name: '2,000 words', body: JSON.stringify({ text: text(2000) }), n: 60, target: '<= 60 ms' },
    { name: '20,000 words', body: JSON.stringify({ text: text(20000) }), n: 12, target: '-' },
    // Worst cases: one "word" of 200,000 characters, cut by the chunker without a space or a sentence end.
    { name: '200,000 CJK characters, no space', body: JSON.stringify({ text: '漢'.repeat(199_998) }), n: 3, target: 'a few seconds' },
    { name: '200,000 hyphens', body: JSON.stringify({ text: '-'.repeat(199_998) }), n: 3, target: 'a few seconds' },
  ];
  const rssBefore = rssMb(service.child.pid!);
  const cold = await post(service.url, cases[0]!.body);
  console.log(`after the cold request: RSS ${rssMb(service.child.pid!).toFixed(0)} MB`);
  const health = (await (await fetch(`${service.url}/health`)).json()) as { components: { sentiment: { load_ms: number } } };
  const rows = [`| cold first request (loads both models) | ${cold.toFixed(0)} | - | model load ${health.components.sentiment.load_ms} ms; target <= 2 s |`];
  const measured: { request: string; requests: number; p50_ms: number; p99_ms: number }[] = [];
  for (const c of cases) {
    for (let i = 0; i < 3; i++) await post(service.url, c.body);
    const times: number[] = [];
    for (let i = 0; i < c.n; i++) times.push(await post(service.url, c.body));
    measured.push({ request: c.name, requests: c.n, p50_ms: percentile(times, 0.5), p99_ms: percentile(times, 0.99) });
    rows.push(`| ${c.name} | ${percentile(times, 0.5).toFixed(1)} | ${percentile(times, 0.99).toFixed(1)} | ${c.target} |`);
    console.log(`${c.name}: p50 ${percentile(times, 0.5).toFixed(1)} ms over ${c.n} requests; RSS now ${rssMb(service.child.pid!).toFixed(0)} MB`);
  }
  const rss = rssMb(service.child.pid!);
  console.log('\n| request | p50 (ms) | p99 (ms) | note |\n|---|---|---|---|');
  console.log(rows.join('\n'));
  console.log(`\nservice RSS: ${rssBefore.toFixed(0)} MB before the models, ${rss.toFixed(0)} MB after (target <= 400 MB)`);
  console.log(
    writeResults('bench-sentiment', {
      cold_first_request_ms: cold,
      model_load_ms: health.components.sentiment.load_ms,
      requests: measured,
      rss_mb: { before_models: rssBefore, after: rss },
    }),
  );
} finally {
  await service.stop();
}
