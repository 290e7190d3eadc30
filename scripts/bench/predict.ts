// npm run bench:predict [-- --runs 5 --duration 10 --connections 32]: POST /api/predict under autocannon on loopback.
import { parseArgs } from 'node:util';
import { type LoadResult, load, median, startService } from './lib.js';
import { writeResults } from '../lib/results.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
});

const body = JSON.stringify({ pclass: 3, sex: 'male', age: 22, sibsp: 1, parch: 0, embarked: 'S' });

async function main() {
  const service = await startService({ LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' });
  try {
    console.log(`warming up ${service.url} ...`);
    await load({ url: `${service.url}/api/predict`, method: 'POST', body, headers: { 'content-type': 'application/json' }, duration: 3 });
    const results: LoadResult[] = [];
    for (let i = 0; i < Number(values.runs); i++) {
      const r = await load({
        url: `${service.url}/api/predict`,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        duration: Number(values.duration),
        connections: Number(values.connections),
      });
      results.push(r);
      console.log(`run ${i + 1}: ${r.rps.toFixed(0)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}  non-2xx ${r.non2xx}`);
    }
    console.log('\n| metric | median over runs |\n|---|---|');
    console.log(`| requests/s | ${median(results.map((r) => r.rps)).toFixed(0)} |`);
    console.log(`| p50 latency (ms) | ${median(results.map((r) => r.p50))} |`);
    console.log(`| p99 latency (ms) | ${median(results.map((r) => r.p99))} |`);
    console.log(`| errors + non-2xx | ${results.reduce((s, r) => s + r.errors + r.non2xx, 0)} |`);
    const file = writeResults('bench-predict', {
      connections: Number(values.connections),
      duration_s: Number(values.duration),
      runs: results.length,
      rps: median(results.map((r) => r.rps)),
      p50_ms: median(results.map((r) => r.p50)),
      p99_ms: median(results.map((r) => r.p99)),
      errors: results.reduce((s, r) => s + r.errors + r.non2xx, 0),
      each_run: results,
    });
    console.log(file);
  } finally {
    await service.stop();
  }
}

await main();
