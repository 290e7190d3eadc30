import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMoviesContext } from '../../src/movies/context.js';
import { makeApp } from '../helpers/app.js';
import { BACKENDS, type Harness, movieHarness, movies, silentLog } from '../helpers/movies.js';

const params = { discoverStartYear: 1990, discoverEndYear: 2030, discoverMinVoteCount: 0 };

describe.each(BACKENDS)('collection runs (%s)', (name, url) => {
  let h: Harness;
  beforeAll(async () => {
    h = await movieHarness(url, (s) => ({ ...s, catalog: { ...s.catalog, min_popularity: 0, min_release_year: 1990 } }));
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  it('records each run with its parameters and stats', async () => {
    h.fake.add(...movies(3, 30));
    const outcome = await h.ctx.runner.run('test', params);
    expect(outcome).toMatchObject({ status: 'succeeded', run_id: 1, stats: { discovered: 3, catalog_updated: 3 } });
    const [run] = await h.ctx.runner.runs(5);
    expect(run).toMatchObject({ run_id: 1, status: 'succeeded', trigger: 'test', parameters: params, stats: { discovered: 3 } });
    expect(run!.finished_at).not.toBeNull();
  });

  it('lets one of two concurrent runs proceed; the other is skipped and recorded', async () => {
    h.fake.add(...movies(10, 30));
    h.fake.latencyMs = 30;
    // On PostgreSQL the second run comes from a second pool, as another process would.
    const other = name === 'postgres' ? await createMoviesContext(h.config, silentLog, { schema: h.schema!, now: () => h.clock.now }) : h.ctx;
    try {
      const [a, b] = await Promise.all([h.ctx.runner.run('test', params), other.runner.run('test', params)]);
      expect([a.status, b.status].sort()).toEqual(['skipped', 'succeeded']);
      const statuses = (await h.ctx.runner.runs(5)).map((r) => r.status).sort();
      expect(statuses).toEqual(['skipped', 'succeeded']);
    } finally {
      h.fake.latencyMs = 0;
      if (other !== h.ctx) await other.close();
    }
  });

  it('marks a run left "running" by a dead process as abandoned', async () => {
    await h.ctx.db.query(`INSERT INTO collection_runs (status, trigger) VALUES ('running', 'cli')`);
    await h.ctx.runner.run('test', { ...params, refreshOnly: true });
    const runs = await h.ctx.runner.runs(5);
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'abandoned']);
  });

  it('records a run whose discovery failed as partial, with the reason first among its errors', async () => {
    h.fake.fault('catalog', (r) => r.path === '/discover/movie', { status: 401, body: '{"status_code":7}' });
    const outcome = await h.ctx.runner.run('test', params);
    expect(outcome.status).toBe('partial');
    expect(outcome.error).toMatch(/discovery failed: .*401/);
    expect((await h.ctx.runner.runs(1))[0]!).toMatchObject({
      status: 'partial',
      errors: [{ step: 'discover', message: expect.stringMatching(/authentication/) }],
    });
  });

  it('records a failed run with its error when the run itself breaks', async () => {
    h.fake.add(...movies(2, 30));
    const outcome = await h.ctx.runner.run('test', params, () => {
      throw new Error('progress reporter broke');
    });
    expect(outcome).toMatchObject({ status: 'failed', error: 'progress reporter broke' });
    expect((await h.ctx.runner.runs(1))[0]!).toMatchObject({ status: 'failed', errors: [{ message: 'progress reporter broke' }] });
  });
});

