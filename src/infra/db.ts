// One small SQL interface over PostgreSQL (pg) or an embedded PGlite directory, with the same migrations.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import Postgrator from 'postgrator';
import { fromRoot } from './paths.js';

export interface QueryResult<T> {
  rows: T[];
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs a script of several statements (migrations). */
  exec(sql: string): Promise<void>;
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs fn on one connection holding a session-level advisory lock; null when another session holds it. */
  withAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<T | null>;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl?: string;
  /** PGlite data directory (used when there is no database URL). */
  dataDir: string;
  /** Tables live in this schema (tests isolate themselves this way). */
  schema?: string;
}

const ident = (s: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(s)) throw new Error(`invalid schema name ${s}`);
  return s;
};

class PgDb implements Db {
  readonly kind = 'postgres' as const;
  constructor(private readonly pool: pg.Pool) {}

  async query<T>(sql: string, params: unknown[] = []) {
    const r = await this.pool.query(sql, params);
    return { rows: r.rows as T[] };
  }

  async exec(sql: string) {
    await this.pool.query(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn({ query: async <R>(sql: string, params: unknown[] = []) => ({ rows: (await client.query(sql, params)).rows as R[] }) });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async withAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<T | null> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
      if (!rows[0]?.locked) return null;
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [key]);
      }
    } finally {
      client.release();
    }
  }

  close() {
    return this.pool.end();
  }
}

/**
 * PGlite is one session in this process (its directory cannot be opened by two processes), so an
 * in-process flag gives the same one-at-a-time guarantee the advisory lock gives across processes.
 */
class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  private locked = new Set<number>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly lite: PGlite) {}

  query<T>(sql: string, params: unknown[] = []) {
    return this.lite.query<T>(sql, params).then((r) => ({ rows: r.rows }));
  }

  async exec(sql: string) {
    await this.lite.exec(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite has one connection: transactions must not interleave, so they queue.
    const run = this.queue.then(() =>
      this.lite.transaction((tx) => fn({ query: async <R>(sql: string, params: unknown[] = []) => ({ rows: (await tx.query<R>(sql, params)).rows }) })),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  async withAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<T | null> {
    if (this.locked.has(key)) return null;
    this.locked.add(key);
    try {
      return await fn();
    } finally {
      this.locked.delete(key);
    }
  }

  close() {
    return this.lite.close();
  }
}

/**
 * The embedded database's memory settings. PostgreSQL's defaults (128 MB of shared buffers, 64 MB of maintenance
 * memory) are sized for a server; the movie tables are small, and these keep PGlite's share of the service near
 * 130 MB instead of 260 MB.
 */
export const PGLITE_CONF = ['shared_buffers=8MB', 'work_mem=2MB', 'maintenance_work_mem=16MB', 'wal_buffers=256kB', 'temp_buffers=2MB'];

/**
 * Creates a new PGlite data directory (initdb) in a short-lived child process: initdb peaks near 700 MB, and a
 * process that ran it stays large after it (freed WebAssembly memory fragments the heap), so the service only ever
 * opens a directory that already exists.
 */
async function initPglite(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const url = import.meta.resolve('@electric-sql/pglite');
  const code = `const { PGlite } = await import(${JSON.stringify(url)});
const db = new PGlite(process.argv[1], { postgresqlconf: JSON.parse(process.argv[2]) });
await db.waitReady;
await db.close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code, dataDir, JSON.stringify(PGLITE_CONF)], { timeout: 120_000 });
}

export async function openDb(opts: DbOptions): Promise<Db> {
  const schema = opts.schema ? ident(opts.schema) : undefined;
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    return new PgDb(pool);
  }
  mkdirSync(opts.dataDir, { recursive: true });
  await initPglite(opts.dataDir);
  const lite = new PGlite(opts.dataDir, { postgresqlconf: PGLITE_CONF });
  await lite.waitReady;
  if (schema) await lite.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
  return new PgliteDb(lite);
}

export async function migrate(db: Db, schema?: string): Promise<string[]> {
  // Postgrator looks its version table up by catalog (database) name, so it needs the real one.
  const { rows } = await db.query<{ name: string; schema: string }>('SELECT current_database() AS name, current_schema() AS schema');
  const postgrator = new Postgrator({
    migrationPattern: join(fromRoot('migrations'), '*'),
    driver: 'pg',
    database: rows[0]!.name,
    schemaTable: 'schemaversion',
    currentSchema: schema ?? rows[0]!.schema,
    execQuery: (sql: string) => db.query(sql),
    execSqlScript: (sql: string) => db.exec(sql),
  });
  const applied = await postgrator.migrate();
  return applied.map((m) => m.name);
}
