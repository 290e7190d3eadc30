// A movie-collection context against fake APIs, on PGlite or (when DATABASE_URL is set) a PostgreSQL schema of its own.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import pg from 'pg';
import { type ContextOptions, type MoviesContext, createMoviesContext } from '../../src/movies/context.js';
import type { CollectionSettings } from '../../src/movies/settings.js';
import { testConfig } from './app.js';
import { FakeApis } from './fake-movie-apis.js';

/** PGlite always; the real PostgreSQL too when DATABASE_URL is set (.ci/run sets it when a server answers). */
export const BACKENDS: [string, string | undefined][] = [
  ['pglite', undefined],
  ...(process.env.DATABASE_URL ? ([['postgres', process.env.DATABASE_URL]] as [string, string][]) : []),
];

export const silentLog = pino({ level: 'silent' });

export interface Harness {
  ctx: MoviesContext;
  fake: FakeApis;
  sleeps: number[];
  clock: { now: Date };
  config: ReturnType<typeof testConfig>;
  schema: string | undefined;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function movieHarness(
  databaseUrl: string | undefined,
  tune: (s: CollectionSettings) => CollectionSettings = (s) => s,
  extra: Partial<ContextOptions> = {},
): Promise<Harness> {
  const fake = new FakeApis();
  await fake.start();
  const schema = databaseUrl ? `t_${randomBytes(5).toString('hex')}` : undefined;
  const clock = { now: new Date('2026-06-15T12:00:00Z') };
  const sleeps: number[] = [];
  const config = testConfig({
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    CATALOG_BASE_URL: fake.catalogUrl,
    RATINGS_BASE_URL: fake.ratingsUrl,
    CATALOG_API_KEY: 'catalog-secret',
    RATINGS_API_KEY: 'ratings-secret',
  });
  const options: ContextOptions = {
    ...(schema ? { schema } : {}),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    now: () => clock.now,
    // Fast limits by default: functional tests are not about the rate (bench:collect is). The request timeout stays
    // well above what a local answer takes on a loaded machine (300 ms did not: requests timed out and were retried).
    settings: (s) =>
      tune({
        ...s,
        catalog: { ...s.catalog, requests_per_second: 1000, max_concurrent: 10, timeout_ms: 5000 },
        ratings: { ...s.ratings, requests_per_second: 1000, max_concurrent: 5, timeout_ms: 5000 },
      }),
    ...extra,
  };
  const ctx = await createMoviesContext(config, silentLog, options);
  return {
    ctx,
    fake,
    sleeps,
    clock,
    config,
    schema,
    async reset() {
      await ctx.db.exec('TRUNCATE movies, catalog_movies, ratings_movies, api_quota, collection_runs RESTART IDENTITY CASCADE');
      fake.movies.clear();
      fake.requests.catalog.length = 0;
      fake.requests.ratings.length = 0;
      fake.ratingsLimitReached = false;
      sleeps.length = 0;
      clock.now = new Date('2026-06-15T12:00:00Z');
    },
    async close() {
      await ctx.close();
      await fake.stop();
      if (databaseUrl && schema) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
    },
  };
}

/** n movies released `daysAgo` before the harness clock, with valid IMDb ids. */
export function movies(n: number, daysAgo: number, startId = 1, now = new Date('2026-06-15T12:00:00Z')) {
  const date = new Date(now.getTime() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  return Array.from({ length: n }, (_, i) => ({
    id: startId + i,
    title: `Movie ${startId + i}`,
    release_date: date,
    imdb_id: `tt${String(1000000 + startId + i).padStart(7, '0')}`,
    popularity: 100 - i,
    vote_count: 500,
  }));
}
