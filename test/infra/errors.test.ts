import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeApp } from '../helpers/app.js';

// A probe route with a nested schema, registered only in tests.
async function probeRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/api/probe',
    {
      schema: {
        body: z.strictObject({
          age: z.number().min(0).max(100),
          sex: z.enum(['male', 'female']),
          items: z.array(z.strictObject({ n: z.number().int() })).optional(),
          count: z.int().min(0).max(10).optional(),
        }),
      },
    },
    async (req) => ({ ok: true, age: req.body.age }),
  );
  typed.get('/api/boom', async () => {
    throw new Error('secret internal detail at /srv/app.ts:42');
  });
}

describe('error bodies', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp({}, { plugins: [probeRoutes] });
  });
  afterAll(() => app.close());

  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/api/probe', payload: payload as string, headers });

  const postForm = (url: string, payload: string) =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } });

  it('accepts a valid body', async () => {
    const res = await post({ age: 30, sex: 'male' });
    expect(res.statusCode).toBe(200);
  });

  it('gives 400 ValidationError with loc naming the field', async () => {
    const res = await post({ age: 101, sex: 'male' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ error: 'ValidationError', message: 'Invalid input data' });
    expect(body.details.errors).toEqual([expect.objectContaining({ loc: ['age'], type: 'too_big' })]);
    expect(typeof body.details.errors[0].msg).toBe('string');
  });

  it('names nested paths, missing fields, wrong types and extra fields', async () => {
    const res = await post({ age: 'old', items: [{ n: 1 }, { n: 1.5 }], extra: 1 });
    const locs = res.json().details.errors.map((e: { loc: string[] }) => e.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['age', 'sex', 'items.1.n', 'extra']));
  });

  it.each([
    [1e20, 'too_big', /<=\s*10$/],
    [-1e20, 'too_small', />=\s*0$/],
  ])('names one bound for an integer field given %s: its own, not the safe-integer range besides it', async (count, type, bound) => {
    const res = await post({ age: 30, sex: 'male', count });
    expect(res.statusCode).toBe(400);
    const errors = res.json().details.errors;
    expect(errors).toEqual([expect.objectContaining({ loc: ['count'], type })]);
    expect(errors[0].msg).toMatch(bound);
  });

  it('gives 400 InvalidJSON for a body that is not JSON', async () => {
    const res = await post('{"age": 3,', { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'InvalidJSON' });
  });

  it.each([
    ['{"age": 30, "sex": "male"}x', ' (at position 26)'],
    ['{"age": 30, "sex": "male"', ' (at position 25)'],
    ['{"age": 30, "sex":', ' (it ends too soon)'],
  ])('says a body with broken JSON (%s) is not valid JSON, and where, without naming prototype keys', async (body, where) => {
    const res = await post(body, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('InvalidJSON');
    expect(res.json().message).toMatch(/^Request body is not valid JSON/);
    expect(res.json().message).toContain(where);
    expect(res.json().message).not.toMatch(/proto/);
  });

  it('says why a valid JSON body with a "__proto__" key is refused', async () => {
    const res = await post('{"age": 3, "__proto__": {"admin": true}}', { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('InvalidJSON');
    expect(res.json().message).toContain('"__proto__"');
  });

  it('gives 400 for an empty JSON body and 415 for another media type', async () => {
    const empty = await post('', { 'content-type': 'application/json' });
    expect(empty.statusCode).toBe(400);
    const xml = await post('<a/>', { 'content-type': 'application/xml' });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().error).toBe('UnsupportedMediaType');
  });

  it("gives 415 to a JSON route sent plain text or a form (curl -d without a content type), in each domain's shape", async () => {
    const text = await post('hello', { 'content-type': 'text/plain' });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ error: 'UnsupportedMediaType', message: expect.stringContaining('application/json') });
    const form = await postForm('/rag/ask', '{"question":"hi"}');
    expect(form.statusCode).toBe(415);
    expect(form.json()).toEqual({ detail: expect.stringContaining('application/json') });
  });

  it("gives 415 to a compressed body, which the service does not read, in each domain's shape", async () => {
    const json = JSON.stringify({ age: 30, sex: 'male' });
    const gzip = await post(json, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(gzip.statusCode).toBe(415);
    expect(gzip.json()).toEqual({ error: 'UnsupportedMediaType', message: expect.stringContaining('Content-Encoding'), details: {} });
    const text = await app.inject({
      method: 'POST',
      url: '/rag/ask',
      payload: '{"question":"hi"}',
      headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toEqual({ detail: expect.stringContaining('Content-Encoding') });
    // Identity is no encoding; a request without a body is not refused for the header.
    expect((await post(json, { 'content-type': 'application/json', 'content-encoding': 'identity' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/health', headers: { 'content-encoding': 'gzip' } })).statusCode).not.toBe(415);
  });

  it('still takes the HTML forms of the pages', async () => {
    const res = await postForm('/prediction', 'pclass=1&sex=female&age=29&sibsp=0&parch=0&embarked=C');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('gives 405 with Allow for a path that exists under another method', async () => {
    const res = await app.inject({ url: '/api/probe' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json()).toMatchObject({ error: 'MethodNotAllowed', details: { allowed: ['POST'] } });
  });

  it("answers the text API's 404 and 405 in its own {detail} body", async () => {
    const ask = await app.inject({ url: '/rag/ask' });
    expect(ask.statusCode).toBe(405);
    expect(ask.headers.allow).toBe('POST');
    expect(ask.json()).toEqual({ detail: 'GET is not allowed on /rag/ask; use POST' });
    const sentiment = await app.inject({ method: 'PUT', url: '/analyze/sentiment' });
    expect(sentiment.statusCode).toBe(405);
    expect(sentiment.json()).toEqual({ detail: 'PUT is not allowed on /analyze/sentiment; use POST' });
    const missing = await app.inject({ url: '/rag/nothing-here', headers: { accept: 'text/html' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'No route for GET /rag/nothing-here' });
  });

  it('gives 413 for a body over the limit', async () => {
    const res = await post(JSON.stringify({ age: 1, sex: 'male', pad: 'x'.repeat(2 * 1024 * 1024) }), {
      'content-type': 'application/json',
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe('PayloadTooLarge');
  });

  it('gives a JSON 404 for unknown /api paths, even to browsers', async () => {
    const res = await app.inject({ url: '/api/nothing-here', headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'NotFound', details: { path: '/api/nothing-here' } });
  });

  it('says a file is missing, not a route, under /static (an explanation image past its keeping time)', async () => {
    for (const url of ['/static/images/shap_explanation_20200101_000000_abcdef.png', '/static/no-such-style.css']) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'NotFound', message: `No file at ${url}`, details: { method: 'GET', path: url } });
    }
  });

  it('answers a URL that does not decode with the documented 400 body, {detail} under the text API', async () => {
    const res = await app.inject({ url: '/%00%ff' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'BadRequest', message: expect.stringMatching(/URL is malformed/), details: {} });
    const text = await app.inject({ url: '/rag/%ff' });
    expect(text.statusCode).toBe(400);
    expect(text.json()).toEqual({ detail: expect.stringMatching(/URL is malformed/) });
    // A path parameter past the router's length limit (a run id of 500 characters): 414, in the same body.
    const long = await app.inject({ url: `/api/collection/runs/${'a'.repeat(500)}` });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ error: 'URITooLong', message: expect.stringMatching(/too long/), details: {} });
  });

  it('sends the headers of every answer with errors met before routing: no sniffing, no framing, the request id', async () => {
    for (const url of ['/%00%ff', `/api/collection/runs/${'a'.repeat(500)}`]) {
      const res = await app.inject({ url, headers: { 'x-request-id': 'trace-42' } });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(res.headers['x-request-id']).toBe('trace-42');
    }
  });

  it('repeats at most 200 characters of a long unknown path', async () => {
    const long = `/${'a'.repeat(10_000)}`;
    const res = await app.inject({ url: long });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'NotFound',
      message: `No route for GET ${long.slice(0, 200)}…`,
      details: { method: 'GET', path: `${long.slice(0, 200)}…` },
    });
    const page = await app.inject({ url: long, headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(404);
    expect(page.body.length).toBeLessThan(5_000);
    expect(page.body).toContain(`${long.slice(0, 200)}…`);
  });

  it("answers what Node's HTTP parser refuses in the same body, and closes the connection", async () => {
    const server = await makeApp({});
    try {
      await server.listen({ port: 0, host: '127.0.0.1' });
      const { port } = server.server.address() as AddressInfo;
      const raw = (request: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => socket.end(request));
          let data = '';
          socket.on('data', (chunk) => (data += chunk.toString()));
          socket.on('close', () => resolve(data));
          socket.on('error', reject);
        });
      const huge = await raw(`GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      expect(huge).toMatch(/^HTTP\/1\.1 431 /);
      const head = huge.slice(0, huge.indexOf('\r\n\r\n')).toLowerCase();
      expect(head).toContain('\r\nx-content-type-options: nosniff');
      expect(head).toContain('\r\nx-frame-options: deny');
      expect(head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}/);
      expect(JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4))).toEqual({
        error: 'RequestHeaderFieldsTooLarge',
        message: expect.stringMatching(/size limit/),
        details: {},
      });
      const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
      expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4))).toEqual({
        error: 'BadRequest',
        message: 'The request is not valid HTTP',
        details: {},
      });
    } finally {
      await server.close();
    }
  });

  it('gives browsers an HTML 404 page elsewhere', async () => {
    const res = await app.inject({ url: '/nowhere', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('Page not found');
    expect(res.body).toContain('<html lang="en">');
  });

  it('hides internals in 500 bodies from clients on other machines, and tells the local operator', async () => {
    const res = await app.inject({ url: '/api/boom', remoteAddress: '203.0.113.7' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'InternalServerError', message: 'An unexpected error occurred', details: { request_id: res.headers['x-request-id'] } });
    const local = await app.inject({ url: '/api/boom' });
    expect(local.json().details.internal).toContain('secret internal detail');
  });
});

describe('error bodies of the text domain: its {detail} shape, with field errors like everywhere', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp({ RAG_INDEX_ON_START: false, BODY_LIMIT_BYTES: 4096 });
  });
  afterAll(() => app.close());

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, payload: payload as string, headers });

  it.each(['/rag/search', '/analyze/sentiment'])('%s names the failing field with loc as a path list', async (url) => {
    const body = url === '/rag/search' ? { query: 'railways', top_k: 500 } : { text: ['not', 'text'] };
    const res = await post(url, body);
    expect(res.statusCode).toBe(400);
    const { detail, errors } = res.json();
    expect(detail).toBe('Invalid input format');
    expect(errors).toEqual([
      { loc: [url === '/rag/search' ? 'top_k' : 'text'], msg: expect.any(String), type: url === '/rag/search' ? 'too_big' : 'invalid_type' },
    ]);
  });

  it.each(['/rag/search', '/rag/ask', '/analyze/sentiment'])('%s refuses unknown fields by name', async (url) => {
    const base = url === '/rag/search' ? { query: 'railways' } : url === '/rag/ask' ? { question: 'What about railways?' } : { text: 'Fine.' };
    const res = await post(url, { ...base, extra: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ loc: ['extra'], msg: 'Extra field not permitted', type: 'unrecognized_keys' }]);
  });

  it.each(['/rag/search', '/rag/ask', '/analyze/sentiment'])('%s keeps 413 (naming the limit) and 415 and explains malformed JSON', async (url) => {
    const big = await post(url, JSON.stringify({ query: 'x'.repeat(5000), question: 'x', text: 'x' }), { 'content-type': 'application/json' });
    expect(big.statusCode).toBe(413);
    // BODY_LIMIT_BYTES of this app: 4096.
    expect(big.json()).toEqual({ detail: 'Request body is larger than the service accepts (at most 4,096 bytes)' });
    const xml = await post(url, '<query>x</query>', { 'content-type': 'application/xml' });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().detail).toMatch(/Content-Type/);
    const broken = await post(url, '{"query": ', { 'content-type': 'application/json' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ detail: 'Invalid input format', reason: expect.stringMatching(/^Request body is not valid JSON/) });
  });
});
