import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../../src/infra/paths.js';
import { makeApp } from '../helpers/app.js';
import { FakeLlm } from '../helpers/fake-llm.js';

describe('health, liveness, metrics, landing page', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it('GET /health is healthy once every component works, with the documented fields and the package version', async () => {
    await Promise.all([app.movies.start(), app.rag.start()]);
    const body = (await app.inject({ url: '/health' })).json();
    expect(body).toMatchObject({ status: 'healthy', model_loaded: true, preprocessor_loaded: true, version: SERVICE_VERSION });
    expect(body.version).toMatch(/^\d+\.\d+\.\d+$/);
    for (const [name, c] of Object.entries(body.components as Record<string, { ready: boolean }>)) expect(c.ready, name).toBe(true);
    expect(body.components.rag).toMatchObject({ state: 'ready', chroma: { reachable: true }, index: { loaded: true }, last_index_run: { ok: true } });
    expect(body.components.llm).toMatchObject({ configured: false, mode: 'fallback (no LLM_API_KEY)' });
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

describe('load shedding', () => {
  /** Lags the event loop past a whole sampling interval (1 s) until `url` is shed: the next sample sees the lag. */
  async function shed(app: Awaited<ReturnType<typeof makeApp>>, method: 'GET' | 'POST', url: string, payload?: object) {
    for (let i = 0; i < 10; i++) {
      const until = Date.now() + 1100;
      while (Date.now() < until) {
        // busy: the event loop cannot turn
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      const res = await app.inject({ method, url, ...(payload ? { payload } : {}) });
      if (res.statusCode === 503) return res;
    }
    throw new Error(`${method} ${url} was never shed`);
  }

  it("answers 503 with Retry-After in each domain's error shape, naming its request like every other error body", async () => {
    const app = await makeApp({ MAX_EVENT_LOOP_DELAY_MS: 1, RAG_INDEX_ON_START: false });
    try {
      const api = await shed(app, 'GET', '/api/model');
      expect(api.headers['retry-after']).toBe('5');
      expect(api.json()).toEqual({
        error: 'ServiceUnavailable',
        message: expect.stringMatching(/overloaded/),
        details: { retry_after_s: 5, request_id: api.headers['x-request-id'] },
      });
      const text = await shed(app, 'POST', '/analyze/sentiment', { text: 'Shares jumped.' });
      expect(text.json()).toEqual({ detail: expect.stringMatching(/overloaded/), request_id: text.headers['x-request-id'] });
    } finally {
      await app.close();
    }
  }, 60_000);
});

describe('/health reports what it measured', () => {
  it('is degraded when the vector store does not answer, naming the component', async () => {
    const app = await makeApp({ CHROMA_URL: 'http://127.0.0.1:9' });
    try {
      await app.rag.start().catch(() => undefined);
      const body = (await app.inject({ url: '/health' })).json();
      expect(body.status).toBe('degraded');
      expect(body.components.rag).toMatchObject({ ready: false, chroma: { server: 'external', reachable: false }, index: { loaded: false } });
      expect(body.components.rag.error).toMatch(/Chroma does not answer/);
      expect(body.components.survival.ready).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('is degraded after an index run failed, and says why', async () => {
    const app = await makeApp({ DOCS_DIR: '/nonexistent/documents', RAG_INDEX_ON_START: false });
    try {
      const res = await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      const body = (await app.inject({ url: '/health' })).json();
      expect(body.status).toBe('degraded');
      expect(body.components.rag).toMatchObject({ ready: false, last_index_run: { ok: false } });
      expect(body.components.rag.error).toMatch(/last index run failed: .*nonexistent/);
    } finally {
      await app.close();
    }
  });

  it('is degraded while a configured LLM provider keeps failing, and healthy again once it answers', async () => {
    const fake = new FakeLlm();
    await fake.start();
    const app = await makeApp({ LLM_PROVIDER: 'openai', LLM_API_KEY: 'sk-test', LLM_BASE_URL: `${fake.url}/v1`, RAG_INDEX_ON_START: false });
    try {
      const llm = async () => (await app.inject({ url: '/health' })).json().components.llm;
      expect(await llm()).toMatchObject({ ready: true, configured: true, mode: 'llm', last_call: null });
      fake.mode = '500';
      await app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Revenue rose sharply this quarter.' } });
      expect(await llm()).toMatchObject({ ready: false, last_call: { ok: false, reason: 'error' } });
      expect((await app.inject({ url: '/health' })).json().status).toBe('degraded');
      fake.mode = 'ok';
      await app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Revenue rose sharply this quarter.' } });
      expect(await llm()).toMatchObject({ ready: true, last_call: { ok: true } });
    } finally {
      await app.close();
      await fake.stop();
    }
  });
});
