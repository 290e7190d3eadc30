// npm run models:pull [-- --preset hub]: downloads the configured Hub models (or the documented production set)
// into MODEL_CACHE_DIR, with a progress bar per file, so that the service can then start without the Hub.
import cliProgress from 'cli-progress';
import { cliArgs } from '../infra/cli-args.js';
import { ConfigError, loadConfig } from '../infra/config.js';
import { hubSettings } from './hub.js';
import { PRESETS, type PresetName, ROLE_VARIABLES, pullModels, pullTargets } from './pull.js';

const values = cliArgs(
  { preset: { type: 'string' } },
  [
    'usage: npm run models:pull [-- --preset hub]',
    'Downloads Hub models into the model cache, so that the service starts without the network.',
    '  (no option)    the Hub ids among SENTIMENT_MODEL, EMOTION_MODEL, EMBEDDING_MODEL, RERANK_MODEL, READER_MODEL',
    '  --preset hub   the larger Hub models documented for production (docs/production.md), whatever is configured',
    '  --help         this text',
  ].join('\n'),
);
if (values.preset !== undefined && !(values.preset in PRESETS)) {
  console.error(`--preset must be one of: ${Object.keys(PRESETS).join(', ')} (got "${values.preset}")`);
  process.exit(2);
}

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(78);
}
const hub = hubSettings(config);
const targets = pullTargets(config, values.preset as PresetName | undefined);
console.log(`Hub: ${hub.endpoint}\nCache: ${hub.cacheDir}`);

const bars = new cliProgress.MultiBar(
  { format: ' {role} {file} |{bar}| {percentage}% of {size}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 5000, clearOnComplete: false },
  cliProgress.Presets.shades_classic,
);
const perFile = new Map<string, cliProgress.SingleBar>();
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const results = await pullModels(targets, hub, (role, info) => {
  if (info.status !== 'progress') return;
  const key = `${info.name}/${info.file}`;
  let bar = perFile.get(key);
  if (!bar) {
    bar = bars.create(Math.max(info.total, 1), 0, { role: role.padEnd(9), file: `${info.name}/${info.file}`, size: mb(info.total) });
    perFile.set(key, bar);
  }
  bar.update(info.loaded);
});
bars.stop();

console.table(
  results.map((r) => ({ variable: ROLE_VARIABLES[r.role], model: r.id, status: r.status, seconds: r.ms / 1000, ...(r.error ? { error: r.error } : {}) })),
);
const failed = results.filter((r) => r.status === 'failed');
if (values.preset) {
  console.log('\nServe them with these settings (environment or .env):');
  for (const { role, id } of targets) console.log(`${ROLE_VARIABLES[role]}=${id}`);
}
process.exit(failed.length ? 1 : 0);
