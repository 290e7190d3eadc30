// The service's one database: PostgreSQL when DATABASE_URL is set, else the embedded PGlite under DATA_DIR/pglite
// (locked to this process). Opened and migrated on first use, shared by the domains, closed last.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Db, migrate, openDb } from './db.js';
import { lazy, type Lazy } from './lazy.js';
import { fromRoot } from './paths.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The database, opened and migrated on first call (a failed attempt is tried again on the next). */
    db: Lazy<Db>;
    /** Which database `db` opens: known before it is opened. */
    dbKind: 'postgres' | 'pglite';
  }
}

export interface DatabaseOptions {
  /** Tables live in this schema (tests isolate themselves this way). */
  schema?: string;
}

async function databasePlugin(app: FastifyInstance, opts: DatabaseOptions) {
  const c = app.config;
  const db = lazy(async () => {
    const opened = await openDb({
      ...(c.DATABASE_URL ? { databaseUrl: c.DATABASE_URL } : {}),
      dataDir: join(fromRoot(c.DATA_DIR), 'pglite'),
      owner: 'service',
      ...(opts.schema ? { schema: opts.schema } : {}),
    });
    try {
      const applied = await migrate(opened, opts.schema);
      if (applied.length) app.log.info({ applied, database: opened.kind }, 'migrations applied');
    } catch (err) {
      await opened.close();
      throw err;
    }
    return opened;
  });
  app.decorate('db', db);
  app.decorate('dbKind', c.DATABASE_URL ? 'postgres' : 'pglite');
  app.health.register('database', () => {
    const error = db.error();
    return { ready: db.state() !== 'failed', kind: app.dbKind, state: db.state(), ...(error ? { error } : {}) };
  });
  // Registered before the domains, so it runs after theirs (onClose hooks run last-registered first).
  app.addHook('onClose', async () => {
    await (await db.current()?.catch(() => null))?.close();
  });
}

export default fp(databasePlugin, { name: 'database', dependencies: ['health'] });
