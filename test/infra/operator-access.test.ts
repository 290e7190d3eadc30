// Operator routes behind ADMIN_TOKEN or loopback; request ids; TRUST_PROXY and per-client rate limits; /ready.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, tempDir } from '../helpers/app.js';

const REMOTE = '203.0.113.7';
const TOKEN = 'operator-token-0123456789abcdef';

const operatorRoutes = [
  { method: 'GET', url: '/metrics', shape: 'error' },
  { method: 'GET', url: '/api/collection/status', shape: 'error' },
  { method: 'GET', url: '/api/collection/runs', shape: 'error' },
  { method: 'POST', url: '/api/collection/run', shape: 'error' },
  { method: 'POST', url: '/rag/index', shape: 'detail' },
] as const;

describe('operator routes without ADMIN_TOKEN', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp({ RAG_INDEX_ON_START: false });
  });
  afterAll(() => app.close());

  it.each(operatorRoutes)('$method $url answers a remote client 403 in its domain shape', async ({ method, url, shape }) => {
    const res = await app.inject({ method, url, remoteAddress: REMOTE });
    expect(res.statusCode).toBe(403);
    const body = res.json();
    if (shape === 'detail') expect(body.detail).toMatch(/local clients only.*ADMIN_TOKEN/);
    else expect(body).toMatchObject({ error: 'Forbidden', message: expect.stringMatching(/local clients only.*ADMIN_TOKEN/) });
  });

  it('answers loopback clients, IPv4 and IPv6', async () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect((await app.inject({ url: '/metrics', remoteAddress })).statusCode).toBe(200);
    }
  });

  it('leaves the public routes open to everyone', async () => {
    for (const url of ['/health', '/live', '/api/model']) expect((await app.inject({ url, remoteAddress: REMOTE })).statusCode).toBe(200);
    const search = await app.inject({ method: 'POST', url: '/rag/search', payload: { query: '' }, remoteAddress: REMOTE });
    expect(search.statusCode).toBe(400); // validation, not access
  });
});

describe('operator routes with ADMIN_TOKEN', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp({ RAG_INDEX_ON_START: false, ADMIN_TOKEN: TOKEN });
  });
  afterAll(() => app.close());

  it.each(operatorRoutes)('$method $url needs the bearer token, from anywhere', async ({ method, url, shape }) => {
    for (const [remoteAddress, authorization] of [
      [REMOTE, undefined],
      ['127.0.0.1', undefined],
      [REMOTE, `Bearer ${TOKEN.slice(0, -1)}x`],
      [REMOTE, `Basic ${TOKEN}`],
    ] as const) {
      const res = await app.inject({ method, url, remoteAddress, headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      const body = res.json();
      expect(shape === 'detail' ? body.detail : body.message).toContain('Authorization: Bearer <ADMIN_TOKEN>');
    }
  });

  it('lets a remote client with the token in', async () => {
    const res = await app.inject({ url: '/metrics', remoteAddress: REMOTE, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_request_duration_seconds');
  });

  it('never writes the token into the logs configuration it reports', async () => {
    const res = await app.inject({ url: '/health' });
    expect(res.body).not.toContain(TOKEN);
  });
});

describe('request ids', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp({ RAG_INDEX_ON_START: false });
  });
  afterAll(() => app.close());

  it('keeps a valid incoming X-Request-Id and answers with it, on errors too', async () => {
    for (const url of ['/live', '/api/nowhere']) {
      const res = await app.inject({ url, headers: { 'x-request-id': 'edge-42:abc' } });
      expect(res.headers['x-request-id']).toBe('edge-42:abc');
    }
  });

  it('makes a random UUID when there is none or it is not a plain token', async () => {
    const ids = new Set<string>();
    for (const header of [undefined, 'has spaces', 'a'.repeat(129), '<script>']) {
      const res = await app.inject({ url: '/live', headers: header ? { 'x-request-id': header } : {} });
      const id = String(res.headers['x-request-id']);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(4);
  });
});

