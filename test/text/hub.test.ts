import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/infra/config.js';
import { fromRoot } from '../../src/infra/paths.js';
import { hubSettings } from '../../src/text/hub.js';
import { DEFAULT_TEXT_MODELS, HUB_PRESET, loadClassifier } from '../../src/text/models.js';
import { pullModels, pullTargets } from '../../src/text/pull.js';
import { NOT_LOADED } from '../../src/text/sentiment/service.js';
import { makeApp, tempDir } from '../helpers/app.js';
import { exactMatchCrossEncoder } from '../helpers/cross-encoder.js';
import { FakeHub } from '../helpers/fake-hub.js';
import { relabelledClassifier } from '../helpers/hub-models.js';

type Scores = { label: string; score: number }[];
const TEXTS = ['Profit rose 20% and beat expectations', 'The company filed for bankruptcy', 'The meeting will be held in Helsinki on 5 April'];
// Like Xenova/finbert, a Hub model whose labels are not in the shipped model's order.
const ORDER = ['negative', 'neutral', 'positive'];

describe('Hub models through a local fake Hub', () => {
  const hub = new FakeHub();
  const relabelled = relabelledClassifier(DEFAULT_TEXT_MODELS.sentiment, ORDER);
  const cacheDir = tempDir('model-cache-');
  const settings = () => ({ HF_ENDPOINT: hub.url, MODEL_CACHE_DIR: cacheDir });
  const analyze = (app: Awaited<ReturnType<typeof makeApp>>, text: string) => app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text } });
  let shipped: Awaited<ReturnType<typeof loadClassifier>>;

  beforeAll(async () => {
    hub.publish('test-org/finbert-compact', relabelled).publish('test-org/emotion-compact', DEFAULT_TEXT_MODELS.emotion);
    await hub.start();
    shipped = await loadClassifier(DEFAULT_TEXT_MODELS.sentiment);
  });
  afterAll(() => hub.stop());

  it('publishes a copy whose labels are in another order than the shipped model', () => {
    const labels = (dir: string) =>
      Object.values((JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { id2label: Record<string, string> }).id2label);
    expect(labels(relabelled)).toEqual(ORDER);
    expect(labels(DEFAULT_TEXT_MODELS.sentiment)).not.toEqual(ORDER);
  });

  it('loads a slow Hub sentiment model and the local emotion model at the same time, labels read from id2label', async () => {
    hub.slow.set('test-org/finbert-compact/onnx/model.onnx', 600);
    const app = await makeApp({ ...settings(), SENTIMENT_MODEL: 'test-org/finbert-compact', EMOTION_MODEL: DEFAULT_TEXT_MODELS.emotion });
    try {
      for (const text of TEXTS) {
        const res = await analyze(app, text);
        expect(res.statusCode).toBe(200);
        const expected = (await shipped(text, { top_k: null })) as Scores;
        for (const { label, score } of expected) expect(res.json().scores[label]).toBeCloseTo(score, 3);
        expect(res.json().models).toEqual({ sentiment: 'test-org/finbert-compact', emotion: DEFAULT_TEXT_MODELS.emotion });
      }
      expect(hub.downloads('test-org/finbert-compact')).toContain('onnx/model.onnx');
    } finally {
      hub.slow.clear();
      await app.close();
    }
  });

  it('loads from the cache, without a request, while the Hub is down', async () => {
    await hub.stop();
    const before = hub.requests.length;
    const app = await makeApp({ ...settings(), SENTIMENT_MODEL: 'test-org/finbert-compact' });
    try {
      const res = await analyze(app, TEXTS[1]!);
      expect(res.statusCode).toBe(200);
      expect(res.json().sentiment).toBe('negative');
      expect(hub.requests.length).toBe(before);
    } finally {
      await app.close();
      await hub.start();
    }
  });

  it('answers 503 with the model id and the reason for a missing model, and loads it on a later request', async () => {
    const app = await makeApp({ ...settings(), SENTIMENT_MODEL: 'test-org/published-later' });
    try {
      const res = await analyze(app, 'Shares jumped.');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ detail: NOT_LOADED, state: 'failed', model: 'test-org/published-later' });
      expect(res.json().reason).toMatch(/published-later\/resolve\/main\/config\.json.*has no such model/);
      const health = (await app.inject({ url: '/health' })).json().components.sentiment;
      expect(health).toMatchObject({ ready: false, failed_model: 'test-org/published-later' });
      hub.publish('test-org/published-later', DEFAULT_TEXT_MODELS.sentiment);
      expect((await analyze(app, 'Shares jumped.')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('reports a file the Hub fails to serve, and an unreachable Hub, then recovers', async () => {
    hub.publish('test-org/flaky', DEFAULT_TEXT_MODELS.sentiment);
    hub.failing.set('test-org/flaky/onnx/model.onnx', 500);
    const app = await makeApp({ ...settings(), SENTIMENT_MODEL: 'test-org/flaky' });
    try {
      const failed = (await analyze(app, 'Revenue fell.')).json();
      expect(failed).toMatchObject({
        model: 'test-org/flaky',
        reason: expect.stringMatching(/Internal server error.*flaky\/resolve\/main\/onnx\/model\.onnx/),
      });
      hub.failing.clear();
      await hub.stop();
      const down = (await analyze(app, 'Revenue fell.')).json();
      expect(down.reason).toMatch(/the Hub at http:\/\/127\.0\.0\.1:\d+ cannot be reached .* not complete in the cache/);
      await hub.start();
      expect((await analyze(app, 'Revenue fell.')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('models:pull downloads the configured Hub models into the cache, after which they load with the Hub down', async () => {
    hub.publish('test-org/rerank-compact', exactMatchCrossEncoder(['profit', 'loss']));
    const pullCache = tempDir('pull-cache-');
    const config = loadConfig({
      env: {},
      dotenvFile: null,
      overrides: { ...settings(), MODEL_CACHE_DIR: pullCache, SENTIMENT_MODEL: 'test-org/finbert-compact', RERANK_MODEL: 'test-org/rerank-compact' },
    });
    const targets = pullTargets(config);
    expect(targets.map((t) => t.role)).toEqual(['sentiment', 'emotion', 'embedder', 'reranker']);
    const progress = new Set<string>();
    const results = await pullModels(targets, hubSettings(config), (role, info) => info.status === 'progress' && progress.add(`${role} ${info.file}`));
    expect(results.map((r) => [r.role, r.status])).toEqual([
      ['sentiment', 'pulled'],
      ['emotion', 'local'],
      ['embedder', 'local'],
      ['reranker', 'pulled'],
    ]);
    expect(progress).toContain('sentiment onnx/model.onnx');
    expect(readdirSync(join(pullCache, 'test-org'))).toEqual(['finbert-compact', 'rerank-compact']);
    await hub.stop();
    try {
      const app = await makeApp({ ...settings(), MODEL_CACHE_DIR: pullCache, SENTIMENT_MODEL: 'test-org/finbert-compact' });
      expect((await analyze(app, TEXTS[0]!)).json().sentiment).toBe('positive');
      await app.close();
    } finally {
      await hub.start();
    }
  });

  it('the hub preset is the documented production set, and config/hub-models.env says the same', () => {
    const config = loadConfig({ env: {}, dotenvFile: null });
    expect(pullTargets(config, 'hub')).toEqual(Object.entries(HUB_PRESET).map(([role, id]) => ({ role, id })));
    const env = Object.fromEntries(
      readFileSync(fromRoot('config/hub-models.env'), 'utf8')
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => l.split('=') as [string, string]),
    );
    expect(env).toMatchObject({
      SENTIMENT_MODEL: HUB_PRESET.sentiment,
      EMOTION_MODEL: HUB_PRESET.emotion,
      EMBEDDING_MODEL: HUB_PRESET.embedder,
      RERANK_MODEL: HUB_PRESET.reranker,
      READER_MODEL: HUB_PRESET.reader,
    });
  });
});
