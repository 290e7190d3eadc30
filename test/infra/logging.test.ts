import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { AppError } from '../../src/infra/app-error.js';
import { testConfig } from '../helpers/app.js';

/** A log stream, and the JSON lines written to it. */
function logLines() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
  });
  return { stream, lines };
}

async function echoRoute(app: FastifyInstance) {
  app.post('/api/echo', async (req) => ({ got: req.body, token: 'tok-result' }));
}

describe('request log', () => {
  it('writes one structured line per request with payload and result, secrets redacted', async () => {
    const { stream, lines } = logLines();
    const app = await buildApp({ config: testConfig(), logStream: stream, plugins: [echoRoute] });
    await app.inject({
      method: 'POST',
      url: '/api/echo?x=1',
      payload: { name: 'Ann', api_key: 'sk-very-secret', nested: { password: 'hunter2' } },
      headers: { authorization: 'Bearer abc.def' },
    });
    await app.close();
    const requestLines = lines.filter((l) => l.msg === 'request');
    expect(requestLines).toHaveLength(1);
    const line = requestLines[0]!;
    expect(line).toMatchObject({ method: 'POST', path: '/api/echo', status: 200, client: '127.0.0.1' });
    expect(typeof line.time).toBe('string');
    expect(typeof line.duration_ms).toBe('number');
    expect(line.payload).toMatchObject({ name: 'Ann' });
    expect(line.result).toBeDefined();
    const all = JSON.stringify(lines);
    expect(all).not.toContain('sk-very-secret');
    expect(all).not.toContain('tok-result');
    expect(all).not.toContain('Bearer abc.def');
  });
});

describe('request log levels', () => {
  it('logs a 5xx at error level, a 503 the service answers on purpose at warning level, and a 503 from /ready (not ready yet) at info level', async () => {
    const { stream, lines } = logLines();
    const plugin = async (app: FastifyInstance) => {
      app.health.readiness('warming', () => 'still warming up');
      app.get('/api/broken', async () => {
        throw new Error('boom');
      });
      app.get('/api/unconfigured', async () => {
        throw new AppError(503, 'ServiceUnavailable', 'The thing cannot run: THING_KEY not set on the service');
      });
    };
    const app = await buildApp({ config: testConfig({ RAG_INDEX_ON_START: false }), logStream: stream, plugins: [plugin] });
    expect((await app.inject({ url: '/ready' })).statusCode).toBe(503);
    expect((await app.inject({ url: '/api/broken' })).statusCode).toBe(500);
    expect((await app.inject({ url: '/api/unconfigured' })).statusCode).toBe(503);
    await app.close();
    const level = (path: string) => lines.find((l) => l.msg === 'request' && l.path === path)?.level;
    // pino's numeric levels: 30 info, 40 warn, 50 error.
    expect(level('/ready')).toBe(30);
    expect(level('/api/broken')).toBe(50);
    expect(level('/api/unconfigured')).toBe(40);
  });

  it('logs errors met before routing like any other request, and a long path cut short', async () => {
    const { stream, lines } = logLines();
    const app = await buildApp({ config: testConfig({ RAG_INDEX_ON_START: false }), logStream: stream });
    const long = `/${'a'.repeat(10_000)}`;
    expect((await app.inject({ url: '/%00%ff?q=1', headers: { 'x-request-id': 'trace-7' } })).statusCode).toBe(400);
    expect((await app.inject({ url: `/api/collection/runs/${'b'.repeat(500)}` })).statusCode).toBe(414);
    expect((await app.inject({ url: long })).statusCode).toBe(404);
    await app.close();
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.find((l) => l.status === 400)).toMatchObject({ level: 40, reqId: 'trace-7', method: 'GET', path: '/%00%ff', client: '127.0.0.1' });
    expect(requests.find((l) => l.status === 400)!.error).toMatchObject({ error: 'BadRequest' });
    expect(requests.find((l) => l.status === 414)).toMatchObject({ level: 40, error: { error: 'URITooLong' } });
    const notFound = requests.find((l) => l.status === 404)!;
    expect(String(notFound.path).length).toBeLessThan(1_100);
    expect(notFound.path).toBe(`${long.slice(0, 1_000)}…`);
  });

  it('logs a request the HTTP parser refuses as a warning with its code and status, never the bytes received', async () => {
    const { stream, lines } = logLines();
    const app = await buildApp({ config: testConfig({ RAG_INDEX_ON_START: false }), logStream: stream });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end('NOT HTTP my-secret-bytes\r\n\r\n'));
      socket.on('data', () => {});
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await app.close();
    const refused = lines.find((l) => l.msg === 'request refused by the HTTP parser');
    expect(refused).toMatchObject({ level: 40, status: 400, client: '127.0.0.1', error: { error: 'BadRequest', code: expect.stringMatching(/^HPE_/) } });
    expect(refused!.reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(lines)).not.toContain('my-secret-bytes');
  });
});

