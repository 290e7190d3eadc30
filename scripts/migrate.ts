// npm run migrate: applies migrations/ to DATABASE_URL, or to the embedded PGlite under DATA_DIR.
import { join } from 'node:path';
import { loadConfig } from '../src/infra/config.js';
import { migrate, openDb } from '../src/infra/db.js';
import { fromRoot } from '../src/infra/paths.js';

const config = loadConfig();
const db = await openDb({
  ...(config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : {}),
  dataDir: join(fromRoot(config.DATA_DIR), 'pglite'),
});
try {
  const applied = await migrate(db);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.close();
}
