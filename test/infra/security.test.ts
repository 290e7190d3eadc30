// What an anonymous client can learn from the service, and what the log keeps: error bodies without internals, the
// images folder served by name only, malformed free text hashed in the log, validation errors of bounded size.
import { copyFileSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { fromRoot } from '../../src/infra/paths.js';
import { makeApp, tempDir, testConfig } from '../helpers/app.js';

type App = Awaited<ReturnType<typeof makeApp>>;

/** A client on another machine: no operator, whatever the service's mode. */
const REMOTE = '203.0.113.7';
const remote = { remoteAddress: REMOTE, headers: { host: 'service.example' } };
const woman = { pclass: 1, sex: 'female', age: 29, sibsp: 0, parch: 0, embarked: 'C' };

/** What an error body must never hold for an anonymous client: file paths, host names and ports, errno codes. */
function expectNoInternals(body: string, ...secrets: string[]) {
  for (const s of secrets) expect(body).not.toContain(s);
  expect(body).not.toMatch(/E[A-Z]{3,}:|ENO[A-Z]+|\/(tmp|var|home|srv|opt|usr)\/|\.(onnx|json|ts|js)\b|127\.0\.0\.1|huggingface/);
}

describe('error bodies name the kind of failure and the request id, not the internals', () => {
  it('/api/predict without its model: a safe exception for anonymous clients, the cause for operators', async () => {
    const dir = tempDir('no-model-');
    const app = await makeApp({ MODEL_PATH: join(dir, 'missing.onnx') });
    try {
      const res = await app.inject({ method: 'POST', url: '/api/predict', payload: woman, ...remote });
      expect(res.statusCode).toBe(500);
      const body = res.json();
      expect(body).toMatchObject({ error: 'PredictionError', message: 'An error occurred during prediction' });
      expect(body.details).toEqual({ exception: expect.any(String), request_id: res.headers['x-request-id'] });
      expectNoInternals(res.body, dir, 'missing.onnx');
      // The service's own machine is an operator (no ADMIN_TOKEN, no proxy): it is told the cause.
      const local = (await app.inject({ method: 'POST', url: '/api/predict', payload: woman })).json();
      expect(local.details.exception).toBe(body.details.exception);
      expect(local.details.internal).toContain('missing.onnx');
    } finally {
      await app.close();
    }
  });

  it('/api/explain with an images folder that cannot be written (ENOTDIR) hides the path', async () => {
    const app = await makeApp({});
    try {
      const images = join(app.config.DATA_DIR, 'images');
      rmSync(images, { recursive: true, force: true });
      writeFileSync(images, 'a file where the folder was');
      const res = await app.inject({ method: 'POST', url: '/api/explain', payload: woman, ...remote });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ error: 'ExplanationError', details: { exception: expect.any(String), request_id: res.headers['x-request-id'] } });
      expectNoInternals(res.body, app.config.DATA_DIR, 'ENOTDIR', 'shap_explanation');
      expect((await app.inject({ method: 'POST', url: '/api/predict', payload: woman, ...remote })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('DependencyError and ModelError keep their kinds and say what is missing without paths', async () => {
    const dir = tempDir('card-');
    for (const f of ['model.onnx', 'preprocessor.json']) copyFileSync(fromRoot(`models/survival/${f}`), join(dir, f));
    writeFileSync(join(dir, 'model-card.json'), '{"version": "1.0.0", "metrics": {');
    const missing = "Cannot find module '/opt/service/node_modules/@napi-rs/canvas/skia.linux-x64-gnu.node'";
    const app = await makeApp(
      { MODEL_PATH: join(dir, 'model.onnx'), PREPROCESSOR_PATH: join(dir, 'preprocessor.json') },
      { deps: { loadCanvas: () => Promise.reject(new Error(missing)) } },
    );
    try {
      const ex = await app.inject({ method: 'POST', url: '/api/explain', payload: woman, ...remote });
      expect(ex.statusCode).toBe(500);
      expect(ex.json()).toMatchObject({ error: 'DependencyError', message: expect.stringContaining('npm install @napi-rs/canvas') });
      expectNoInternals(ex.body, '/opt/service');
      const model = await app.inject({ url: '/api/model', ...remote });
      expect(model.statusCode).toBe(500);
      expect(model.json()).toMatchObject({ error: 'ModelError', details: { exception: expect.any(String), request_id: expect.any(String) } });
      expectNoInternals(model.body, dir, 'model-card');
    } finally {
      await app.close();
    }
  });

  it("puts the cause in the request's log line", async () => {
    const dir = tempDir('no-model-');
    const stream = new PassThrough();
    let log = '';
    stream.on('data', (c: Buffer) => (log += c.toString()));
    const app = await buildApp({ config: testConfig({ MODEL_PATH: join(dir, 'missing.onnx') }), logStream: stream });
    try {
      const res = await app.inject({ method: 'POST', url: '/api/predict', payload: woman, ...remote });
      expect(res.statusCode).toBe(500);
    } finally {
      await app.close();
    }
    const line = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.path === '/api/predict');
    expect(line).toMatchObject({ status: 500, internal: expect.stringContaining('missing.onnx') });
  });

  it('APP_DEBUG in development shows the cause to everyone', async () => {
    const dir = tempDir('no-model-');
    const app = await makeApp({ MODEL_PATH: join(dir, 'missing.onnx'), APP_ENV: 'development', APP_DEBUG: true });
    try {
      const res = await app.inject({ method: 'POST', url: '/api/predict', payload: woman, ...remote });
      expect(res.json().details.internal).toContain('missing.onnx');
    } finally {
      await app.close();
    }
  });

  it('an ADMIN_TOKEN holder is an operator; a wrong token or none is not', async () => {
    const dir = tempDir('no-model-');
    const app = await makeApp({ MODEL_PATH: join(dir, 'missing.onnx'), ADMIN_TOKEN: 'tok-0123456789abcdef' });
    try {
      const send = (authorization?: string) =>
        app.inject({ method: 'POST', url: '/api/predict', payload: woman, remoteAddress: REMOTE, headers: authorization ? { authorization } : {} });
      expect((await send('Bearer tok-0123456789abcdef')).json().details.internal).toContain('missing.onnx');
      for (const auth of [undefined, 'Bearer tok-0123456789abcdeX', 'Bearer tok', 'Basic tok-0123456789abcdef']) {
        const res = await send(auth);
        expect(res.statusCode).toBe(500);
        expectNoInternals(res.body, dir, 'missing.onnx');
      }
      // With a token, even the service's own machine needs it.
      expectNoInternals((await app.inject({ method: 'POST', url: '/api/predict', payload: woman })).body, dir);
    } finally {
      await app.close();
    }
  });

  it('the collection API names a database it cannot open without its cause, which only the log and operators get', async () => {
    const app = await makeApp(
      { ADMIN_TOKEN: 'tok-0123456789abcdef' },
      {
        movies: {
          settings: () => {
            throw new Error('/etc/service/collection.yaml: getaddrinfo ENOTFOUND db.internal.example');
          },
        },
      },
    );
    try {
      const res = await app.inject({ url: '/api/collection/status', remoteAddress: REMOTE, headers: { authorization: 'Bearer tok-0123456789abcdef' } });
      expect(res.statusCode).toBe(503);
      const { details } = res.json();
      expect(details.request_id).toBe(res.headers['x-request-id']);
      expectNoInternals(JSON.stringify(details.exception), 'db.internal.example', 'collection.yaml');
      expect(details.internal).toContain('db.internal.example');
    } finally {
      await app.close();
    }
  });

  it('sentiment models that cannot be fetched: 503 without the Hub, the cache folder or the model id', async () => {
    const cache = tempDir('sentiment-cache-');
    const app = await makeApp({ HF_ENDPOINT: 'http://127.0.0.1:9', MODEL_CACHE_DIR: cache, SENTIMENT_MODEL: 'test-org/unreachable-sentiment' });
    try {
      const send = (opts: object) => app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Shares jumped.' }, ...opts });
      const res = await send(remote);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ detail: 'Sentiment models not loaded. Please try again later.', request_id: res.headers['x-request-id'] });
      expectNoInternals(res.body, cache, 'unreachable-sentiment');
      expect((await send({})).json().reason).toContain(cache);
    } finally {
      await app.close();
    }
  });

  it('a reranked search whose cross-encoder cannot be fetched names neither the Hub nor the cache folder', async () => {
    const docs = tempDir('rerank-docs-');
    const cache = tempDir('rerank-cache-');
    writeFileSync(join(docs, 'navy.txt'), 'The navy built three new ironclad ships in 1862 at the Boston yard.');
    const app = await makeApp({
      DOCS_DIR: docs,
      RAG_INDEX_ON_START: false,
      HF_ENDPOINT: 'http://127.0.0.1:9',
      MODEL_CACHE_DIR: cache,
      RERANK_MODEL: 'test-org/cross-encoder',
    });
    try {
      expect((await app.inject({ method: 'POST', url: '/rag/index', payload: {} })).statusCode).toBe(200);
      const search = () => app.inject({ method: 'POST', url: '/rag/search', payload: { query: 'ironclad ships', rerank: true }, ...remote });
      const res = await search();
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toMatch(/^Reranking is not available/);
      expect(res.json().request_id).toBe(res.headers['x-request-id']);
      expectNoInternals(res.body, cache, 'test-org/cross-encoder');
      const ask = await app.inject({
        method: 'POST',
        url: '/rag/search',
        payload: { query: 'ironclad ships', rerank: true },
      });
      expect(ask.json().internal).toContain(cache);
    } finally {
      await app.close();
    }
  });
});

describe('health reports name a failed component by its kind, not its cause', () => {
  const TOKEN = 'tok-0123456789abcdef';

  it('/health, /ready and the home page say which component failed to load; the cause goes to operators and the log', async () => {
    const dir = tempDir('no-model-');
    const cache = tempDir('sentiment-cache-');
    const secrets = [dir, cache, 'missing.onnx', 'unreachable-sentiment'];
    const stream = new PassThrough();
    let log = '';
    stream.on('data', (c: Buffer) => (log += c.toString()));
    const config = testConfig({
      MODEL_PATH: join(dir, 'missing.onnx'),
      HF_ENDPOINT: 'http://127.0.0.1:9',
      MODEL_CACHE_DIR: cache,
      SENTIMENT_MODEL: 'test-org/unreachable-sentiment',
      ADMIN_TOKEN: TOKEN,
      RAG_INDEX_ON_START: false,
    });
    const app = await buildApp({ config, logStream: stream });
    try {
      // The first use loads the sentiment models, which fail.
      expect((await app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Shares jumped.' }, ...remote })).statusCode).toBe(503);
      const res = await app.inject({ url: '/health', ...remote });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ status: 'degraded', model_loaded: false });
      expect(body.components.survival).toMatchObject({ ready: false, model_loaded: false, error: 'load_failed' });
      expect(body.components.sentiment).toMatchObject({ ready: false, state: 'failed', error: 'load_failed' });
      expectNoInternals(res.body, ...secrets);
      const ready = await app.inject({ url: '/ready', ...remote });
      expect(ready.json().waiting_for.survival).toBe('survival model not loaded');
      expectNoInternals(ready.body, ...secrets);
      const home = await app.inject({ url: '/', remoteAddress: REMOTE, headers: { host: 'service.example', accept: 'text/html' } });
      expect(home.statusCode).toBe(200);
      // (Its facts name the configured models on purpose: the model id is no cause.)
      for (const s of [dir, cache, 'missing.onnx', '127.0.0.1']) expect(home.body).not.toContain(s);

      const operator = { remoteAddress: REMOTE, headers: { authorization: `Bearer ${TOKEN}` } };
      const full = (await app.inject({ url: '/health', ...operator })).json();
      expect(full.components.survival.error).toContain('missing.onnx');
      expect(full.components.sentiment.error).toContain(cache);
      expect((await app.inject({ url: '/ready', ...operator })).json().waiting_for.survival).toContain('missing.onnx');
    } finally {
      await app.close();
    }
    const withheld = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { component?: string; internal?: { error?: string } });
    expect(withheld.find((l) => l.component === 'survival')?.internal?.error).toContain('missing.onnx');
    expect(withheld.find((l) => l.component === 'sentiment')?.internal?.error).toContain(cache);
  });
});