describe('free text in the request log', () => {
  const SECRET = 'My diary: I secretly love the quarterly numbers of Initech.';
  const QUESTION = 'What did the quartermaster hide in the lighthouse?';

  async function logged(overrides: Parameters<typeof testConfig>[0]) {
    const { stream, lines } = logLines();
    const app = await buildApp({ config: testConfig({ RAG_INDEX_ON_START: false, ...overrides }), logStream: stream });
    await app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: SECRET } });
    await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: QUESTION } });
    await app.inject({ method: 'POST', url: '/rag/search', payload: { query: QUESTION } });
    await app.inject({ method: 'POST', url: '/api/predict', payload: { pclass: 2, sex: 'female', age: 41, sibsp: 0, parch: 0, embarked: 'S' } });
    await app.close();
    return lines.filter((l) => l.msg === 'request');
  }

  it('keeps texts, questions and queries out by default: their length and a hash instead, and no result that quotes them', async () => {
    const lines = await logged({});
    const all = JSON.stringify(lines);
    expect(all).not.toContain('Initech');
    expect(all).not.toContain('quartermaster');
    const sentiment = lines.find((l) => l.path === '/analyze/sentiment')!;
    expect(sentiment.payload).toEqual({ text: { chars: SECRET.length, sha256: expect.stringMatching(/^[0-9a-f]{16}$/) } });
    expect(sentiment.result).toMatchObject({ sentiment: expect.any(String), num_chunks: 1 });
    const ask = lines.find((l) => l.path === '/rag/ask')!;
    expect(ask.payload).toMatchObject({ question: { chars: QUESTION.length } });
    // The same text gives the same hash: two requests can be matched without reading them.
    const search = lines.find((l) => l.path === '/rag/search')!;
    expect((search.payload as { query: { sha256: string } }).query.sha256).toBe((ask.payload as { question: { sha256: string } }).question.sha256);
    // Survival payloads are no one's free text: kept as they are.
    expect(lines.find((l) => l.path === '/api/predict')!.payload).toMatchObject({ pclass: 2, age: 41 });
  });

  it('keeps a text sent to no route out too (a wrong method or a mistyped path): its length and a hash', async () => {
    const { stream, lines } = logLines();
    const app = await buildApp({ config: testConfig({ RAG_INDEX_ON_START: false }), logStream: stream });
    expect((await app.inject({ method: 'PUT', url: '/analyze/sentiment', payload: { text: SECRET } })).statusCode).toBe(405);
    expect((await app.inject({ method: 'POST', url: '/analyze/sentimnt', payload: { text: SECRET } })).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/rag/ask', payload: { question: QUESTION } })).statusCode).toBe(405);
    await app.close();
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.map((l) => l.status).sort()).toEqual([404, 405, 405]);
    const all = JSON.stringify(lines);
    expect(all).not.toContain('Initech');
    expect(all).not.toContain('quartermaster');
    const put = requests.find((l) => l.method === 'PUT')!;
    // JSON.stringify of the parsed body: {"text":"..."} is the text and 11 more characters.
    expect(put.payload).toEqual({ unrouted: { chars: SECRET.length + 11, sha256: expect.stringMatching(/^[0-9a-f]{16}$/) } });
    expect(requests.find((l) => l.method === 'DELETE')!.payload).toEqual({ unrouted: { chars: QUESTION.length + 15, sha256: expect.any(String) } });
  });

  it('logs them as they are with LOG_TEXT=true', async () => {
    const all = JSON.stringify(await logged({ LOG_TEXT: true }));
    expect(all).toContain('Initech');
    expect(all).toContain('quartermaster');
  });
});
