// Entry point: read config, claim the data directory, build the app, listen, and close with grace on SIGTERM/SIGINT.
import { join } from 'node:path';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, ensureDataDirs, loadConfig } from './infra/config.js';
import { DirLock, DirLockedError } from './infra/dir-lock.js';
import { operatorMode } from './infra/operator-access.js';
import { fromRoot } from './infra/paths.js';
import { applyMemoryFlags } from './infra/v8-memory.js';

/** The signals that ask the service to stop. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** A stop signal repeated within this time is the same request delivered twice (see main). */
const REPEAT_MS = 1000;

async function main() {
  applyMemoryFlags();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  // One service per data directory. The lock also tells the command-line tools where this service answers, so that
  // they ask it to do their work instead of opening its database and vector store beside it.
  let serviceLock: DirLock;
  try {
    serviceLock = await DirLock.acquire(join(ensureDataDirs(config).dataDir, 'service'), 'service');
  } catch (err) {
    if (err instanceof DirLockedError) {
      const where = err.owner.url ? ` at ${err.owner.url}` : '';
      process.stderr.write(
        `Another service (pid ${err.owner.pid}${where}) already runs on DATA_DIR=${config.DATA_DIR}: stop it, or give this one another DATA_DIR.\n`,
      );
      process.exit(75); // EX_TEMPFAIL
    }
    throw err;
  }
  const app = await buildApp({ config });
  if (operatorMode(config) === 'closed')
    app.log.warn(
      'TRUST_PROXY is set but ADMIN_TOKEN is not: the operator routes (indexing, collection runs, metrics) are closed to every client. ' +
        'Behind a proxy every client can look local, so set ADMIN_TOKEN to open them.',
    );

  // SIGTERM and SIGINT are handled here rather than by close-with-grace: a service started by npm and stopped by
  // signalling its whole process group (systemd's default, `kill -- -<pgid>`) gets each signal twice, from the sender
  // and from npm passing it on, and close-with-grace takes the repeat for an impatient second signal and exits at once,
  // cutting off the requests in flight. The same signal again within a second is that repeat; later, it is a second
  // signal, and the process exits.
  let stopping: { signal: string; at: number } | null = null;
  const grace = closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS, skip: [...STOP_SIGNALS] }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal: stopping?.signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    serviceLock.release();
    app.log.info('closed');
  });
  for (const signal of STOP_SIGNALS)
    process.on(signal, () => {
      if (!stopping) {
        stopping = { signal, at: Date.now() };
        void grace.close();
      } else if (signal !== stopping.signal || Date.now() - stopping.at > REPEAT_MS) {
        app.log.error(`second ${signal}, exiting`);
        process.exit(1);
      }
    });

  await app.listen({ port: config.PORT, host: config.HOST });
  const { port } = app.server.address() as { port: number };
  const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  serviceLock.update({ url: `http://${host}:${port}`, docsDir: fromRoot(config.DOCS_DIR) });
  // The database and the document index open after the port is up: PGlite's first start takes seconds.
  app.movies.start().catch((err: unknown) => app.log.error({ err }, 'movie collection unavailable'));
  app.rag.start().catch((err: unknown) => app.log.error({ err }, 'document search unavailable'));
}

main().catch((err: unknown) => {
  process.stderr.write(`start-up failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
