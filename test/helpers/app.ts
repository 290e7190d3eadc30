// Builds the app for tests: silent logs and a throw-away data directory removed on close.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/infra/config.js';

const made = new Set<string>();
// Every temporary directory a test file made is removed when its worker process exits, passed or failed.
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'svc-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/**
 * Config from defaults and config/*.yaml only: the developer's shell and .env do not leak into tests. Load shedding is
 * off unless a test sets MAX_EVENT_LOOP_DELAY_MS: on a loaded machine a slow step (opening PGlite, loading a model)
 * lags the event loop past its limit, and the next request, whatever it tests, would get 503.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig({ env: {}, dotenvFile: null, overrides: { DATA_DIR: tempDir(), MAX_EVENT_LOOP_DELAY_MS: 0, ...overrides } });
}

export async function makeApp(overrides: Partial<Config> = {}, opts: Omit<BuildOptions, 'config'> = {}) {
  const config = testConfig(overrides);
  // A data directory the test chose itself outlives the app (persistence tests reopen it).
  const cleanup = async (app: FastifyInstance) => {
    if (!overrides.DATA_DIR) app.addHook('onClose', async () => rmSync(config.DATA_DIR, { recursive: true, force: true }));
  };
  return buildApp({ config, logger: false, ...opts, plugins: [...(opts.plugins ?? []), cleanup] });
}
