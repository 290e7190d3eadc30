// npm run bench:model-loading: how long loading a text model takes, and what it adds to the process, along the three
// paths the service has: a local directory, a Hub id downloaded into an empty cache (from the fake Hub on this
// machine, so the network is not in the figure), and a Hub id read from the cache with the Hub down. Each load
// runs in a fresh process (transformers.js remembers configurations within one); medians over RUNS loads.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import cliProgress from 'cli-progress';
import { FakeHub } from '../../test/helpers/fake-hub.js';
import { tempDir } from '../../test/helpers/app.js';
import { fromRoot } from '../../src/infra/paths.js';
import { DEFAULT_TEXT_MODELS, loadClassifier, loadEmbedder } from '../../src/text/models.js';
import { writeResults } from '../lib/results.js';
import { percentile } from './lib.js';

const RUNS = 5;
const MODELS = [
  { role: 'sentiment', dir: DEFAULT_TEXT_MODELS.sentiment, hubId: 'bench-org/sentiment-compact', kind: 'classifier' },
  { role: 'emotion', dir: DEFAULT_TEXT_MODELS.emotion, hubId: 'bench-org/emotion-compact', kind: 'classifier' },
  { role: 'embedder', dir: DEFAULT_TEXT_MODELS.embedder, hubId: 'bench-org/embedder-compact', kind: 'embedder' },
] as const;

interface Sample {
  ms: number;
  rssMb: number;
}

const { values } = parseArgs({ options: { child: { type: 'string' }, endpoint: { type: 'string' }, cache: { type: 'string' }, kind: { type: 'string' } } });

/** In the child: one load, timed, and the resident memory it added, as one JSON line. */
async function child(model: string, kind: string) {
  const hub = { endpoint: values.endpoint ?? 'http://127.0.0.1:9', cacheDir: values.cache ?? tempDir('unused-cache-') };
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const loaded = kind === 'embedder' ? await loadEmbedder(model, { hub }) : await loadClassifier(model, { hub });
  const ms = performance.now() - t0;
  // One inference, so that the figure includes what the first request would find.
  await loaded('The quarterly results were better than expected.');
  process.stdout.write(`${JSON.stringify({ ms, rssMb: (process.memoryUsage().rss - rss0) / 2 ** 20 })}\n`);
}

/** Asynchronous: the fake Hub the child downloads from runs in this process. */
async function run(args: string[]): Promise<Sample> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...args], { encoding: 'utf8' });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Sample;
}

const median = (xs: Sample[], key: keyof Sample) =>
  Math.round(
    percentile(
      xs.map((x) => x[key]),
      0.5,
    ) * 10,
  ) / 10;
const bytes = (dir: string) =>
  ['onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json', 'config.json'].reduce((n, f) => n + statSync(fromRoot(join(dir, f))).size, 0);

async function main() {
  const hub = new FakeHub();
  for (const m of MODELS) hub.publish(m.hubId, m.dir);
  await hub.start();
  const bar = new cliProgress.SingleBar(
    { format: ' loading |{bar}| {value}/{total} loads  {what}', noTTYOutput: true, notTTYSchedule: 5000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(MODELS.length * RUNS * 3, 0, { what: '' });
  const results = [];
  for (const m of MODELS) {
    const local: Sample[] = [];
    const cold: Sample[] = [];
    const warm: Sample[] = [];
    let cache = '';
    for (let i = 0; i < RUNS; i++) {
      local.push(await run(['--child', m.dir, '--kind', m.kind]));
      bar.increment({ what: `${m.role} local` });
      cache = tempDir('bench-cache-');
      cold.push(await run(['--child', m.hubId, '--kind', m.kind, '--endpoint', hub.url, '--cache', cache]));
      bar.increment({ what: `${m.role} Hub, empty cache` });
    }
    await hub.stop();
    for (let i = 0; i < RUNS; i++) {
      warm.push(await run(['--child', m.hubId, '--kind', m.kind, '--endpoint', hub.url, '--cache', cache]));
      bar.increment({ what: `${m.role} cache, Hub down` });
    }
    await hub.start();
    results.push({
      role: m.role,
      model: m.dir,
      bytes: bytes(m.dir),
      load_ms_median: { local_directory: median(local, 'ms'), hub_empty_cache: median(cold, 'ms'), cache_hub_down: median(warm, 'ms') },
      rss_added_mb_median: { local_directory: median(local, 'rssMb'), hub_empty_cache: median(cold, 'rssMb'), cache_hub_down: median(warm, 'rssMb') },
    });
  }
  bar.stop();
  await hub.stop();
  console.table(results.map((r) => ({ role: r.role, MB: (r.bytes / 1e6).toFixed(1), ...r.load_ms_median })));
  const file = writeResults('model-loading', {
    runs: RUNS,
    method: 'one load per fresh Node process (load time around the loader call; RSS added by load plus one short inference); fake Hub on localhost',
    models: results,
  });
  console.log(`wrote ${file}`);
}

if (values.child) await child(values.child, values.kind ?? 'classifier');
else await main();
