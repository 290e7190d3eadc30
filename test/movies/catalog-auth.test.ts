// The catalog key goes where its kind belongs (v3 API key: api_key parameter; v4 token: bearer header), against a fake
// that accepts each only there, and the key never reaches a log line, an error message or a stored run.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { catalogAuth } from '../../src/movies/clients/catalog.js';
import { type MoviesContext, createMoviesContext } from '../../src/movies/context.js';
import { testConfig } from '../helpers/app.js';
import { FakeApis } from '../helpers/fake-movie-apis.js';
import { movies } from '../helpers/movies.js';

const V3_KEY = randomBytes(16).toString('hex');
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const V4_TOKEN = `${b64({ alg: 'HS256' })}.${b64({ aud: V3_KEY.slice(0, 8), scopes: ['api_read'], version: 1 })}.${randomBytes(32).toString('base64url')}`;
const NOW = new Date('2026-06-15T12:00:00Z');

describe('catalog key kinds', () => {
  let fake: FakeApis;
  const logs: string[] = [];
  const open: MoviesContext[] = [];
  let base: MoviesContext | undefined;

  beforeAll(async () => {
    fake = new FakeApis();
    await fake.start();
    // Opens the database that every test's context shares (the slow part), in the hook's longer time limit.
    await context(V4_TOKEN);
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await base?.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.movies.clear();
    fake.add(...movies(3, 400, 1, NOW));
    fake.catalogKeys = { apiKey: V3_KEY, readAccessToken: V4_TOKEN };
    fake.requests.catalog.length = 0;
    logs.length = 0;
  });

  async function context(key: string, auth?: 'query' | 'bearer') {
    const log = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          logs.push(chunk.toString());
          done();
        },
      }),
    );
    const config = testConfig({
      CATALOG_BASE_URL: fake.catalogUrl,
      RATINGS_BASE_URL: fake.ratingsUrl,
      CATALOG_API_KEY: key,
      RATINGS_API_KEY: 'ratings-key',
      ...(auth ? { CATALOG_AUTH: auth } : {}),
    });
    // One database for every context: opening PGlite is the slow part.
    const ctx = await createMoviesContext(config, log, {
      ...(base ? { db: base.db } : {}),
      now: () => NOW,
      sleep: async () => undefined,
      settings: (s) => ({
        ...s,
        catalog: { ...s.catalog, min_popularity: 0, requests_per_second: 1000, timeout_ms: 1000 },
        retry: { ...s.retry, retries: 0 },
      }),
    });
    if (base) open.push(ctx);
    else base = ctx;
    return ctx;
  }

  const discover = (ctx: MoviesContext) => ctx.collector.discoverAndStoreMovies({ maxPages: 1, maxMovies: null, minVoteCount: 0, minReleaseYear: 2000 });

  it('guesses the kind from the key: 32 hexadecimal characters are a v3 key, anything else a bearer token', () => {
    expect(catalogAuth(V3_KEY)).toBe('query');
    expect(catalogAuth(V3_KEY.toUpperCase())).toBe('query');
    expect(catalogAuth(V4_TOKEN)).toBe('bearer');
    expect(catalogAuth(V3_KEY.slice(1))).toBe('bearer');
    expect(catalogAuth(V3_KEY, 'bearer')).toBe('bearer');
    expect(catalogAuth(V4_TOKEN, 'query')).toBe('query');
  });

  it('sends a v3 API key as the api_key parameter, and the catalog accepts it', async () => {
    const ctx = await context(V3_KEY);
    expect(await discover(ctx)).toBe(3);
    const [q] = fake.requests.catalog;
    expect(q!.query.get('api_key')).toBe(V3_KEY);
    expect(q!.headers.authorization).toBeUndefined();
    // Details too, not only discovery.
    await ctx.catalog.details(1);
    expect(fake.requests.catalog.every((r) => r.query.get('api_key') === V3_KEY)).toBe(true);
  });

  it('sends a v4 read access token as a bearer header, and the catalog accepts it', async () => {
    const ctx = await context(V4_TOKEN);
    expect(await discover(ctx)).toBe(3);
    const [q] = fake.requests.catalog;
    expect(q!.headers.authorization).toBe(`Bearer ${V4_TOKEN}`);
    expect(q!.query.has('api_key')).toBe(false);
  });

  it('CATALOG_AUTH overrides the guess; a key in the wrong place is refused (401) without the key in logs, errors or the run', async () => {
    const ctx = await context(V3_KEY, 'bearer');
    const outcome = await ctx.runner.run('cli', { discoverStartYear: 2000, discoverEndYear: 2030, discoverMinVoteCount: 0 });
    expect(fake.requests.catalog[0]!.headers.authorization).toBe(`Bearer ${V3_KEY}`);
    expect(outcome.status).toBe('partial');
    expect(outcome.error).toMatch(/auth: authentication failed \(401\)/);
    const stored = JSON.stringify(await ctx.runner.findRun(outcome.run_id!));
    expect(stored).toContain('authentication failed');
    expect(logs.join('')).toContain('/discover/movie');
    for (const text of [JSON.stringify(outcome), stored, logs.join('')]) expect(text).not.toContain(V3_KEY);
  });

  it.each([
    ['v3 key', V3_KEY],
    ['v4 token', V4_TOKEN],
  ])('a failed request echoing its URL (%s) leaves the key out of the error and the log', async (_kind, key) => {
    const ctx = await context(key);
    // A proxy's error page that quotes the request, query and all (and the header, for the token).
    fake.fault('catalog', (r) => r.path === '/discover/movie', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: `<p>GET /discover/movie?api_key=${key} Bearer ${key}</p>`,
    });
    const err = (await discover(ctx).catch((e: unknown) => e)) as Error & { kind: string };
    expect(err.kind).toBe('invalid_response');
    expect(err.message).toContain('[redacted]');
    expect(err.message).not.toContain(key);
    expect(logs.join('')).not.toContain(key);
  });
});
