// The /collection page in Chromium (with and without JavaScript), against fake movie APIs: the runs, the quota, the
// movies per age category, the next scheduled run, the chart, and "Run now" under the operator-access rule.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { makeApp, tempDir } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';
import type { FakeMovie } from '../helpers/fake-movie-apis.js';
import { type Harness, movieHarness } from '../helpers/movies.js';

const shots = process.env.UPDATE_SCREENSHOTS ? fromRoot('docs/images') : tempDir('shots-');
const thisYear = new Date().getUTCFullYear();

/** Popular films of the last few years (the page's "Run now" discovers this and the last four years). */
const films = (n: number, from: number): FakeMovie[] =>
  Array.from({ length: n }, (_, i) => ({
    id: from + i,
    title: `Film ${from + i}`,
    release_date: `${thisYear - (i % 4)}-0${1 + (i % 9)}-15`,
    imdb_id: `tt${String(from + i).padStart(7, '0')}`,
    vote_count: 5000,
    vote_average: 7.1,
    popularity: 80,
    imdbRating: '7.2',
    imdbVotes: '12,345',
  }));

let h: Harness;
let app: Awaited<ReturnType<typeof makeApp>>;
let base: string;
let browser: Browser;

beforeAll(async () => {
  h = await movieHarness(undefined);
  h.fake.add(...films(6, 100));
  await h.ctx.close();
  app = await makeApp({
    DATA_DIR: h.config.DATA_DIR,
    CATALOG_BASE_URL: h.fake.catalogUrl,
    RATINGS_BASE_URL: h.fake.ratingsUrl,
    CATALOG_API_KEY: 'catalog-secret',
    RATINGS_API_KEY: 'ratings-secret',
    COLLECTION_CRON: '0 3 * * *',
  });
  await app.movies.start();
  base = await app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await h?.close();
});

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('the collection page %s', (_label, javaScriptEnabled) => {
  it('starts a run with "Run now", then shows it with its figures, the chart, the quota, the counts and the next run', async () => {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    try {
      // A new film each time, so that each run has something to discover.
      h.fake.add(...films(1, javaScriptEnabled ? 500 : 600));
      await page.goto(`${base}/collection`);
      expect(await page.title()).toMatch(/Movie collection/);
      expect(await page.locator('#next-run').innerText()).toMatch(/^\d{4}-\d\d-\d\d 03:00:00 UTC$/);
      const [res] = await Promise.all([page.waitForNavigation(), page.click('form.run-now button[type="submit"]')]);
      expect(res?.status()).toBe(200);
      const started = /started=(\d+)/.exec(page.url())![1]!;
      expect(await page.locator('#run-message').innerText()).toBe(`Run ${started} started. Reload the page to follow it.`);
      // Follow it as a person would: reload until it has finished.
      let status = '';
      for (let i = 0; i < 100 && !/succeeded|partial|failed/.test(status); i++) {
        await page.goto(`${base}/collection`);
        status = await page.locator('#runs tbody tr').first().locator('td').nth(2).innerText();
        if (!/succeeded|partial|failed/.test(status)) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe('succeeded');
      const first = await page.locator('#runs tbody tr').first().locator('td').allInnerTexts();
      expect(first[0]).toBe(`${started} (page)`);
      const run = (await app.inject({ url: `/api/collection/runs/${started}` })).json();
      // The page shows the run's own statistics.
      expect(first.slice(3, 7).map(Number)).toEqual([run.stats.discovered, run.stats.catalog_updated, run.stats.ratings_updated, run.stats.frozen]);
      expect(run.stats.discovered).toBeGreaterThan(0);
      const status_ = (await app.inject({ url: '/api/collection/status' })).json();
      expect(await page.locator('#movies-total').innerText()).toBe(String(status_.movies.total));
      const usedCatalog = status_.quota.catalog.daily_limit - status_.quota.catalog.left_today;
      expect(usedCatalog).toBeGreaterThan(0);
      expect(await page.locator('#quota-catalog').innerText()).toBe(`${usedCatalog} of ${status_.quota.catalog.daily_limit} used`);
      // The chart is drawn on the server: one bar per series and run, with the run's figure in its tooltip.
      const bars = await page.locator('#run-chart svg rect title').allTextContents();
      expect(bars).toContain(`run ${started}: ${run.stats.discovered} discovered`);
      if (javaScriptEnabled) await page.screenshot({ path: join(shots, 'page-collection.png'), fullPage: true });
      // On a phone the page keeps its width: the wide tables scroll in their own boxes.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      // The count of movies, next to its category, is in view without scrolling the table.
      const total = (await page.locator('#movies-total').boundingBox())!;
      expect(total.x + total.width).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }
  });
});

describe('"Run now" is for operators', () => {
  it('is refused (403, no run) to a client from another machine when no ADMIN_TOKEN is set', async () => {
    const before = (await app.inject({ url: '/api/collection/runs' })).json().runs.length;
    const page = await app.inject({ url: '/collection', remoteAddress: '10.1.2.3' });
    expect(page.body).toContain('id="run-now-denied"');
    const post = await app.inject({ method: 'POST', url: '/collection/run', remoteAddress: '10.1.2.3', payload: {} });
    expect(post.statusCode).toBe(403);
    expect(post.body).toMatch(/Only operators can start a run/);
    expect((await app.inject({ url: '/api/collection/runs' })).json().runs.length).toBe(before);
  });

  it('is not offered without the API keys: the page names the keys to set', async () => {
    const keyless = await makeApp({ CATALOG_BASE_URL: h.fake.catalogUrl, RATINGS_BASE_URL: h.fake.ratingsUrl, RATINGS_API_KEY: 'ratings-secret' });
    try {
      const page = (await keyless.inject({ url: '/collection' })).body;
      expect(page).toMatch(/id="run-now-keys">A run needs CATALOG_API_KEY set on the service/);
      expect(page).not.toContain('form method="post" action="/collection/run"');
    } finally {
      await keyless.close();
    }
  });

  it('asks for the token when ADMIN_TOKEN is set, and starts a run only with the right one', async () => {
    const guarded = await makeApp({
      CATALOG_BASE_URL: h.fake.catalogUrl,
      RATINGS_BASE_URL: h.fake.ratingsUrl,
      CATALOG_API_KEY: 'catalog-secret',
      RATINGS_API_KEY: 'ratings-secret',
      ADMIN_TOKEN: 'a-long-operator-token',
    });
    try {
      expect((await guarded.inject({ url: '/collection' })).body).toContain('name="token" type="password"');
      const form = (token: string) =>
        guarded.inject({ method: 'POST', url: '/collection/run', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${token}` });
      const wrong = await form('not-the-token');
      expect(wrong.statusCode).toBe(403);
      expect(wrong.body).toMatch(/operator token is not right/);
      const right = await form('a-long-operator-token');
      expect(right.statusCode).toBe(303);
      expect(right.headers.location).toMatch(/^\/collection\?started=\d+$/);
    } finally {
      await guarded.close();
    }
  });
});
