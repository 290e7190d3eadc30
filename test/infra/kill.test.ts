// Real process kills (SIGKILL) in the middle of work: a collection run from the command line, and an index run in the
// service. What is left must be consistent once the work is done again.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../src/infra/db.js';
import { PROJECT_ROOT, fromRoot } from '../../src/infra/paths.js';
import { makeApp, tempDir } from '../helpers/app.js';
import { FakeApis } from '../helpers/fake-movie-apis.js';
import { movies } from '../helpers/movies.js';
import { cleanEnv, runCli, startService, whenReady } from '../helpers/processes.js';

const DATABASE_URL = process.env.DATABASE_URL;
const BACKENDS: [string, string | undefined][] = [['pglite', undefined], ...(DATABASE_URL ? ([['postgres', DATABASE_URL]] as [string, string][]) : [])];

describe.each(BACKENDS)('a collection run killed mid-run (%s)', (_name, databaseUrl) => {
  const fake = new FakeApis();
  const dataDir = tempDir('kill-collect-');
  const schema = `kill_${randomBytes(4).toString('hex')}`;
  let env: Record<string, string>;
  let admin: pg.Client | null = null;

  beforeAll(async () => {
    await fake.start();
    const now = new Date();
    fake.add(...movies(40, 3000, 1, now), ...movies(20, 30, 1000, now));
    // Slow enough that the run is surely under way, and not finished, when it is killed.
    fake.latencyMs = 60;
    // The shipped settings with faster client rates: the test is about the kill, not the rate limits.
    const settings = readFileSync(fromRoot('config/collection.yaml'), 'utf8').replace(/requests_per_second: [\d.]+/g, 'requests_per_second: 40');
    const settingsFile = join(dataDir, 'collection.yaml');
    writeFileSync(settingsFile, settings);
    env = {
      COLLECTION_CONFIG: settingsFile,
      DATA_DIR: dataDir,
      CATALOG_BASE_URL: fake.catalogUrl,
      RATINGS_BASE_URL: fake.ratingsUrl,
      CATALOG_API_KEY: 'k',
      RATINGS_API_KEY: 'k',
    };
    if (databaseUrl) {
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      const url = new URL(databaseUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      env.DATABASE_URL = url.toString();
    }
  });
  afterAll(async () => {
    await fake.stop();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it('is completed by the next run with no duplicates and nothing lost', async () => {
    const args = ['--start-year', '1950', '--end-year', '2100', '--max-pages', '5', '--min-vote-count', '0'];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/movies/cli.ts', ...args], { cwd: PROJECT_ROOT, env: cleanEnv(env), stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    // Killed once the catalog details are being fetched: discovery done, some movies stored, others not.
    while (fake.requests.catalog.filter((r) => r.path.startsWith('/movie/')).length < 15 && child.exitCode === null) await sleep(20);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    await exited;

    fake.latencyMs = 0;
    const again = await runCli('src/movies/cli.ts', args, env);
    expect(again.stderr).not.toMatch(/error|exception/i);
    expect(again.code).toBe(0);
    // It says which database it opened (never the URL itself, which may hold a password).
    expect(again.stdout).toContain(databaseUrl ? 'opens the PostgreSQL database of DATABASE_URL itself' : `opens the embedded database in ${dataDir} itself`);
    if (databaseUrl) expect(again.stdout).not.toContain(databaseUrl);

    let db: Db;
    if (databaseUrl) db = await openDb({ databaseUrl: env.DATABASE_URL!, dataDir });
    else db = await openDb({ dataDir: join(dataDir, 'pglite') });
    try {
      const one = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
      // Every movie once, with its catalog details and its ratings: nothing lost, nothing twice.
      expect(await one('SELECT count(*)::text AS n FROM movies')).toBe(60);
      expect(await one('SELECT count(DISTINCT tmdb_id)::text AS n FROM movies')).toBe(60);
      expect(await one('SELECT count(*)::text AS n FROM catalog_movies')).toBe(60);
      expect(await one('SELECT count(*)::text AS n FROM ratings_movies')).toBe(60);
      expect(await one('SELECT count(*)::text AS n FROM movies WHERE last_catalog_update IS NULL OR last_ratings_update IS NULL')).toBe(0);
      // The killed run is on record as abandoned, the second as succeeded.
      const runs = (await db.query<{ status: string }>('SELECT status FROM collection_runs ORDER BY run_id')).rows.map((r) => r.status);
      expect(runs).toEqual(['abandoned', 'succeeded']);
    } finally {
      await db.close();
    }
  });
});

describe('an index run killed mid-run', () => {
  it('leaves an index that the next start makes consistent with the documents', async () => {
    const docs = tempDir('kill-docs-');
    // Six of the sample collection's documents: enough that a rebuild is killed with documents left to do.
    for (const f of readdirSync(fromRoot('docs/sample-collection'))
      .filter((f) => f.endsWith('.txt'))
      .sort()
      .slice(0, 6)) {
      cpSync(fromRoot(`docs/sample-collection/${f}`), join(docs, f));
    }
    const dataDir = tempDir('kill-index-');
    const env = { DATA_DIR: dataDir, DOCS_DIR: docs };
    const first = await startService(env);
    let second: Awaited<ReturnType<typeof startService>> | undefined;
    try {
      await whenReady(first.url);
      // A full rebuild, killed part-way through.
      void fetch(`${first.url}/rag/index`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"full": true}' }).catch(() => undefined);
      let progress = { done: 0, total: 0 };
      while (progress.done < 3) {
        const stats = (await (await fetch(`${first.url}/rag/stats`)).json()) as { index_progress: { done: number; total: number } | null };
        progress = stats.index_progress ?? progress;
        await sleep(25);
      }
      expect(progress.done).toBeLessThan(progress.total);
      await first.stop('SIGKILL');

      second = await startService(env);
      await whenReady(second.url);
      const after = (await (await fetch(`${second.url}/rag/stats`)).json()) as { documents: number; chunks: number; sentence_vectors: number };

      // The reference: the same documents indexed from scratch, undisturbed.
      const clean = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
      try {
        await (await clean.rag.service()).index({ full: true });
        const reference = (await clean.inject({ url: '/rag/stats' })).json();
        expect(after).toMatchObject({ documents: reference.documents, chunks: reference.chunks, sentence_vectors: reference.sentence_vectors });
        expect(after.documents).toBe(6);
      } finally {
        await clean.close();
      }
    } finally {
      await first.stop('SIGKILL');
      await second?.stop();
    }
    // Two service starts, a killed rebuild and a clean reference index: about 35 s alone, more beside the other tests.
  }, 120_000);
});
