// npm run fuzz [-- --per-endpoint 10000 --seed 1]: generated and mutated requests to every JSON operation of the
// service (built in process, with the sample collection indexed). Prints the count of each status per operation and
// writes docs/results/fuzz.json. The target: no response of 500 or above, and the service alive throughout.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { parse } from 'yaml';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/infra/config.js';
import { fromRoot } from '../src/infra/paths.js';
import { fuzz, operations } from './lib/fuzz.js';
import { writeExactMatchCrossEncoder } from './lib/text/exact-match-cross-encoder.js';
import { writeResults } from './lib/results.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { values } = parseArgs({ options: { 'per-endpoint': { type: 'string', default: '10000' }, seed: { type: 'string', default: '1' } } });
const perEndpoint = Number(values['per-endpoint']);
const seed = Number(values.seed);

const dataDir = mkdtempSync(join(tmpdir(), 'fuzz-'));
// The movie APIs point at a closed port: collection runs start and fail in the background, as with a dead network.
const app = await buildApp({
  config: {
    ...loadConfig({ env: {}, dotenvFile: null }),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CATALOG_BASE_URL: 'http://127.0.0.1:9',
    RATINGS_BASE_URL: 'http://127.0.0.1:9',
    CATALOG_API_KEY: 'fuzz',
    RATINGS_API_KEY: 'fuzz',
    // No load shedding: requests injected back to back hold the event loop between real I/O, so the lag it measures is
    // the harness's, and once it sheds load every later answer is a 503 (as the fuzz test and the test apps do).
    MAX_EVENT_LOOP_DELAY_MS: 0,
    // A local cross-encoder: reranked searches work offline instead of answering 503 (model not loadable).
    RERANK_MODEL: writeExactMatchCrossEncoder(dataDir, ['the', 'war', 'people', 'congress', 'nation', 'government']),
  },
});
try {
  await Promise.all([app.movies.start(), app.rag.start()]);
  // Fuzz a service that is ready in every domain: no 503 for a model still loading.
  for (let i = 0; (await app.inject({ url: '/ready' })).statusCode !== 200; i++) {
    if (i > 600) throw new Error('the service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  const ops = operations(parse(readFileSync(fromRoot('static/openapi.yaml'), 'utf8')) as Parameters<typeof operations>[0]);
  const bar = new cliProgress.SingleBar(
    { format: ' fuzz |{bar}| {value}/{total} requests  {op}', noTTYOutput: true, notTTYSchedule: 10_000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(ops.length * perEndpoint, 0, { op: '' });
  let done = 0;
  const report = await fuzz(app, ops, {
    perEndpoint,
    seed,
    progress: (op) => bar.update((done += 100), { op }),
    alive: async () => (await app.inject({ url: '/live' })).statusCode === 200,
  });
  bar.stop();
  const serverErrors = Object.values(report).reduce(
    (n, r) =>
      n +
      Object.entries(r.statuses)
        .filter(([s]) => Number(s) >= 500)
        .reduce((m, [, c]) => m + c, 0),
    0,
  );
  console.log('\n| operation | requests | statuses |\n|---|---|---|');
  for (const [op, r] of Object.entries(report)) {
    const statuses = Object.entries(r.statuses)
      .sort()
      .map(([s, c]) => `${s}: ${c}`)
      .join(', ');
    console.log(`| ${op} | ${r.requests} | ${statuses} |`);
  }
  const file = writeResults('fuzz', { per_endpoint: perEndpoint, seed, responses_500_or_above: serverErrors, operations: report });
  console.log(`\n${serverErrors} responses of 500 or above (target 0); ${file}`);
  for (const [op, r] of Object.entries(report))
    for (const f of r.failures) console.log(`${op} -> ${f.status} (${f.kind}): ${f.url} ${f.contentType ?? ''} ${f.body.slice(0, 200)}`);
  process.exitCode = serverErrors === 0 ? 0 : 1;
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