describe('operator endpoints', () => {
  let h: Harness;
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    h = await movieHarness(undefined, (s) => ({ ...s, catalog: { ...s.catalog, min_popularity: 0, min_release_year: 1990 } }));
    h.fake.add(...movies(4, 30), ...movies(2, 1000, 100));
    await h.ctx.runner.run('test', params);
    await h.ctx.close();
    app = await makeApp(
      {
        DATA_DIR: h.config.DATA_DIR,
        CATALOG_BASE_URL: h.fake.catalogUrl,
        RATINGS_BASE_URL: h.fake.ratingsUrl,
        CATALOG_API_KEY: 'catalog-secret',
        RATINGS_API_KEY: 'ratings-secret',
        COLLECTION_CRON: '0 3 * * *',
      },
      { movies: { now: () => h.clock.now } },
    );
    await app.movies.start();
  });
  afterAll(async () => {
    await app.close();
    await h.fake.stop();
  });

  it('GET /api/collection/status: schedule, last run, quota left, counts per category', async () => {
    const res = await app.inject({ url: '/api/collection/status' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      database: 'pglite',
      schedule: { cron: '0 3 * * *', next_run: expect.stringMatching(/T03:00:00/) },
      last_run: { status: 'succeeded', stats: { discovered: 6 } },
      quota: { catalog: { daily_limit: 40000 }, ratings: { daily_limit: 1000 } },
    });
    expect(body.movies.total).toBe(6);
    expect(body.movies.recent + body.movies.established + body.movies.mature + body.movies.archived).toBe(6);
  });

  it('GET /api/collection/runs lists runs newest first and validates its limit', async () => {
    const res = await app.inject({ url: '/api/collection/runs?limit=5' });
    expect(res.json().runs[0]).toMatchObject({ run_id: 1, status: 'succeeded' });
    expect((await app.inject({ url: '/api/collection/runs?limit=0' })).statusCode).toBe(400);
  });

  it('POST /api/collection/run starts a run at once (202), shows its progress while it runs, refuses a second (409)', async () => {
    // New movies, so that the run has catalog and ratings work to show progress on.
    h.fake.add(...movies(5, 30, 500, h.clock.now));
    h.fake.latencyMs = 200;
    try {
      const started = await app.inject({ method: 'POST', url: '/api/collection/run', payload: { start_year: 1990, end_year: 2030, min_vote_count: 0 } });
      expect(started.statusCode).toBe(202);
      const { run_id, url } = started.json();
      expect(url).toBe(`/api/collection/runs/${run_id}`);
      const second = await app.inject({ method: 'POST', url: '/api/collection/run', payload: {} });
      expect(second.statusCode).toBe(409);
      expect(second.json()).toMatchObject({ error: 'Conflict', details: { run_id } });
      let run = (await app.inject({ url })).json();
      const phases = new Set<string>();
      while (run.status === 'running') {
        for (const phase of Object.keys(run.progress ?? {})) phases.add(phase);
        await new Promise((r) => setTimeout(r, 20));
        run = (await app.inject({ url })).json();
      }
      expect(run).toMatchObject({ run_id, status: 'succeeded', trigger: 'api', stats: { discovered: 11, catalog_updated: 5 } });
      expect(run.progress).toBeUndefined();
      expect(phases.has('catalog')).toBe(true);
    } finally {
      h.fake.latencyMs = 0;
    }
  });

  it('POST /api/collection/run validates its body; unknown runs and movies are 404', async () => {
    const bad = await app.inject({ method: 'POST', url: '/api/collection/run', payload: { start_year: 2024, end_year: 2020 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.errors[0].loc).toEqual(['start_year']);
    const unknown = await app.inject({ method: 'POST', url: '/api/collection/run', payload: { years: 3 } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details.errors[0]).toMatchObject({ loc: ['years'], type: 'unrecognized_keys' });
    expect((await app.inject({ url: '/api/collection/runs/9999' })).statusCode).toBe(404);
    for (const id of ['..%2F..%2Fetc%2Fpasswd', 'abc', '0', '1.5']) {
      const odd = await app.inject({ url: `/api/collection/runs/${id}` });
      expect(odd.statusCode).toBe(400);
      expect(odd.json().details.errors[0]).toMatchObject({ loc: ['params', 'run_id'], msg: 'must be a whole number from 1 to 2147483647' });
    }
    expect((await app.inject({ method: 'POST', url: '/api/collection/movies/424242/unfreeze', payload: {} })).statusCode).toBe(404);
    const known = await app.inject({ method: 'POST', url: '/api/collection/movies/1/unfreeze', payload: {} });
    expect(known.json()).toEqual({ tmdb_id: 1, unfrozen: true });
  });

  it('GET /api/collection/plan is a dry run of the next refresh', async () => {
    const before = (await app.inject({ url: '/api/collection/runs' })).json().runs.length;
    const res = await app.inject({ url: '/api/collection/plan?include_frozen=true&limit=3' });
    expect(res.statusCode).toBe(200);
    const plan = res.json();
    expect(plan.movies).toBeLessThanOrEqual(3);
    expect(plan.first.length).toBe(plan.movies);
    // The keys the service lacks for a real run: none here, both are set.
    expect(plan.missing_keys).toEqual([]);
    expect((await app.inject({ url: '/api/collection/runs' })).json().runs.length).toBe(before);
  });
});
