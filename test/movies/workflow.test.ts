import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, type Harness, movieHarness, movies } from '../helpers/movies.js';

const DAY = 86_400_000;
const run = (h: Harness, extra = {}) =>
  h.ctx.collector.runFullCollection({ discoverStartYear: 1990, discoverEndYear: 2030, discoverMinVoteCount: 0, ...extra });

describe.each(BACKENDS)('movie collection workflow (%s)', (_name, url) => {
  let h: Harness;
  beforeAll(async () => {
    h = await movieHarness(url, (s) => ({ ...s, catalog: { ...s.catalog, min_popularity: 0, min_release_year: 1990 } }));
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  const row = async (tmdbId: number) => (await h.ctx.repo.get(tmdbId))!;
  const count = async (table: string) => Number((await h.ctx.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`)).rows[0]!.n);

  it('discovers with the spec query parameters and the bearer key, upserting on tmdb_id', async () => {
    h.fake.add(...movies(45, 400));
    const n = await h.ctx.collector.discoverAndStoreMovies({ maxPages: 5, maxMovies: 30, minPopularity: 5, minVoteCount: 50, minReleaseYear: 2000 });
    expect(n).toBe(30);
    expect(await count('movies')).toBe(30);
    const q = h.fake.requests.catalog[0]!;
    expect(q.path).toBe('/discover/movie');
    expect(Object.fromEntries(q.query)).toMatchObject({
      'popularity.gte': '5',
      'vote_count.gte': '50',
      'primary_release_date.gte': '2000-01-01',
      sort_by: 'popularity.desc',
      include_adult: 'false',
      include_video: 'false',
      page: '1',
    });
    expect(q.headers.authorization).toBe('Bearer catalog-secret');
    // Again: no duplicates.
    await h.ctx.collector.discoverAndStoreMovies({ maxPages: 5, maxMovies: null });
    expect(await count('movies')).toBe(45);
  });

  it('runs the full collection: catalog details, then ratings by IMDb id, typed and raw', async () => {
    h.fake.add(...movies(5, 30));
    const stats = await run(h);
    expect(stats).toMatchObject({ discovered: 5, catalog_updated: 5, ratings_updated: 5, frozen: 0, failures: [] });
    const m = await row(1);
    expect(m.imdb_id).toBe('tt1000001');
    expect(m.last_catalog_update).not.toBeNull();
    expect(m.last_ratings_update).not.toBeNull();
    const cat = (await h.ctx.db.query<Record<string, unknown>>('SELECT * FROM catalog_movies WHERE tmdb_id = 1')).rows[0]!;
    expect(cat).toMatchObject({ status: 'Released', runtime: 100, genres: ['Drama'], production_companies: ['Studio One'] });
    expect(Number(cat.budget)).toBe(1_000_000);
    expect((cat.raw as { id: number }).id).toBe(1);
    const rat = (await h.ctx.db.query<Record<string, unknown>>("SELECT * FROM ratings_movies WHERE imdb_id = 'tt1000001'")).rows[0]!;
    expect(rat).toMatchObject({ imdb_rating: 7, imdb_votes: 10000, rotten_tomatoes: 80, metacritic: 70, director: 'Jane Doe', rated: 'PG-13' });
    expect(Number(rat.box_office_usd)).toBe(1234567);
    const ids = h.fake.requests.ratings.map((r) => r.query.get('i')).sort();
    expect(ids).toEqual(['tt1000001', 'tt1000002', 'tt1000003', 'tt1000004', 'tt1000005']);
    expect(h.fake.requests.ratings.every((r) => r.query.get('apikey') === 'ratings-secret')).toBe(true);
  });

  it('refreshes by age category: recent after 5 days, archived catalog after 90 and ratings after 180', async () => {
    h.fake.add(...movies(1, 10, 1), ...movies(1, 1000, 2));
    await run(h);
    const t0 = h.clock.now.getTime();
    h.clock.now = new Date(t0 + 4 * DAY);
    expect((await h.ctx.collector.planRefresh(100, false)).length).toBe(0);
    h.clock.now = new Date(t0 + 5 * DAY);
    expect((await h.ctx.collector.planRefresh(100, false)).map((p) => [p.movie.tmdb_id, p.needsCatalog, p.needsRatings])).toEqual([[1, true, true]]);
    h.clock.now = new Date(t0 + 90 * DAY);
    const plan = await h.ctx.collector.planRefresh(100, false);
    expect(plan.find((p) => p.movie.tmdb_id === 2)).toMatchObject({ category: 'archived', needsCatalog: true, needsRatings: false });
  });

  it('freezes an archived movie after exactly 3 unchanged cycles, and a change resets the count', async () => {
    h.fake.add(...movies(1, 1000, 1), ...movies(1, 200, 2));
    await run(h);
    const cycles: [number, boolean][] = [];
    for (let i = 1; i <= 4; i++) {
      h.clock.now = new Date(h.clock.now.getTime() + 200 * DAY);
      if (i === 1) h.fake.movies.get(1)!.revenue = 9_000_000; // a change in the first refresh
      const stats = await run(h, { refreshOnly: true });
      const m = await row(1);
      cycles.push([m.unchanged_refreshes, m.data_frozen]);
      if (i === 4) expect(stats.frozen).toBe(1);
    }
    expect(cycles).toEqual([
      [0, false],
      [1, false],
      [2, false],
      [3, true],
    ]);
    // The mature movie (200 days at the start) aged into archived too, but its counter started later.
    expect((await h.ctx.collector.planRefresh(100, false)).some((p) => p.movie.tmdb_id === 1)).toBe(false);
  });

  it('does not freeze a movie that is not archived', async () => {
    h.fake.add(...movies(1, 0, 1));
    await run(h);
    for (let i = 0; i < 4; i++) {
      h.clock.now = new Date(h.clock.now.getTime() + 5 * DAY);
      await run(h, { refreshOnly: true });
    }
    const m = await row(1);
    expect(m.unchanged_refreshes).toBe(4);
    expect(m.data_frozen).toBe(false);
  });

  it('thaws a frozen movie when an included refresh finds a change, or on request', async () => {
    h.fake.add(...movies(2, 2000, 1));
    await run(h);
    await h.ctx.db.query('UPDATE movies SET data_frozen = TRUE, unchanged_refreshes = 3');
    h.clock.now = new Date(h.clock.now.getTime() + 200 * DAY);
    expect((await run(h, { refreshOnly: true })).planned).toBe(0);
    h.fake.movies.get(1)!.runtime = 140;
    const stats = await run(h, { refreshOnly: true, includeFrozen: true });
    expect(stats.planned).toBe(2);
    expect((await row(1)).data_frozen).toBe(false);
    expect((await row(2)).data_frozen).toBe(true);
    expect(await h.ctx.repo.unfreeze(2)).toBe(true);
    expect(await row(2)).toMatchObject({ data_frozen: false, unchanged_refreshes: 0 });
  });

  it('skips ratings for a movie without a valid IMDb id, and filters release statuses', async () => {
    h.fake.add(
      { ...movies(1, 30, 1)[0]!, imdb_id: null },
      { ...movies(1, 30, 2)[0]!, imdb_id: 'nm12345' },
      { ...movies(1, 30, 3)[0]!, status: 'Post Production' },
    );
    const stats = await run(h);
    expect(stats.skipped.no_imdb_id).toBe(2);
    expect(stats.skipped.release_status).toBe(1);
    expect(stats.ratings_updated).toBe(0);
    expect(await count('catalog_movies')).toBe(2);
    expect(h.fake.requests.ratings.length).toBe(0);
  });

  it('honours Retry-After on 429, retries 5xx with backoff, and one failing movie never stops the batch', async () => {
    h.fake.add(...movies(4, 30));
    h.fake.fault('catalog', (r) => r.path === '/movie/1', { status: 429, headers: { 'retry-after': '2' } });
    h.fake.fault('catalog', (r) => r.path === '/movie/2', { status: 500 }, { status: 502 });
    h.fake.fault('catalog', (r) => r.path === '/movie/3', { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const stats = await run(h);
    expect(stats.catalog_updated).toBe(3);
    expect(stats.failures).toEqual([expect.objectContaining({ tmdb_id: 3, step: 'catalog', kind: 'server' })]);
    expect(h.sleeps).toContain(2000);
    expect(h.sleeps.filter((s) => s === 1000).length).toBeGreaterThanOrEqual(2);
    expect(h.sleeps).toContain(4000);
    expect(h.fake.requests.catalog.filter((r) => r.path === '/movie/3').length).toBe(4);
    // The failed movie is picked up by the next run.
    const again = await run(h, { refreshOnly: true });
    expect(again.catalog_updated).toBe(1);
  });

  it('still refreshes the known movies when discovery fails, and says discovery failed', async () => {
    h.fake.add(...movies(3, 1000, 1));
    await run(h);
    h.clock.now = new Date(h.clock.now.getTime() + 200 * DAY); // archived: catalog and ratings both due
    h.fake.fault('catalog', (r) => r.path === '/discover/movie', { status: 401, body: '{"status_code":7,"status_message":"Invalid API key"}' });
    const stats = await run(h);
    expect(stats.discovery_error).toMatch(/401|auth/i);
    expect(stats).toMatchObject({ planned: 3, catalog_updated: 3, ratings_updated: 3 });
  });

  it('fetches ratings by the known IMDb id when the catalog refresh of the same movie fails', async () => {
    h.fake.add(...movies(2, 1000, 1));
    await run(h);
    h.clock.now = new Date(h.clock.now.getTime() + 200 * DAY);
    const imdb = (await row(1)).imdb_id!;
    h.fake.requests.ratings.length = 0;
    h.fake.fault('catalog', (r) => r.path === '/movie/1', { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const stats = await run(h, { refreshOnly: true });
    expect(stats.failures).toEqual([expect.objectContaining({ tmdb_id: 1, step: 'catalog' })]);
    expect(stats.ratings_updated).toBe(2);
    expect(h.fake.requests.ratings.map((r) => r.query.get('i'))).toContain(imdb);
  });

  it('does not count a cycle whose ratings fetch failed toward freezing', async () => {
    h.fake.add(...movies(1, 1000, 1));
    await run(h);
    const counts: [number, boolean][] = [];
    for (let i = 1; i <= 4; i++) {
      h.clock.now = new Date(h.clock.now.getTime() + 200 * DAY);
      // The second cycle's ratings fail (all four attempts): it proves nothing about whether the data changed.
      if (i === 2) h.fake.fault('ratings', () => true, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
      const stats = await run(h, { refreshOnly: true });
      if (i === 2) expect(stats.failures).toEqual([expect.objectContaining({ tmdb_id: 1, step: 'ratings' })]);
      const m = await row(1);
      counts.push([m.unchanged_refreshes, m.data_frozen]);
    }
    expect(counts).toEqual([
      [1, false],
      [1, false],
      [2, false],
      [3, true],
    ]);
  });

  it('retries timeouts and malformed bodies, and does not retry a 404', () =>
    // A timeout of its own: 1.5 s against an answer held back 4 s once (an ordinary answer stays far below 1.5 s).
    withHarness(
      (s) => ({ ...s, catalog: { ...s.catalog, timeout_ms: 1500 } }),
      async (x) => {
        x.fake.add(...movies(3, 30));
        x.fake.fault('catalog', (r) => r.path === '/movie/1', { delayMs: 4000, body: '{}' });
        x.fake.fault('catalog', (r) => r.path === '/movie/2', { body: '{"id": 2, "title": "trunc' });
        x.fake.fault('catalog', (r) => r.path === '/movie/3', { status: 404, body: '{"status_code":34}' });
        const stats = await run(x);
        expect(stats.catalog_updated).toBe(2);
        expect(stats.failures).toEqual([expect.objectContaining({ tmdb_id: 3, kind: 'not_found' })]);
        expect(x.fake.requests.catalog.filter((r) => r.path === '/movie/3').length).toBe(1);
        expect(x.fake.requests.catalog.filter((r) => r.path === '/movie/1').length).toBe(2);
      },
    ));

  it('treats OMDb Response False as not found, and 401 "Request limit reached!" as the day\'s quota spent', async () => {
    h.fake.add(...movies(6, 30));
    h.fake.fault('ratings', (r) => r.query.get('i') === 'tt1000001', { body: '{"Response":"False","Error":"Incorrect IMDb ID."}' });
    const first = await run(h);
    expect(first.failures).toEqual([expect.objectContaining({ tmdb_id: 1, step: 'ratings', kind: 'not_found' })]);
    expect(first.ratings_updated).toBe(5);

    await h.reset();
    h.fake.add(...movies(6, 30));
    h.fake.ratingsLimitReached = true;
    const second = await run(h);
    expect(second.ratings_updated).toBe(0);
    expect(second.skipped.ratings_quota).toBe(6);
    // Not retried, and nothing asked after the first refusal for the rest of the day.
    expect(h.fake.requests.ratings.length).toBeLessThanOrEqual(5);
    expect(await h.ctx.ratings.quotaLeft()).toBe(0);
  });

  /** A harness of its own with tuned settings, closed at the end. */
  async function withHarness(tune: Parameters<typeof movieHarness>[1], fn: (x: Harness) => Promise<void>) {
    const x = await movieHarness(url, (s) => tune!({ ...s, catalog: { ...s.catalog, min_popularity: 0, min_release_year: 1990 } }));
    try {
      await fn(x);
    } finally {
      await x.close();
    }
  }

  it('never exceeds the daily quota, counted in the ledger', () =>
    withHarness(
      (s) => ({ ...s, catalog: { ...s.catalog, daily_quota: 7 } }),
      async (x) => {
        x.fake.add(...movies(10, 30));
        const stats = await run(x);
        expect(x.fake.requests.catalog.length).toBe(7);
        expect(stats.catalog_updated).toBe(6);
        expect(stats.skipped.catalog_quota).toBe(4);
        expect(await x.ctx.catalog.quotaLeft()).toBe(0);
        // A new UTC day has a fresh quota.
        x.clock.now = new Date(x.clock.now.getTime() + DAY);
        expect(await x.ctx.catalog.quotaLeft()).toBe(7);
      },
    ));

  it('caps ratings requests per run at ratings_max_movies', () =>
    withHarness(
      (s) => ({ ...s, ratings: { ...s.ratings, max_movies: 3 } }),
      async (x) => {
        x.fake.add(...movies(5, 30));
        const stats = await run(x);
        expect(stats.ratings_updated).toBe(3);
        expect(stats.skipped.ratings_cap).toBe(2);
      },
    ));

  it('after a crash mid-run, a re-run completes the rest with no duplicates and nothing lost', async () => {
    h.fake.add(...movies(20, 30));
    h.fake.latencyMs = 20;
    let calls = 0;
    // The "crash" aborts the run from inside, after 8 of 20 catalog fetches, with up to 10 in flight.
    await expect(
      h.ctx.collector.runFullCollection({ discoverStartYear: 1990, discoverEndYear: 2030, discoverMinVoteCount: 0 }, (phase) => {
        if (phase === 'catalog' && ++calls === 8) throw new Error('simulated crash');
      }),
    ).rejects.toThrow('simulated crash');
    await new Promise((r) => setTimeout(r, 300)); // requests already in flight land
    h.fake.latencyMs = 0;
    const storedBefore = await count('catalog_movies');
    expect(storedBefore).toBeGreaterThanOrEqual(8);
    expect(storedBefore).toBeLessThan(20);
    expect(await count('ratings_movies')).toBe(0);
    const stats = await run(h, { refreshOnly: true });
    expect(stats.failures).toEqual([]);
    expect(await count('movies')).toBe(20);
    expect(await count('catalog_movies')).toBe(20);
    expect(await count('ratings_movies')).toBe(20);
    expect(Number((await h.ctx.db.query<{ n: string }>('SELECT count(DISTINCT tmdb_id)::text AS n FROM movies')).rows[0]!.n)).toBe(20);
  });
});
