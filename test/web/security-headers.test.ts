// Security headers: a content security policy the pages' own styles and images pass, no framing by other sites, no
// MIME sniffing; checked on the answers and in Chromium (a refused style or script is a console error there).
import { type Server, createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, tempDir } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';

let app: Awaited<ReturnType<typeof makeApp>>;

beforeAll(async () => {
  const docs = tempDir('csp-docs-');
  writeFileSync(join(docs, 'navy.txt'), 'The navy built three new ironclad ships in 1862 at the Boston yard.');
  // No load shedding: a busy test machine would get 503s for pages that are fine.
  app = await makeApp({ DOCS_DIR: docs, MAX_EVENT_LOOP_DELAY_MS: 0 });
});
afterAll(() => app?.close());

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | string[] | number | undefined): Record<string, string[]> {
  return Object.fromEntries(
    String(header ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

describe('security headers on the pages', () => {
  it.each(['/', '/prediction', '/sentiment', '/collection', '/no/such/page'])('%s: a strict policy, no framing, no sniffing', async (url) => {
    const res = await app.inject({ url, headers: { accept: 'text/html' } });
    expect(res.headers['content-type']).toMatch(/text\/html/);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp['default-src']).toEqual(["'self'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['style-src']).toEqual(["'self'"]);
    expect(csp['object-src']).toEqual(["'none'"]);
    expect(csp['base-uri']).toEqual(["'none'"]);
    expect(csp['form-action']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    // A service reached over plain HTTP by a LAN name must not have its requests upgraded to HTTPS.
    expect(csp['upgrade-insecure-requests']).toBeUndefined();
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('same-origin');
  });

  it('JSON answers and images are not sniffed either', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/predict', payload: { pclass: 1, sex: 'female', age: 29, sibsp: 0, parch: 0, embarked: 'C' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect((await app.inject({ url: '/static/css/site.css' })).headers['x-content-type-options']).toBe('nosniff');
  });

  it('sends /docs, where many frameworks put their API page, to Swagger UI', async () => {
    const res = await app.inject({ url: '/docs' });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/api/docs');
  });

  it('Swagger UI keeps its own policy, which lets its scripts run, and is not framed by other sites', async () => {
    const res = await app.inject({ url: '/api/docs' });
    expect(res.statusCode).toBe(200);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp['script-src']).toContain("'self'");
    expect(["'self'", "'none'"]).toContain(csp['frame-ancestors']?.join(' '));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('the pages in Chromium under their policy', () => {
  let browser: Browser;
  let base: string;
  let framer: Server;
  beforeAll(async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    framer?.close();
  });

  /** A page that records every console error and every policy violation. */
  async function watched(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    // Run in the page (a string: this project's TypeScript has no DOM types).
    await page.addInitScript(
      "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))",
    );
    return { page, problems };
  }

  it('shows every page, its results and Swagger UI without a refused style, script or image', async () => {
    const { page, problems } = await watched();
    for (const url of ['/', '/prediction', '/sentiment', '/ask', '/collection', '/api/docs']) {
      const res = await page.goto(`${base}${url}`);
      expect(res?.status(), url).toBe(200);
    }
    await page.locator('.opblock-summary-path').first().waitFor({ timeout: 15_000 });
    // The result pages: a plot image and bars whose widths are style attributes.
    await page.goto(`${base}/prediction`);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(await page.locator('img.plot').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    const barWidth = await page
      .locator('.bar-fill')
      .first()
      .evaluate((el) => el.getBoundingClientRect().width);
    expect(barWidth).toBeGreaterThan(0);
    await page.goto(`${base}/sentiment`);
    await page.fill('#text', 'Profit rose 20% and beat expectations.');
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(await page.locator('.bar-row').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('refuses to be framed by another site (the token form of /collection)', async () => {
    framer = createServer((_req, res) => res.end(`<!doctype html><iframe src="${base}/collection"></iframe>`));
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    const { page, problems } = await watched();
    await page.goto(`http://localhost:${(framer.address() as { port: number }).port}/`);
    await page.waitForTimeout(1000);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(await frame?.locator('form').count()).toBe(0);
    expect(problems.join('\n')).toMatch(/frame-ancestors 'none'/);
    await page.close();
  }, 60_000);
});
