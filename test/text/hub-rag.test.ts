import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEXT_MODELS } from '../../src/text/models.js';
import { makeApp, tempDir } from '../helpers/app.js';
import { exactMatchCrossEncoder } from '../helpers/cross-encoder.js';
import { FakeHub } from '../helpers/fake-hub.js';
import { widenedEmbedder } from '../helpers/hub-models.js';

type App = Awaited<ReturnType<typeof makeApp>>;
type Hit = { text: string; source: string; semantic_score: number; rerank_score?: number };

// The fixture cross-encoder's logit: the share of the query's known words found in the passage.
const RERANK_WORDS = ['ironclad', 'ships', 'navy', 'build', 'schools', 'teachers', 'farmers', 'wheat'];
const expectedLogit = (query: string, passage: string) => {
  const known = (query.toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => RERANK_WORDS.includes(w));
  const words = new Set(passage.toLowerCase().match(/\p{L}+/gu));
  return known.filter((w) => words.has(w)).length / known.length;
};

describe('document search with Hub models', () => {
  const hub = new FakeHub();
  const docs = tempDir('hub-docs-');
  const dataDir = tempDir('hub-rag-data-');
  const wide = widenedEmbedder(DEFAULT_TEXT_MODELS.embedder, 2);
  let app: App | null = null;
  const hubConfig = () => ({ HF_ENDPOINT: hub.url, MODEL_CACHE_DIR: tempDir('hub-rag-cache-'), DOCS_DIR: docs, RAG_INDEX_ON_START: false });
  const post = (a: App, url: string, payload: object) => a.inject({ method: 'POST', url, payload });

  beforeAll(async () => {
    writeFileSync(
      join(docs, 'navy.txt'),
      'The Secretary of the Navy reported that the navy built three new ironclad ships in 1862 at the Boston yard. The ships cost four million dollars.',
    );
    writeFileSync(
      join(docs, 'schools.txt'),
      'Public schools in Ohio enrolled more children than ever. Teachers asked Congress for better pay for the schools.',
    );
    writeFileSync(join(docs, 'farms.txt'), 'Farmers in Kansas harvested record wheat crops. Prices of corn and wheat fell sharply in the autumn.');
    hub.publish('test-org/embedder-wide', wide.dir).publish('test-org/cross-encoder', exactMatchCrossEncoder(RERANK_WORDS));
    await hub.start();
  });
  afterAll(async () => {
    await app?.close();
    await hub.stop();
  });

  it('refuses a collection built by an embedder of another dimension with 409 until a full re-index, then ranks as before', async () => {
    app = await makeApp({ ...hubConfig(), DATA_DIR: dataDir });
    expect((await post(app, '/rag/index', {})).statusCode).toBe(200);
    const before = (await post(app, '/rag/search', { query: 'ironclad ships of the navy', top_k: 3 })).json().results as Hit[];
    await app.close();

    app = await makeApp({ ...hubConfig(), DATA_DIR: dataDir, EMBEDDING_MODEL: 'test-org/embedder-wide' });
    const refused = await post(app, '/rag/search', { query: 'ironclad ships of the navy' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(
      /indexed with models\/text\/embedder \(100 dimensions\) but the service now uses test-org\/embedder-wide \(200\).*re-index/,
    );
    expect((await post(app, '/rag/index', { full: true })).statusCode).toBe(200);
    const after = (await post(app, '/rag/search', { query: 'ironclad ships of the navy', top_k: 3 })).json().results as Hit[];
    // The wide copy repeats each vector, so cosines and therefore the ranking are the same.
    expect(after.map((h) => h.source)).toEqual(before.map((h) => h.source));
    after.forEach((h, i) => expect(h.semantic_score).toBeCloseTo(before[i]!.semantic_score, 3));
    expect((await app.inject({ url: '/rag/stats' })).json().embedder).toEqual({ id: 'test-org/embedder-wide', dim: wide.dim });
    await app.close();
    app = null;
  });

  it('reranks /rag/search with a Hub cross-encoder, whose scores are its logits', async () => {
    app = await makeApp({ ...hubConfig(), RERANK_MODEL: 'test-org/cross-encoder' });
    await post(app, '/rag/index', {});
    const query = 'ironclad ships navy schools';
    const hits = (await post(app, '/rag/search', { query, top_k: 3, rerank: true })).json().results as Hit[];
    expect(hits.map((h) => h.source)).toEqual(['navy.txt', 'schools.txt', 'farms.txt']);
    for (const h of hits) expect(h.rerank_score).toBeCloseTo(expectedLogit(query, h.text), 3);
    expect(hits.map((h) => h.rerank_score)).toEqual([0.75, 0.25, 0]);
  });

  it('reranks /rag/ask with RAG_RERANK=true before the relevance filter, showing the rerank scores', async () => {
    await app!.close();
    app = await makeApp({ ...hubConfig(), RERANK_MODEL: 'test-org/cross-encoder', RAG_RERANK: true });
    await post(app, '/rag/index', {});
    const question = 'How many ironclad ships did the navy build?';
    const body = (await post(app, '/rag/ask', { question, top_k: 2 })).json();
    expect(body.context.length).toBeGreaterThan(0);
    expect(body.context[0]).toMatchObject({ source: 'navy.txt', rerank_score: expectedLogit(question, body.context[0].text) });
    for (const c of body.context as Hit[]) expect(c.rerank_score).toBeCloseTo(expectedLogit(question, c.text), 3);
    const scores = (body.context as Hit[]).map((c) => c.rerank_score!);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    expect(body.answer).toMatch(/three/i);
    expect(Object.keys(body.timings_ms)).toContain('rerank');
    // Only the no-LLM note: nothing about reranking.
    expect(body.warnings).toEqual([expect.stringMatching(/^No language model is configured/)]);
  });

  it('answers without reranking, with a warning, when the cross-encoder cannot be loaded', async () => {
    await app!.close();
    app = await makeApp({ ...hubConfig(), RERANK_MODEL: 'test-org/not-published', RAG_RERANK: true });
    await post(app, '/rag/index', {});
    const res = await post(app, '/rag/ask', { question: 'How many ironclad ships did the navy build?' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.answer).toMatch(/three/i);
    expect(body.context.every((c: Hit) => c.rerank_score === undefined)).toBe(true);
    // Anyone may ask: the warning says what failed, not the Hub's address or the cache folder (the log has those).
    expect(body.warnings[0]).toMatch(/^The passages were not reranked: .*the cross-encoder could not be loaded/);
    expect(body.warnings[0]).not.toMatch(/not-published|127\.0\.0\.1|cache/);
  });
});
