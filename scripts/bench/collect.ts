// npm run bench:collect: request rate against a fake catalog with 50 ms latency, and upserting 10,000 movies.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import pg from 'pg';
import { createMoviesContext } from '../../src/movies/context.js';
import { FakeApis } from '../../test/helpers/fake-movie-apis.js';
import { testConfig } from '../../test/helpers/app.js';
import { median } from './lib.js';
import { writeResults } from '../lib/results.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, requests: { type: 'string', default: '100' } } });
const runs = Number(values.runs);
const N = Number(values.requests);
const log = pino({ level: 'silent' });

async function rateRun(service: 'catalog' | 'ratings') {
  const fake = new FakeApis();
  fake.latencyMs = 50;
  await fake.start();
  const movies = Array.from({ length: N }, (_, i) => ({ id: i + 1, title: `M${i}`, release_date: '2020-01-01', imdb_id: `tt${1000000 + i}` }));
  fake.add(...movies);
  const config = testConfig({ CATALOG_BASE_URL: fake.catalogUrl, RATINGS_BASE_URL: fake.ratingsUrl });
  const ctx = await createMoviesContext(config, log);
  try {
    const rps = service === 'catalog' ? ctx.settings.catalog.requests_per_second : ctx.settings.ratings.requests_per_second;
    if (service === 'catalog') await Promise.all(movies.map((m) => ctx.catalog.details(m.id)));
    else await Promise.all(movies.map((m) => ctx.ratings.byImdbId(m.imdb_id)));
    const times = fake.requests[service].map((r) => r.at).sort((a, b) => a - b);
    const burst = Math.floor(rps);
    // Steady state: after the bucket's initial burst.
    const steady = (times.length - 1 - burst) / ((times.at(-1)! - times[burst]!) / 1000);
    let maxWindow = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= 1000) j++;
      maxWindow = Math.max(maxWindow, i - j + 1);
    }
    return { rps, steady, maxWindow };
  } finally {
    await ctx.close();
    await fake.stop();
  }
}

async function upsertRun(databaseUrl?: string) {
  const schema = `bench_${Date.now()}`;
  const ctx = await createMoviesContext(testConfig(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), log, databaseUrl ? { schema } : {});
  const movies = Array.from({ length: 10_000 }, (_, i) => ({ tmdb_id: i + 1, title: `Movie ${i}`, release_date: '2015-05-05' }));
  try {
    let t = performance.now();
    await ctx.repo.upsertDiscovered(movies);
    const insert = performance.now() - t;
    t = performance.now();
    await ctx.repo.upsertDiscovered(movies.map((m) => ({ ...m, title: `${m.title} (restored)` })));
    const update = performance.now() - t;
    return { insert, update };
  } finally {
    await ctx.close();
    if (databaseUrl) {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    }
  }
}

const rows: string[] = [];
const summary: Record<string, unknown> = {};
for (const service of ['catalog', 'ratings'] as const) {
  const results = [];
  for (let i = 0; i < runs; i++) {
    const r = await rateRun(service);
    results.push(r);
    console.log(
      `${service} run ${i + 1}: limit ${r.rps}/s, steady ${r.steady.toFixed(3)}/s (${((r.steady / r.rps) * 100).toFixed(1)}%), most in any 1 s window ${r.maxWindow}`,
    );
  }
  const s = median(results.map((r) => r.steady));
  summary[`${service}_rate`] = { requests: N, limit_per_s: results[0]!.rps, steady_per_s: s, max_in_1s: Math.max(...results.map((r) => r.maxWindow)) };
  rows.push(
    `| ${service} rate, ${N} requests, 50 ms latency | limit ${results[0]!.rps}/s | ${s.toFixed(3)}/s (${((s / results[0]!.rps) * 100).toFixed(1)}% of limit; max ${Math.max(...results.map((r) => r.maxWindow))} in any 1 s) |`,
  );
}
const backends: [string, string | undefined][] = [
  ['PGlite', undefined],
  ...(process.env.DATABASE_URL ? [['PostgreSQL', process.env.DATABASE_URL] as [string, string]] : []),
];
for (const [name, url] of backends) {
  const results = [];
  for (let i = 0; i < runs; i++) {
    const r = await upsertRun(url);
    results.push(r);
    console.log(`${name} upsert run ${i + 1}: insert ${r.insert.toFixed(0)} ms, update ${r.update.toFixed(0)} ms`);
  }
  summary[`upsert_10000_${name.toLowerCase()}_ms`] = { insert: median(results.map((r) => r.insert)), update: median(results.map((r) => r.update)) };
  rows.push(
    `| upsert 10,000 movies on ${name} | target ${name === 'PGlite' ? '3' : '1'} s | insert ${median(results.map((r) => r.insert)).toFixed(0)} ms, update ${median(results.map((r) => r.update)).toFixed(0)} ms |`,
  );
}
console.log(`\n| measure | target | median of ${runs} runs |\n|---|---|---|\n${rows.join('\n')}`);
console.log(writeResults('bench-collect', { runs, ...summary }));
