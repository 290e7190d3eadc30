// One small SQL interface over PostgreSQL (pg) or an embedded PGlite directory, with the same migrations.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import Postgrator from 'postgrator';
import { DirLock, currentCommand } from './dir-lock.js';
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
  /**
   * Runs fn while holding a session-level advisory lock on `key` (namespaced by the schema, so that two schemas of one
   * server do not exclude each other): null when another session holds it, or, with `wait`, after waiting for it.
   */
  withAdvisoryLock<T>(key: number, fn: () => Promise<T>, opts?: { wait?: boolean }): Promise<T | null>;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl?: string;
  /** PGlite data directory (used when there is no database URL); the process takes its lock (`<dataDir>.lock`). */
  dataDir: string;
  /** Who opens it, recorded in the lock for whoever finds the directory in use. */
  owner?: string;
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

  async withAdvisoryLock<T>(key: number, fn: () => Promise<T>, opts: { wait?: boolean } = {}): Promise<T | null> {
    const client = await this.pool.connect();
    try {
      if (opts.wait) {
        await client.query('SELECT pg_advisory_lock($1, hashtext(current_schema()))', [key]);
      } else {
        const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS locked', [key]);
        if (!rows[0]?.locked) return null;
      }
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1, hashtext(current_schema()))', [key]);
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
  private locked = new Map<number, Promise<unknown>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly lite: PGlite,
    private readonly lock: DirLock,
  ) {}

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

  async withAdvisoryLock<T>(key: number, fn: () => Promise<T>, opts: { wait?: boolean } = {}): Promise<T | null> {
    while (this.locked.has(key)) {
      if (!opts.wait) return null;
      await this.locked.get(key)!.catch(() => undefined);
    }
    const run = fn();
    this.locked.set(key, run);
    try {
      return await run;
    } finally {
      this.locked.delete(key);
    }
  }

  /** Closes the database and releases its directory; closing twice is harmless. */
  async close() {
    if (this.lite.closed) return;
    try {
      await this.lite.close();
    } finally {
      this.lock.release();
    }
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
  // Two processes on one PGlite directory corrupt it: the lock comes first, and stays until close.
  const lock = await DirLock.acquire(opts.dataDir, opts.owner ?? currentCommand());
  try {
    await initPglite(opts.dataDir);
    const lite = new PGlite(opts.dataDir, { postgresqlconf: PGLITE_CONF });
    await lite.waitReady;
    if (schema) await lite.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
    return new PgliteDb(lite, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Advisory lock key of the migrations ("MIGR" in ASCII). */
const MIGRATION_LOCK_KEY = 0x4d494752;

/**
 * Applies the pending migrations. On PostgreSQL this holds an advisory lock: replicas starting together migrate one
 * after another, and the later ones find nothing left to do.
 */
export async function migrate(db: Db, schema?: string): Promise<string[]> {
  return (await db.withAdvisoryLock(MIGRATION_LOCK_KEY, () => migrateUnlocked(db, schema), { wait: true }))!;
}

/** The versions of the migration files. */
export function availableMigrations(): number[] {
  return readdirSync(fromRoot('migrations'))
    .map((f) => /^(\d+)\.do\./.exec(f)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The migration files' versions, and those the database has applied. */
export async function migrationStatus(db: Db): Promise<{ available: number[]; applied: number[] }> {
  const available = availableMigrations();
  let applied: number[] = [];
  try {
    const { rows } = await db.query<{ version: string | number }>('SELECT version FROM schemaversion WHERE version > 0 ORDER BY version');
    applied = rows.map((r) => Number(r.version));
  } catch {
    // no version table yet: nothing applied
  }
  return { available, applied };
}

async function migrateUnlocked(db: Db, schema?: string): Promise<string[]> {
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
