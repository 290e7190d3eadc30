// The service and its command-line tools on one machine: one owner per data directory, the tools going through a
// running service, stale locks of killed processes, and signals to `npm start`.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirLock, type LockOwner, isAlive, lockOwner } from '../../src/infra/dir-lock.js';
import { PROJECT_ROOT, fromRoot } from '../../src/infra/paths.js';
import { tempDir } from '../helpers/app.js';
import { FakeApis } from '../helpers/fake-movie-apis.js';
import { movies } from '../helpers/movies.js';
import { type ServiceProcess, alive, eventually, processesMatching, runCli, startService, whenReady } from '../helpers/processes.js';

const COLLECT = 'src/movies/cli.ts';
const INDEX = 'src/text/rag/cli.ts';
const MIGRATE = 'scripts/migrate.ts';

/** A small document folder: two of the sample addresses. */
function docsFolder(): string {
  const dir = tempDir('docs-');
  for (const f of ['1941_franklin_d_roosevelt_d.txt', '1964_lyndon_b_johnson_d.txt']) cpSync(fromRoot(`docs/sample-collection/${f}`), join(dir, f));
  return dir;
}

// Each test starts one or two services under tsx (the index, Chroma, the answer step): on a loaded 2-core machine
// that takes longer than the suite's default 30 s.
describe('the command-line tools beside a running service', { timeout: 120_000 }, () => {
  const fake = new FakeApis();
  let dataDir: string;
  let docsDir: string;
  let env: Record<string, string>;
  let service: Awaited<ReturnType<typeof startService>>;

  beforeAll(async () => {
    await fake.start();
    fake.add(...movies(5, 30, 1, new Date()), ...movies(3, 3000, 100, new Date()));
    dataDir = tempDir('svc-');
    docsDir = docsFolder();
    env = {
      DATA_DIR: dataDir,
      DOCS_DIR: docsDir,
      CATALOG_BASE_URL: fake.catalogUrl,
      RATINGS_BASE_URL: fake.ratingsUrl,
      CATALOG_API_KEY: 'catalog-secret',
      RATINGS_API_KEY: 'ratings-secret',
    };
    service = await startService(env);
    await whenReady(service.url);
  }, 120_000);
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await fake.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(docsDir, { recursive: true, force: true });
  });

  it('npm run collect: the service does the run once, and its database stays healthy', async () => {
    const cli = await runCli(COLLECT, ['--start-year', '1990', '--end-year', '2030', '--max-pages', '2'], env);
    expect(cli.stderr).not.toMatch(/error|warn|exception/i);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`the work goes through it at ${service.url}`);
    expect(cli.stdout).toMatch(/run 1: succeeded/);
    // The embedded database was never opened by the command: its lock is still the service's.
    expect(lockOwner(join(dataDir, 'pglite.lock'))?.pid).toBe(service.child.pid);

    const runs = (await (await fetch(`${service.url}/api/collection/runs`)).json()) as { runs: { run_id: number; status: string; trigger: string }[] };
    expect(runs.runs).toEqual([expect.objectContaining({ run_id: 1, status: 'succeeded', trigger: 'api' })]);
    const status = (await (await fetch(`${service.url}/api/collection/status`)).json()) as { movies: { total: number } };
    expect(status.movies.total).toBe(8);

    // The database still takes writes: a second run through the service, then a dry run and an unfreeze.
    const again = await runCli(COLLECT, ['--refresh-only'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/run 2: succeeded/);
    // The command's own environment has no API keys; the service, which would do the run, has both: no note on keys.
    const { CATALOG_API_KEY: _catalog, RATINGS_API_KEY: _ratings, ...withoutKeys } = env;
    const dry = await runCli(COLLECT, ['--dry-run', '--include-frozen'], withoutKeys);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/\d+ movies would be refreshed|no movie is due for a refresh/);
    expect(dry.stdout).not.toContain('API_KEY');
    const unfreeze = await runCli(COLLECT, ['--unfreeze', '424242'], env);
    expect(unfreeze.stderr).toContain('no movie with tmdb_id 424242');
    expect(unfreeze.code).toBe(1);
    const after = (await (await fetch(`${service.url}/api/collection/runs`)).json()) as { runs: { status: string }[] };
    expect(after.runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('npm run index: the service indexes a new document once, and keeps serving searches and POST /rag/index', async () => {
    writeFileSync(join(docsDir, 'zz_notes.txt'), 'The quartermaster counted forty-two lanterns in the cellar of the lighthouse.');
    const cli = await runCli(INDEX, [], env);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`it indexes DOCS_DIR=${docsDir}, at ${service.url}`);
    expect(cli.stdout).toMatch(/files added\D+1\b/);
    // The progress bar, when the run lasted long enough to show one, ends with every file done (not at its last poll).
    const lastBar = [...cli.stdout.matchAll(/(\d+)\/(\d+) files/g)].at(-1);
    if (lastBar) expect(lastBar[1]).toBe(lastBar[2]);
    // No second Chroma on the directory: its lock is the service's.
    expect(lockOwner(join(dataDir, 'chroma.lock'))?.pid).toBe(service.child.pid);
    expect(processesMatching(`--path ${join(dataDir, 'chroma')}`).length).toBeLessThanOrEqual(2); // the guard and the server

    const search = await fetch(`${service.url}/rag/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'lanterns in the lighthouse cellar', top_k: 1 }),
    });
    expect(((await search.json()) as { results: { source: string }[] }).results[0]?.source).toBe('zz_notes.txt');
    const index = await fetch(`${service.url}/rag/index`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(index.status).toBe(200);
    expect(await index.json()).toMatchObject({ documents: 3, files_unchanged: 3, files_added: 0 });
  });

  it('npm run index with another DOCS_DIR than the running service: says so and indexes nothing', async () => {
    const other = tempDir('other-docs-');
    try {
      writeFileSync(join(other, 'elsewhere.txt'), 'A document in a folder the service does not index.');
      const before = (await (await fetch(`${service.url}/rag/stats`)).json()) as { documents: number };
      const cli = await runCli(INDEX, [], { ...env, DOCS_DIR: other });
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain(`indexes DOCS_DIR=${docsDir}, not ${other}: nothing was indexed`);
      const after = (await (await fetch(`${service.url}/rag/stats`)).json()) as { documents: number };
      expect(after.documents).toBe(before.documents);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('npm run migrate: reports the running service applied every migration, without opening the database', async () => {
    const cli = await runCli(MIGRATE, [], env);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`the running service (pid ${service.child.pid}) applied every migration`);
  });
});

// Two service starts each: the same longer bound.
describe('a data directory whose owner was killed', { timeout: 120_000 }, () => {
  it('is taken over by the next service, which leaves no Chroma behind when killed', async () => {
    const dataDir = tempDir('killed-');
    const docsDir = docsFolder();
    const env = { DATA_DIR: dataDir, DOCS_DIR: docsDir };
    const started: ServiceProcess[] = [];
    try {
      const first = await startService(env);
      started.push(first);
      await whenReady(first.url);
      const chroma = processesMatching(`--path ${join(dataDir, 'chroma')}`);
      expect(chroma.length).toBeGreaterThan(0);
      await first.stop('SIGKILL');
      // The locks stay behind, naming a dead process; the Chroma server goes with its parent.
      expect(lockOwner(join(dataDir, 'service.lock'))).toBeNull();
      expect(await eventually(() => chroma.every((pid) => !alive(pid)), 5000)).toBe(true);

      const second = await startService(env);
      started.push(second);
      await whenReady(second.url);
      expect(lockOwner(join(dataDir, 'pglite.lock'))?.pid).toBe(second.child.pid);
      expect(lockOwner(join(dataDir, 'chroma.lock'))?.pid).toBe(second.child.pid);
      const stats = (await (await fetch(`${second.url}/rag/stats`)).json()) as { documents: number };
      expect(stats.documents).toBe(2);
      expect(await second.stop()).toBe(0);
    } finally {
      await Promise.all(started.map((s) => s.stop('SIGKILL')));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(docsDir, { recursive: true, force: true });
    }
  });

  it('refuses a second service on the same data directory, naming the first', async () => {
    const dataDir = tempDir('twice-');
    let first: ServiceProcess | undefined;
    try {
      first = await startService({ DATA_DIR: dataDir, RAG_INDEX_ON_START: 'false' });
      const second = await runCli('src/server.ts', [], { DATA_DIR: dataDir });
      expect(second.code).toBe(75);
      expect(second.stderr).toContain(`Another service (pid ${first.child.pid} at ${first.url}) already runs on DATA_DIR=${dataDir}`);
    } finally {
      await first?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the command-line tools without a service', () => {
  it('refuse to open an embedded database another process holds, and say who holds it', async () => {
    const dataDir = tempDir('held-');
    const lock = await DirLock.acquire(join(dataDir, 'pglite'), 'npm run collect');
    try {
      const cli = await runCli(COLLECT, ['--refresh-only'], { DATA_DIR: dataDir, CATALOG_API_KEY: 'k', RATINGS_API_KEY: 'k' });
      expect(cli.code).toBe(1);
      expect(cli.stderr).toContain(`is in use by npm run collect (pid ${process.pid})`);
      expect(cli.stderr).toContain('wait for it to finish');
    } finally {
      lock.release();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('npm run collect without API keys says which variables are missing at once', async () => {
    const dataDir = tempDir('nokeys-');
    try {
      const started = Date.now();
      const cli = await runCli(COLLECT, [], { DATA_DIR: dataDir });
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain('CATALOG_API_KEY and RATINGS_API_KEY are not set');
      expect(cli.stderr).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
      expect(Date.now() - started).toBeLessThan(10_000); // it used to retry for 10 s first
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// A service start and a stop under npm: the same longer bound.
describe('npm start', { timeout: 120_000 }, () => {
  beforeAll(() => {
    // What the prestart script does; built once here so that the test times the service, not the compiler.
    execFileSync('npm', ['run', '-s', 'build'], { cwd: PROJECT_ROOT, stdio: 'ignore' });
  }, 120_000);

  it.each(['SIGTERM', 'SIGINT'] as const)('stops the service and its Chroma server on %s to the npm process, leaving nothing behind', async (signal) => {
    const dataDir = tempDir('npm-start-');
    const docsDir = docsFolder();
    mkdirSync(dataDir, { recursive: true });
    let npm: ServiceProcess | undefined;
    let owner: LockOwner | null = null;
    try {
      npm = await startService({ DATA_DIR: dataDir, DOCS_DIR: docsDir }, ['npm', 'start', '--ignore-scripts', '--silent']);
      await whenReady(npm.url);
      owner = lockOwner(join(dataDir, 'service.lock'));
      const node = owner!.pid;
      expect(node).not.toBe(npm.child.pid);
      const chroma = processesMatching(`--path ${join(dataDir, 'chroma')}`);
      expect(chroma.length).toBeGreaterThan(0);
      const code = await npm.stop(signal);
      expect(code).toBe(0);
      expect(npm.output()).toContain('"msg":"closed"');
      expect(await eventually(() => !alive(node) && chroma.every((pid) => !alive(pid)), 5000)).toBe(true);
      expect(processesMatching(dataDir)).toEqual([]);
    } finally {
      // Whatever happened above, nothing of this test outlives it.
      await npm?.stop('SIGKILL');
      // Only the service itself: once it has exited, its pid may already belong to another process (pids wrap at
      // 32,768 on a busy machine), such as a worker of another test run.
      if (owner && owner.started !== null && isAlive(owner)) process.kill(owner.pid, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(docsDir, { recursive: true, force: true });
    }
  });
});