describe('explanation images are served by name, from the folder itself', () => {
  let app: App;
  let images: string;
  const outside = tempDir('outside-');
  const NAME = 'shap_explanation_20260101_000000_abcdef.png';
  beforeAll(async () => {
    app = await makeApp({});
    images = join(app.config.DATA_DIR, 'images');
    writeFileSync(join(outside, 'secret.png'), 'OUTSIDE-SECRET');
    mkdirSync(join(outside, 'dir'));
    writeFileSync(join(outside, 'dir', 'inner.png'), 'OUTSIDE-SECRET');
  });
  afterAll(() => app.close());

  it('serves an image whose name has the pattern', async () => {
    writeFileSync(join(images, NAME), 'png-bytes');
    const res = await app.inject({ url: `/static/images/${NAME}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.body).toBe('png-bytes');
    expect((await app.inject({ method: 'HEAD', url: `/static/images/${NAME}` })).statusCode).toBe(200);
  });

  it.each([
    ['a symlink with an image name', (n: string) => symlinkSync(join(outside, 'secret.png'), join(images, n)), 'shap_explanation_20260101_000000_aaaaaa.png'],
    ['a hard link to a file outside', (n: string) => linkSync(join(outside, 'secret.png'), join(images, n)), 'shap_explanation_20260101_000000_bbbbbb.png'],
    ['any other name', (n: string) => writeFileSync(join(images, n), 'OUTSIDE-SECRET'), 'notes.txt'],
    ['a file still being written', (n: string) => writeFileSync(join(images, n), 'OUTSIDE-SECRET'), `.tmp-${NAME}`],
    ['a symlinked folder', (n: string) => symlinkSync(join(outside, 'dir'), join(images, n)), 'linked'],
  ])('refuses %s', async (_label, make, name) => {
    make(name);
    const res = await app.inject({ url: `/static/images/${name}` });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('OUTSIDE-SECRET');
    // A path below it is no image name at all (403 for a hidden name, 404 otherwise).
    const nested = await app.inject({ url: `/static/images/${name}/inner.png` });
    expect([403, 404]).toContain(nested.statusCode);
    expect(nested.body).not.toContain('OUTSIDE-SECRET');
  });
});

describe('malformed requests keep users’ free text out of the log', () => {
  const MARK = 'Zanzibarquux';
  const text = `${MARK} my diary about the quarterly numbers`;

  it.each([
    ['/analyze/sentiment', 'no Content-Type', {}, text],
    ['/analyze/sentiment', 'a form (curl -d)', { 'content-type': 'application/x-www-form-urlencoded' }, text],
    ['/analyze/sentiment', 'plain text', { 'content-type': 'text/plain' }, text],
    ['/analyze/sentiment', '`text` as an array', { 'content-type': 'application/json' }, JSON.stringify({ text: [text] })],
    ['/analyze/sentiment', '`Text` capitalised', { 'content-type': 'application/json' }, JSON.stringify({ Text: text })],
    ['/analyze/sentiment', 'the text as a key', { 'content-type': 'application/json' }, JSON.stringify({ [text]: '' })],
    ['/analyze/sentiment', 'an extra field', { 'content-type': 'application/json' }, JSON.stringify({ text, more: text })],
    ['/analyze/sentiment', 'broken JSON', { 'content-type': 'application/json' }, `{"text": "${text}"`],
    ['/rag/search', '`Query` capitalised', { 'content-type': 'application/json' }, JSON.stringify({ Query: text })],
    ['/rag/ask', '`question` as an object', { 'content-type': 'application/json' }, JSON.stringify({ question: { text } })],
    ['/sentiment', 'a page form with `Text`', { 'content-type': 'application/x-www-form-urlencoded' }, `Text=${encodeURIComponent(text)}`],
    ['/sentiment', 'a page form with `text` twice', { 'content-type': 'application/x-www-form-urlencoded' }, `text=${encodeURIComponent(text)}&text=x`],
  ])('%s: %s', async (url, _label, headers, payload) => {
    const stream = new PassThrough();
    let log = '';
    stream.on('data', (c: Buffer) => (log += c.toString()));
    const app = await buildApp({ config: testConfig({ RAG_INDEX_ON_START: false }), logStream: stream });
    try {
      const res = await app.inject({ method: 'POST', url, headers, payload });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    } finally {
      await app.close();
    }
    const line = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.path === url);
    expect(line).toBeDefined();
    expect(log).not.toContain(MARK);
    // The body is still there as a length and a hash, so that two requests can be matched.
    if (line!.payload !== undefined) expect(JSON.stringify(line!.payload)).toMatch(/"chars":\d+,"sha256":"[0-9a-f]{16}"/);
  });
});

describe('validation errors are bounded', () => {
  let app: App;
  beforeAll(async () => {
    app = await makeApp({ RAG_INDEX_ON_START: false });
  });
  afterAll(() => app.close());

  it('a batch of 1,000 empty passengers gets the first 20 issues and their count, not a body 100 times the request', async () => {
    const one = (await app.inject({ method: 'POST', url: '/api/predict/batch', payload: { passengers: [{}] } })).json();
    const perPassenger = one.details.errors.length;
    expect(perPassenger).toBeGreaterThan(1);
    const payload = JSON.stringify({ passengers: Array.from({ length: 1000 }, () => ({})) });
    const res = await app.inject({ method: 'POST', url: '/api/predict/batch', payload, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ error: 'ValidationError', message: 'Invalid input data' });
    expect(body.details.errors).toHaveLength(20);
    expect(body.details.error_count).toBe(1000 * perPassenger);
    // The first issues are those of the first passengers, in order.
    expect(body.details.errors[0].loc).toEqual(['passengers', '0', one.details.errors[0].loc[2]]);
    expect(res.body.length).toBeLessThan(2 * payload.length);
  });

  it('the text routes bound theirs the same way (a thousand unknown fields)', async () => {
    const payload = JSON.stringify({ query: 'ships', ...Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 0])) });
    const res = await app.inject({ method: 'POST', url: '/rag/search', payload, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.errors).toHaveLength(20);
    expect(body.error_count).toBe(1000);
    expect(res.body.length).toBeLessThan(payload.length);
  });

  it('a short list is given whole, without a count', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/predict', payload: { ...woman, age: 101 } });
    expect(res.json().details).toEqual({ errors: [expect.objectContaining({ loc: ['age'] })] });
  });
});
