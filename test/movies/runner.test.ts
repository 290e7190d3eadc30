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

  it('records a failed run with its error', async () => {
    h.fake.fault('catalog', (r) => r.path === '/discover/movie', { status: 401, body: '{"status_code":7}' });
    const outcome = await h.ctx.runner.run('test', params);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/401/);
    expect((await h.ctx.runner.runs(1))[0]!.errors).toEqual([{ message: expect.stringMatching(/authentication/) }]);
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
      { DATA_DIR: h.config.DATA_DIR, CATALOG_BASE_URL: h.fake.catalogUrl, RATINGS_BASE_URL: h.fake.ratingsUrl, COLLECTION_CRON: '0 3 * * *' },
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
});