describe('TRUST_PROXY', () => {
  const hits = async (app: Awaited<ReturnType<typeof makeApp>>, clients: string[]) => {
    const codes: number[] = [];
    for (const client of clients) {
      codes.push((await app.inject({ url: '/live', remoteAddress: '10.0.0.2', headers: { 'x-forwarded-for': client } })).statusCode);
    }
    return codes;
  };

  it('without it, every client behind the proxy shares the proxy address and one rate-limit bucket', async () => {
    const app = await makeApp({ RAG_INDEX_ON_START: false, RATE_LIMIT_MAX: 2 });
    try {
      expect(await hits(app, ['198.51.100.1', '198.51.100.2', '198.51.100.3'])).toEqual([200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  it('with it, each client behind the proxy has its own address and bucket', async () => {
    const app = await makeApp({ RAG_INDEX_ON_START: false, RATE_LIMIT_MAX: 2, TRUST_PROXY: 1 });
    try {
      expect(await hits(app, ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.1', '198.51.100.1'])).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await app.close();
    }
  });
});

describe('GET /ready', () => {
  it('answers 503 with what it waits for, then 200 once every domain can serve', async () => {
    // Two short documents: readiness waits for an index, whatever its size (the sample collection took 20-40 s here).
    const docs = tempDir('ready-docs-');
    writeFileSync(join(docs, 'harbor.txt'), 'The harbor office opens at nine on weekdays. Ferries leave every hour from the north pier.');
    writeFileSync(join(docs, 'library.txt'), 'The library lends books for three weeks. Late returns cost ten cents a day.');
    const app = await makeApp({ DOCS_DIR: docs });
    try {
      const first = await app.inject({ url: '/ready' });
      expect(first.statusCode).toBe(503);
      expect(first.json()).toMatchObject({ status: 'not_ready', waiting_for: { sentiment: expect.any(String), rag: expect.any(String) } });
      await Promise.all([app.movies.start(), app.rag.start()]);
      let res = first;
      // Indexing, loading the models and trying the answer step take seconds, many more on a busy machine.
      for (const deadline = Date.now() + 80_000; res.statusCode !== 200 && Date.now() < deadline;) {
        await sleep(100);
        res = await app.inject({ url: '/ready' });
      }
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ready' });
      expect((await app.inject({ url: '/health' })).json().components.sentiment.state).toBe('ready');
    } finally {
      await app.close();
    }
  }, 120_000);
});

describe('operator access that forwarded headers cannot open', () => {
  const LOOPBACK_FORWARDS = ['127.0.0.1', '127.0.0.1, 198.51.100.7', '::1'];

  it.each([true, 1] as const)('with TRUST_PROXY=%s and no ADMIN_TOKEN the operator routes are closed to every client', async (trust) => {
    const app = await makeApp({ RAG_INDEX_ON_START: false, TRUST_PROXY: trust });
    try {
      for (const remoteAddress of [REMOTE, '127.0.0.1']) {
        for (const forwarded of LOOPBACK_FORWARDS) {
          const res = await app.inject({ url: '/metrics', remoteAddress, headers: { 'x-forwarded-for': forwarded } });
          expect(res.statusCode).toBe(403);
          expect(res.json().message).toMatch(/TRUST_PROXY.*ADMIN_TOKEN/);
        }
      }
      const index = await app.inject({ method: 'POST', url: '/rag/index', remoteAddress: '127.0.0.1', payload: {} });
      expect(index.statusCode).toBe(403);
      // Nor does the page's form start a run.
      const form = await app.inject({
        method: 'POST',
        url: '/collection/run',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '127.0.0.1', 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
      expect(form.statusCode).toBe(403);
      expect(form.body).toContain('Only operators can start a run');
    } finally {
      await app.close();
    }
  });

  it('with TRUST_PROXY and ADMIN_TOKEN (the reference deployment) the token opens them through the proxy', async () => {
    const app = await makeApp({ RAG_INDEX_ON_START: false, TRUST_PROXY: 1, ADMIN_TOKEN: TOKEN });
    try {
      const headers = { 'x-forwarded-for': '198.51.100.7' };
      expect((await app.inject({ url: '/metrics', remoteAddress: '10.0.0.2', headers })).statusCode).toBe(401);
      const ok = await app.inject({ url: '/metrics', remoteAddress: '10.0.0.2', headers: { ...headers, authorization: `Bearer ${TOKEN}` } });
      expect(ok.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('without TRUST_PROXY, a remote socket stays remote whatever X-Forwarded-For says', async () => {
    const app = await makeApp({ RAG_INDEX_ON_START: false });
    try {
      for (const forwarded of LOOPBACK_FORWARDS) {
        const res = await app.inject({ url: '/metrics', remoteAddress: REMOTE, headers: { 'x-forwarded-for': forwarded } });
        expect(res.statusCode).toBe(403);
      }
    } finally {
      await app.close();
    }
  });
});

describe('operator POSTs and cross-site requests', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp({ RAG_INDEX_ON_START: false });
  });
  afterAll(() => app.close());
  const local = { remoteAddress: '127.0.0.1' } as const;

  it('refuses a local client whose Host is not a loopback name (DNS rebinding)', async () => {
    for (const host of ['attacker.example', 'attacker.example:5000', '192.168.1.5:5000', 'localhost.attacker.example']) {
      const res = await app.inject({ url: '/metrics', ...local, headers: { host } });
      expect(res.statusCode, host).toBe(403);
    }
    for (const host of ['localhost:5000', '127.0.0.1:5000', '[::1]:5000', 'localhost']) {
      expect((await app.inject({ url: '/metrics', ...local, headers: { host } })).statusCode, host).toBe(200);
    }
  });

  it('refuses POSTs a browser could send cross-site without a preflight: no body, a form, plain text', async () => {
    for (const [url, shape] of [
      ['/rag/index', 'detail'],
      ['/api/collection/run', 'error'],
      ['/api/collection/movies/603/unfreeze', 'error'],
    ] as const) {
      for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }]) {
        const res = await app.inject({ method: 'POST', url, ...local, headers, payload: headers['content-type'] ? 'a=1' : undefined });
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(403);
        const body = res.json();
        expect(shape === 'detail' ? body.detail : body.message).toMatch(/application\/json/);
      }
    }
  });

  it('refuses a JSON POST whose Origin is another site, saying so, and takes it from its own', async () => {
    const json = { method: 'POST', url: '/api/collection/movies/603/unfreeze', ...local, payload: {} } as const;
    for (const origin of ['http://attacker.example', 'null', 'http://localhost:6000']) {
      const res = await app.inject({ ...json, headers: { host: 'localhost:5000', origin } });
      expect(res.statusCode, origin).toBe(403);
      // The body is JSON here: the message names the Origin, not the content type.
      expect(res.json().message, origin).toMatch(/Origin header/);
      expect(res.json().message, origin).not.toMatch(/application\/json/);
    }
    const index = await app.inject({
      method: 'POST',
      url: '/rag/index',
      ...local,
      payload: {},
      headers: { host: 'localhost:5000', origin: 'http://attacker.example' },
    });
    expect(index.statusCode).toBe(403);
    expect(index.json().detail).toMatch(/Origin header/);
    // Past the access checks: the movie does not exist (or the collection is not set up); either way not a refusal.
    const own = await app.inject({ ...json, headers: { host: 'localhost:5000', origin: 'http://localhost:5000' } });
    expect([403, 401]).not.toContain(own.statusCode);
    const plain = await app.inject({ ...json, headers: { host: 'localhost:5000' } });
    expect([403, 401]).not.toContain(plain.statusCode);
  });

  it('refuses the "Run now" form posted from another site', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/collection/run',
      ...local,
      headers: { host: 'localhost:5000', origin: 'http://attacker.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('only be started from this page');
  });
});
