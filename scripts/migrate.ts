// npm run migrate: applies migrations/ to DATABASE_URL, or to the embedded PGlite under DATA_DIR. When a service runs on
// the same DATA_DIR it holds the database and migrates it at start-up: this then only reports whether it is current.
import { join } from 'node:path';
import { cliArgs } from '../src/infra/cli-args.js';
import { loadConfig } from '../src/infra/config.js';
import { availableMigrations, migrate, openDb } from '../src/infra/db.js';
import { DirLockedError } from '../src/infra/dir-lock.js';
import { fromRoot } from '../src/infra/paths.js';
import { callService, findRunningService, unreachableMessage } from '../src/infra/running-service.js';

cliArgs(
  {},
  'usage: npm run migrate\nApplies migrations/ to DATABASE_URL or the embedded database under DATA_DIR; with a service running on the same DATA_DIR, reports whether it applied them.',
);

async function main(): Promise<number> {
  const config = loadConfig();
  const found = await findRunningService(config);
  if (found.kind === 'unreachable') {
    console.error(unreachableMessage(config, found));
    return 1;
  }
  if (found.kind === 'running') {
    const res = await callService<{ migrations?: { applied: number[]; available: number[] }; message?: string }>(
      found.url,
      config,
      'GET',
      '/api/collection/status',
    );
    if (res.status !== 200 || !res.body.migrations) {
      console.error(`the service at ${found.url} answered ${res.status}: ${res.body.message ?? 'no migration status'}`);
      return 1;
    }
    const applied = new Set(res.body.migrations.applied);
    const here = availableMigrations().filter((v) => !applied.has(v));
    if (!here.length) {
      console.log(`database is up to date: the running service (pid ${found.owner.pid}) applied every migration at start-up`);
      return 0;
    }
    console.error(
      `the running service (pid ${found.owner.pid}) holds the database and has not applied migration(s) ${here.join(', ')}: ` +
        'restart it (it migrates at start-up), or stop it and run npm run migrate again.',
    );
    return 1;
  }
  let db;
  try {
    db = await openDb({ ...(config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : {}), dataDir: join(fromRoot(config.DATA_DIR), 'pglite') });
  } catch (err) {
    if (!(err instanceof DirLockedError)) throw err;
    console.error(`${err.message}: wait for it to finish, then run this command again.`);
    return 1;
  }
  try {
    const applied = await migrate(db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    return 0;
  } finally {
    await db.close();
  }
}

process.exitCode = await main();
