// Entry point: read config, build the app, listen, and close with grace on SIGTERM/SIGINT.
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './infra/config.js';

async function main() {
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
  const app = await buildApp({ config });

  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    app.log.info('closed');
  });

  await app.listen({ port: config.PORT, host: config.HOST });
  // The collection database opens (and migrates) after the port is up: PGlite's first start takes seconds.
  app.movies.start().catch((err: unknown) => app.log.error({ err }, 'movie collection unavailable'));
  app.rag.start().catch((err: unknown) => app.log.error({ err }, 'document search unavailable'));
}

main().catch((err: unknown) => {
  process.stderr.write(`start-up failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
