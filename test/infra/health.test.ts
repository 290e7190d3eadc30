import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../../src/infra/paths.js';
import { makeApp } from '../helpers/app.js';

describe('health, liveness, metrics, landing page', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it('GET /health has the documented fields and the package version', async () => {
    const body = (await app.inject({ url: '/health' })).json();
    expect(body).toMatchObject({
      status: expect.stringMatching(/^(healthy|degraded)$/),
      model_loaded: expect.any(Boolean),
      preprocessor_loaded: expect.any(Boolean),
      version: SERVICE_VERSION,
      components: expect.any(Object),
    });
    expect(body.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('GET /live says the process is up', async () => {
    expect((await app.inject({ url: '/live' })).json()).toEqual({ status: 'alive' });
  });

  it('GET /metrics counts requests by route and status in the Prometheus format', async () => {
    await app.inject({ url: '/live' });
    const res = await app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/live"[^}]*\} [1-9]/);
    expect(res.body).toContain('process_resident_memory_bytes');
  });

  it('GET / is an HTML page linking the docs and health', async () => {
    const res = await app.inject({ url: '/' });
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('href="/api/docs"');
    expect(res.body).toContain('href="/health"');
  });
});

describe('optional HTTP features', () => {
  it('rate limiting and CORS are off by default', async () => {
    const app = await makeApp();
    const res = await app.inject({ url: '/live', headers: { origin: 'https://example.org' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    await app.close();
  });

  it('turn on through config', async () => {
    const app = await makeApp({ RATE_LIMIT_MAX: 2, CORS_ORIGINS: ['https://example.org'] });
    const codes = [];
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ url: '/live', headers: { origin: 'https://example.org' } });
      codes.push(res.statusCode);
      expect(res.headers['access-control-allow-origin']).toBe('https://example.org');
    }
    expect(codes).toEqual([200, 200, 429]);
    await app.close();
  });
});
