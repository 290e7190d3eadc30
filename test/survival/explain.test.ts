import { copyFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { DiskImageStore } from '../../src/survival/explain/image-store.js';
import { makeApp, tempDir } from '../helpers/app.js';

const woman = { pclass: 1, sex: 'female', age: 29, sibsp: 0, parch: 0, embarked: 'C' };
const NAME = /^\/static\/images\/shap_explanation_\d{8}_\d{6}_[0-9a-f]+\.png$/;

/** Share of pixels that are not white: a blank or nearly blank image has almost none. */
async function inkShare(png: Buffer) {
  const img = await loadImage(png);
  const c = createCanvas(img.width, img.height);
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const data = ctx.getImageData(0, 0, img.width, img.height).data;
  let ink = 0;
  let colored = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i]! < 240 || data[i + 1]! < 240 || data[i + 2]! < 240) ink++;
    if (Math.abs(data[i]! - data[i + 2]!) > 80) colored++;
  }
  return { width: img.width, height: img.height, ink: ink / (data.length / 4), colored: colored / (data.length / 4) };
}

describe('explanations', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp({ IMAGES_MAX_COUNT: 60 });
  });
  afterAll(() => app.close());

  const explain = (body: object) => app.inject({ method: 'POST', url: '/api/explain', payload: body });

  it('answers the spec fields, with values that add up to the raw output', async () => {
    const res = await explain(woman);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const predicted = (await app.inject({ method: 'POST', url: '/api/predict', payload: woman })).json();
    expect(body.prediction).toBe(predicted.prediction);
    expect(body.probability).toBe(predicted.probability);
    expect(body.plot_type).toBe('waterfall');
    expect(body.explanation_image_url).toMatch(NAME);
    expect(Object.keys(body.top_features)).toHaveLength(5);
    const sum = Object.values(body.shap_values as Record<string, number>).reduce((s, v) => s + v, 0);
    expect(body.base_value + sum).toBeCloseTo(body.raw_output, 4);
    expect(1 / (1 + Math.exp(-body.raw_output))).toBeCloseTo(body.probability, 5);
    expect(body.feature_values).toMatchObject({ Age: 29, Sex_female: 1, Pclass_1: 1, Embarked_C: 1 });
    // top_features are the five largest magnitudes, signed.
    const sorted = Object.entries(body.shap_values as Record<string, number>).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
    expect(body.top_features).toEqual(Object.fromEntries(sorted.slice(0, 5)));
    expect(body.top_features.Sex_female ?? body.top_features.Sex_male).toBeDefined();
    expect(body.shap_values.Sex_female).toBeGreaterThan(0);
  });

  it.each(['waterfall', 'force', 'bar'])('draws a %s plot as a PNG with real content', async (plot_type) => {
    const body = (await explain({ ...woman, plot_type })).json();
    const img = await app.inject({ url: body.explanation_image_url });
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
    expect(img.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    const stats = await inkShare(img.rawPayload);
    expect(stats.width).toBe(900);
    expect(stats.height).toBeGreaterThan(250);
    expect(stats.ink).toBeGreaterThan(0.03);
    expect(stats.colored).toBeGreaterThan(0.005);
  });

  it('refuses an unknown plot type with loc plot_type', async () => {
    const res = await explain({ ...woman, plot_type: 'pie' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors[0].loc).toEqual(['plot_type']);
  });

  it('gives values without an image through /api/predict explain: true', async () => {
    const dir = join(app.config.DATA_DIR, 'images');
    const before = readdirSync(dir).length;
    const res = await app.inject({ method: 'POST', url: '/api/predict', payload: { ...woman, explain: true } });
    const body = res.json();
    expect(body.explanation.top_features).toBeDefined();
    expect(body.explanation.base_value).toBeTypeOf('number');
    expect(readdirSync(dir).length).toBe(before);
    const plain = (await app.inject({ method: 'POST', url: '/api/predict', payload: woman })).json();
    expect(plain.explanation).toBeUndefined();
  });

  it('writes 50 distinct, complete files for 50 concurrent requests', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => explain({ ...woman, age: 20 + (i % 5), plot_type: 'bar' })));
    const urls = responses.map((r) => r.json().explanation_image_url as string);
    expect(new Set(urls).size).toBe(50);
    for (const url of urls) {
      const img = await app.inject({ url });
      expect(img.statusCode).toBe(200);
      expect((await inkShare(img.rawPayload)).width).toBe(900);
    }
  });

  it('serves the model card with global importance and its plot', async () => {
    const body = (await app.inject({ url: '/api/model' })).json();
    expect(body.card.version).toBe('1.0.0');
    expect(body.card.cv_metrics.mean.accuracy).toBeGreaterThan(0.8);
    const importance = Object.entries(body.global_importance as Record<string, number>);
    expect(importance.length).toBe(21);
    expect(importance.every(([, v]) => v >= 0)).toBe(true);
    const png = await app.inject({ url: body.importance_image_url });
    expect(png.headers['content-type']).toBe('image/png');
    expect((await inkShare(png.rawPayload)).ink).toBeGreaterThan(0.03);
  });
});

