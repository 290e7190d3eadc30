// 500 generated and mutated requests to every JSON operation (npm run fuzz sends 10,000): nothing answers 500 or
// above, and the service stays up.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { type EndpointReport, fuzz, operations } from '../../scripts/lib/fuzz.js';
import { makeApp } from '../helpers/app.js';
import { exactMatchCrossEncoder } from '../helpers/cross-encoder.js';

const ops = operations(parse(readFileSync(fromRoot('static/openapi.yaml'), 'utf8')) as Parameters<typeof operations>[0]);

describe('fuzzed requests', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  let report: Record<string, EndpointReport>;

  beforeAll(async () => {
    app = await makeApp({
      CATALOG_BASE_URL: 'http://127.0.0.1:9',
      RATINGS_BASE_URL: 'http://127.0.0.1:9',
      CATALOG_API_KEY: 'fuzz',
      RATINGS_API_KEY: 'fuzz',
      RERANK_MODEL: exactMatchCrossEncoder(['the', 'war', 'people', 'congress', 'nation']),
      // Inputs are on trial here, not load: beside the rest of the suite on a small machine the event loop can lag past
      // the load-shedding threshold, and its 503s (correct under load) would hide what the bodies did.
      MAX_EVENT_LOOP_DELAY_MS: 0,
    });
    await Promise.all([app.movies.start(), app.rag.start()]);
    while ((await app.inject({ url: '/ready' })).statusCode !== 200) await new Promise((r) => setTimeout(r, 100));
    report = await fuzz(app, ops, { perEndpoint: 500, seed: 20261123, alive: async () => (await app.inject({ url: '/live' })).statusCode === 200 });
  }, 600_000);
  afterAll(() => app?.close());

  it('covers every operation of the OpenAPI document', () => {
    expect(Object.keys(report)).toHaveLength(ops.length);
    expect(Object.keys(report)).toEqual(expect.arrayContaining(['POST /api/predict', 'POST /analyze/sentiment', 'POST /rag/ask', 'POST /api/collection/run']));
    for (const r of Object.values(report)) expect(r.requests).toBe(500);
  });

  it('never answers 500 or above', () => {
    const failures = Object.entries(report).flatMap(([op, r]) => r.failures.map((f) => ({ op, ...f })));
    expect(failures).toEqual([]);
  });

  it('refuses mutated bodies with a 4xx and still accepts the valid ones', () => {
    // Not these two: /predict checks its CSV-style strings beyond what the OpenAPI schema can say, and unfreezing needs
    // a movie that exists.
    const skip = new Set(['POST /predict', 'POST /api/collection/movies/{tmdb_id}/unfreeze']);
    for (const [op, r] of Object.entries(report)) {
      if (!op.startsWith('POST') || skip.has(op)) continue;
      const ok = Object.entries(r.statuses)
        .filter(([s]) => Number(s) < 300)
        .reduce((n, [, c]) => n + c, 0);
      const refused = Object.entries(r.statuses)
        .filter(([s]) => Number(s) >= 400 && Number(s) < 500)
        .reduce((n, [, c]) => n + c, 0);
      expect(ok, op).toBeGreaterThan(0);
      expect(refused, op).toBeGreaterThan(0);
    }
  });
});
