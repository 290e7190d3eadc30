import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp } from '../helpers/app.js';

describe('static files', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it('serves files under /static', async () => {
    const res = await app.inject({ url: '/static/css/site.css' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/css/);
  });

  it('serves a favicon at /favicon.ico (browsers ask for it on every page) and links it from the pages', async () => {
    const res = await app.inject({ url: '/favicon.ico' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/image\/svg\+xml/);
    expect(res.body).toMatch(/^<svg /);
    const home = await app.inject({ url: '/' });
    const href = /<link rel="icon" href="([^"]+)"/.exec(home.body)![1]!;
    expect((await app.inject({ url: href })).statusCode).toBe(200);
  });

  it('serves generated images from the data directory', async () => {
    writeFileSync(join(app.config.DATA_DIR, 'images', 'shap_explanation_20260101_000000_0123ab.png'), 'png-bytes');
    const res = await app.inject({ url: '/static/images/shap_explanation_20260101_000000_0123ab.png' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('png-bytes');
  });

  it.each([
    '/static/../package.json',
    '/static/%2e%2e/package.json',
    '/static/%2E%2E%2Fpackage.json',
    '/static/..%2fpackage.json',
    '/static/css/../../package.json',
    '/static/images/../../package.json',
    '/static/images/%2e%2e%2f%2e%2e%2fpackage.json',
    '/static/%252e%252e/package.json',
    '/static/..\\package.json',
    '/static/.env',
  ])('refuses %s', async (url) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.body).not.toContain('"devDependencies"');
  });
});