describe('image retention', () => {
  it('keeps the folder within the configured count under load', async () => {
    const app = await makeApp({ IMAGES_MAX_COUNT: 10 });
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 15 }, () => app.inject({ method: 'POST', url: '/api/explain', payload: { ...woman, plot_type: 'bar' } })));
    }
    await app.explainer['store'].prune();
    const files = readdirSync(join(app.config.DATA_DIR, 'images'));
    expect(files.filter((f) => f.endsWith('.png')).length).toBeLessThanOrEqual(10);
    expect(files.some((f) => f.startsWith('.tmp-'))).toBe(false);
    await app.close();
  });

  it('removes images older than the maximum age, oldest first, and never temporary files', async () => {
    const dir = tempDir('images-');
    const { default: pino } = await import('pino');
    const store = new DiskImageStore({ dir, maxCount: 3, maxAgeS: 3600, log: pino({ level: 'silent' }) });
    const old = await store.save(Buffer.from('old'), new Date(Date.now() - 2 * 3600_000));
    const names = [];
    for (let i = 0; i < 4; i++) names.push(await store.save(Buffer.from(`n${i}`), new Date(Date.now() - (4 - i) * 1000)));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, '.tmp-shap_explanation_20000101_000000_aa.png'), 'in progress');
    await store.prune();
    const left = readdirSync(dir).sort();
    expect(left).not.toContain(old);
    expect(left).not.toContain(names[0]);
    expect(left).toEqual(expect.arrayContaining(names.slice(1)));
    expect(left).toContain('.tmp-shap_explanation_20000101_000000_aa.png');
  });
});

describe('explanations without the plotting library', () => {
  it('answers 500 DependencyError while predictions keep working', async () => {
    const app = await makeApp({}, { deps: { loadCanvas: () => Promise.reject(new Error("Cannot find module '@napi-rs/canvas'")) } });
    const res = await app.inject({ method: 'POST', url: '/api/explain', payload: woman });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({
      error: 'DependencyError',
      message: expect.stringContaining('npm install @napi-rs/canvas'),
      // The test's client is local, so an operator: it gets the cause too.
      details: { exception: 'the plotting library could not be loaded', internal: expect.stringContaining('@napi-rs/canvas') },
    });
    expect((await app.inject({ method: 'POST', url: '/api/predict', payload: woman })).statusCode).toBe(200);
    await app.close();
  });

  it('answers 500 ExplanationError when the model is missing (and PredictionError for predictions)', async () => {
    const app = await makeApp({ MODEL_PATH: 'models/survival/missing.onnx' });
    const res = await app.inject({ method: 'POST', url: '/api/predict', payload: { ...woman, explain: true } });
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toBe('PredictionError');
    const ex = await app.inject({ method: 'POST', url: '/api/explain', payload: woman });
    expect(ex.statusCode).toBe(500);
    expect(ex.json()).toMatchObject({ error: 'ExplanationError', message: 'The model is not loaded, so nothing can be explained' });
    await app.close();
  });

  it('answers 500 ExplanationError when the image cannot be stored, and keeps predicting', async () => {
    const app = await makeApp({});
    try {
      rmSync(join(app.config.DATA_DIR, 'images'), { recursive: true, force: true });
      const ex = await app.inject({ method: 'POST', url: '/api/explain', payload: woman });
      expect(ex.statusCode).toBe(500);
      expect(ex.json()).toMatchObject({ error: 'ExplanationError', message: 'An error occurred while explaining the prediction' });
      expect(ex.json().details).toMatchObject({ exception: 'the image could not be stored', internal: expect.stringMatching(/ENOENT/) });
      expect((await app.inject({ method: 'POST', url: '/api/predict', payload: woman })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('starts with an unreadable model card: predictions work, /api/model says why it has no card', async () => {
    const dir = tempDir('card-');
    for (const f of ['model.onnx', 'preprocessor.json']) copyFileSync(fromRoot(`models/survival/${f}`), join(dir, f));
    writeFileSync(join(dir, 'model-card.json'), '{"version": "1.0.0", "metrics": {');
    const app = await makeApp({ MODEL_PATH: join(dir, 'model.onnx'), PREPROCESSOR_PATH: join(dir, 'preprocessor.json') });
    try {
      expect((await app.inject({ method: 'POST', url: '/api/predict', payload: woman })).statusCode).toBe(200);
      const model = await app.inject({ url: '/api/model' });
      expect(model.statusCode).toBe(500);
      expect(model.json()).toMatchObject({ error: 'ModelError', details: { internal: expect.stringMatching(/model-card\.json: .*JSON/) } });
      expect((await app.inject({ url: '/health' })).json().components.survival).toMatchObject({
        ready: true,
        card_error: expect.stringContaining('model-card.json'),
      });
    } finally {
      await app.close();
    }
  });
});
