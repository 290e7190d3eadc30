import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChromaClient } from 'chromadb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkDocument } from '../../src/text/rag/chunker.js';
import { fromRoot } from '../../src/infra/paths.js';
import { makeApp, tempDir } from '../helpers/app.js';
import { exactMatchCrossEncoder } from '../helpers/cross-encoder.js';

const para = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `The ${topic} report number ${i} discusses ${topic} policy, budgets and people in detail.`).join(' ');

describe('document chunks', () => {
  it('are at most 2,048 characters, overlap by about 150, and cover the document', () => {
    const text = `${para('harbor', 40)}\n\n${para('railway', 40)}\n\n${para('schools', 40)}`;
    const chunks = chunkDocument(text);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(2048);
      expect(text.slice(c.start, c.end)).toBe(c.text);
    }
    for (let i = 1; i < chunks.length; i++) {
      const overlap = chunks[i - 1]!.end - chunks[i]!.start;
      expect(overlap).toBeGreaterThan(60);
      expect(overlap).toBeLessThanOrEqual(150);
    }
    expect(chunks[0]!.start).toBe(0);
    expect(chunks.at(-1)!.end).toBe(text.length);
    // Cut at a paragraph or sentence end, not mid-word.
    expect(chunks[0]!.text.trimEnd()).toMatch(/[.]$/);
  });

  it('never splits a character outside the basic plane', () => {
    const chunks = chunkDocument('😀'.repeat(3000));
    for (const c of chunks) expect(c.text).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
  });
});

describe('document search against a real Chroma server', () => {
  const docs = tempDir('docs-');
  const dataDir = tempDir('rag-data-');
  let app: Awaited<ReturnType<typeof makeApp>>;

  const crossEncoder = exactMatchCrossEncoder([
    'the',
    'report',
    'number',
    'discusses',
    'policy',
    'budgets',
    'and',
    'people',
    'in',
    'detail',
    'harbor',
    'railway',
    'schools',
  ]);
  const build = () => makeApp({ DOCS_DIR: docs, DATA_DIR: dataDir, RAG_INDEX_ON_START: false, RERANK_MODEL: crossEncoder });
  const index = (payload: unknown = {}) => app.inject({ method: 'POST', url: '/rag/index', payload: payload as object });
  const search = (payload: unknown) => app.inject({ method: 'POST', url: '/rag/search', payload: payload as object });

  beforeAll(async () => {
    writeFileSync(join(docs, 'harbor.txt'), para('harbor', 60));
    writeFileSync(join(docs, 'railway.txt'), para('railway', 30));
    mkdirSync(join(docs, 'nested'));
    writeFileSync(join(docs, 'nested', 'schools.txt'), para('schools', 10));
    writeFileSync(join(docs, 'notes.md'), 'not a text file');
    app = await build();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(docs, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('indexes every .txt file (recursively) and answers hybrid searches with all scores', async () => {
    const rag = await app.rag.service();
    const run = rag.index();
    // Asked during the first index run, statistics wait for it instead of reading a half-written collection.
    expect((await rag.stats()).documents).toBe(3);
    expect(await run).toMatchObject({ documents: 3, files_added: 3, chunks_removed: 0, errors: [] });
    const res = await index();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ documents: 3, files_unchanged: 3, chunks_added: 0 });
    const hits = (await search({ query: 'railway policy', top_k: 3 })).json().results;
    expect(hits).toHaveLength(3);
    expect(hits[0].source).toBe('railway.txt');
    for (const h of hits) {
      expect(h).toMatchObject({ text: expect.any(String), chunk_index: expect.any(Number), start: expect.any(Number), end: expect.any(Number) });
      expect(h.semantic_score).toBeGreaterThan(-1);
      expect(h.semantic_score).toBeLessThanOrEqual(1.0001);
      expect(h.combined_score).toBeGreaterThanOrEqual(0);
    }
    const rrf = (await search({ query: 'schools budgets', top_k: 2, fusion: 'rrf' })).json();
    expect(rrf.results[0].source).toBe('nested/schools.txt');
    const stats = (await app.inject({ url: '/rag/stats' })).json();
    expect(stats).toMatchObject({
      collection: 'documents',
      documents: 3,
      chunk_size: 2048,
      chunk_overlap: 150,
      embedder: { id: 'models/text/embedder', dim: 100 },
    });
    expect(stats.sources.map((s: { source: string }) => s.source)).toEqual(['harbor.txt', 'nested/schools.txt', 'railway.txt']);
  });

  it('is incremental: skips unchanged files, replaces changed ones, drops deleted ones', async () => {
    writeFileSync(join(docs, 'railway.txt'), para('railway', 5));
    unlinkSync(join(docs, 'nested', 'schools.txt'));
    writeFileSync(join(docs, 'canal.txt'), para('canal', 3));
    const res = (await index()).json();
    expect(res).toMatchObject({ documents: 3, files_added: 1, files_changed: 1, files_unchanged: 1, files_removed: 1 });
    expect(res.chunks_unchanged).toBeGreaterThan(0);
    const stats = (await app.inject({ url: '/rag/stats' })).json();
    expect(stats.sources.map((s: { source: string }) => s.source)).toEqual(['canal.txt', 'harbor.txt', 'railway.txt']);
    expect((await search({ query: 'schools', top_k: 5 })).json().results.every((h: { source: string }) => h.source !== 'nested/schools.txt')).toBe(true);
  });

  it('reports undecodable files and reads nothing outside DOCS_DIR', async () => {
    writeFileSync(join(docs, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xff, 0xfe]));
    const outside = tempDir('outside-');
    writeFileSync(join(outside, 'secret.txt'), 'top secret launch codes');
    symlinkSync(join(outside, 'secret.txt'), join(docs, 'link.txt'));
    const res = (await index()).json();
    expect(res.errors).toEqual([{ source: 'latin1.txt', error: expect.stringMatching(/UTF-8/) }]);
    const stats = (await app.inject({ url: '/rag/stats' })).json();
    expect(stats.sources.map((s: { source: string }) => s.source)).not.toContain('link.txt');
    expect(JSON.stringify((await search({ query: 'secret launch codes', top_k: 10 })).json().results)).not.toContain('launch codes');
    for (const body of [{ path: '../../etc' }, { full: '../' }, { docs_dir: '/etc' }]) {
      const r = await index(body);
      expect(r.statusCode).toBe(400);
    }
    unlinkSync(join(docs, 'latin1.txt'));
    unlinkSync(join(docs, 'link.txt'));
  });

  it('reranks with a cross-encoder: the hybrid top 20 reordered by its logits', async () => {
    const query = 'railway budgets people detail';
    const res = await search({ query, top_k: 5, rerank: true });
    expect(res.statusCode).toBe(200);
    const hits = res.json().results as { text: string; source: string; rerank_score: number }[];
    expect(hits).toHaveLength(5); // every chunk of canal.txt, harbor.txt and railway.txt
    // The fixture's logit is the share of the query's words found in the passage.
    for (const h of hits) {
      const words = new Set(h.text.toLowerCase().match(/[a-z]+/g));
      expect(h.rerank_score).toBeCloseTo(query.split(' ').filter((w) => words.has(w)).length / 4, 3);
    }
    expect(hits.map((h) => h.rerank_score)).toEqual([...hits.map((h) => h.rerank_score)].sort((a, b) => b - a));
    expect(hits[0]).toMatchObject({ source: 'railway.txt', rerank_score: 1 });
    expect(hits.some((h) => h.source === 'harbor.txt' && Math.abs(h.rerank_score - 0.75) < 1e-3)).toBe(true);
    expect((await search({ query, top_k: 3 })).json().results[0].rerank_score).toBeUndefined();
  });

  it('answers 503 with the reason when the cross-encoder cannot be loaded, and searches without it', async () => {
    const other = await makeApp({ DOCS_DIR: docs, CHROMA_URL: app.rag.chroma!.url, RAG_INDEX_ON_START: false, RERANK_MODEL: tempDir('no-model-') });
    try {
      const res = await other.inject({ method: 'POST', url: '/rag/search', payload: { query: 'harbor', rerank: true } });
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toMatch(/^Reranking is not available: the cross-encoder could not be loaded/);
      // The test's client is local, so an operator: it is told which model and why.
      expect(res.json().internal).toMatch(/^the cross-encoder ".*no-model-.*" could not be loaded \(.+\)\. Set RERANK_MODEL/);
      expect((await other.inject({ method: 'POST', url: '/rag/search', payload: { query: 'harbor' } })).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('validates search input', async () => {
    for (const body of [{ query: '' }, { query: 'x', top_k: 0 }, { query: 'x', top_k: 51 }, { top_k: 3 }, { query: 'x', fusion: 'max' }]) {
      const r = await search(body);
      expect(r.statusCode).toBe(400);
      expect(r.json().detail).toBe('Invalid input format');
    }
  });

  it('lets one of two concurrent index runs proceed and answers the other 409', async () => {
    const [a, b] = await Promise.all([index({ full: true }), index({ full: true })]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const ok = a.statusCode === 200 ? a : b;
    expect(ok.json()).toMatchObject({ full: true, files_added: 3 });
  });

  it('restarts a killed Chroma server and search recovers', async () => {
    const guard = app.rag.chroma!.pid!;
    const inner = execFileSync('pgrep', ['-P', String(guard)])
      .toString()
      .trim()
      .split('\n')[0]!;
    process.kill(Number(inner), 'SIGKILL');
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await sleep(200);
      status = (await search({ query: 'harbor', top_k: 1 })).statusCode;
      expect([200, 503]).toContain(status);
    }
    expect(status).toBe(200);
    expect(app.rag.chroma!.restartCount).toBeGreaterThanOrEqual(1);
  });

  it("scores a chunk's semantic similarity by its best-matching sentence, as Chroma measures it", async () => {
    const rag = await app.rag.service();
    const query = 'lighthouse keepers polishing the brass lamp at night';
    const buried = 'Lighthouse keepers polished the brass lamp every night.';
    writeFileSync(join(docs, 'coast.txt'), `${para('fishing', 8)} ${buried} ${para('fishing', 8)}`);
    await index();
    const [best] = await rag.search(query, 1, 'weighted', 1); // semantic only
    expect(best!.source).toBe('coast.txt');
    const [q, sentence] = await rag.opts.embed([query, buried]);
    const cosine = q!.reduce((sum, x, i) => sum + x * sentence![i]!, 0);
    expect(best!.semantic_score).toBeCloseTo(cosine, 3);
    const stats = (await app.inject({ url: '/rag/stats' })).json();
    expect(stats.sentence_vectors).toBeGreaterThan(stats.chunks);
    unlinkSync(join(docs, 'coast.txt'));
    expect((await index()).json()).toMatchObject({ files_removed: 1 });
    expect((await app.inject({ url: '/rag/stats' })).json().sentence_vectors).toBeLessThan(stats.sentence_vectors);
  });

  it('searches among the chunks that hold all of some names, whatever the rest of the query matches', async () => {
    const rag = await app.rag.service();
    writeFileSync(join(docs, 'islands.txt'), `${para('fishing', 20)} The Normans took Cyprus on their way east. ${para('fishing', 20)}`);
    await index();
    // A plain search for the fishing report ranks the fishing chunks; among those that name Cyprus, only its own.
    const holding = await rag.searchHolding('fishing report policy', 5, ['Cyprus']);
    expect(holding.length).toBeGreaterThan(0);
    expect(holding.every((h) => h.source === 'islands.txt' && h.text.includes('Cyprus'))).toBe(true);
    // Every name must be there: no chunk names both.
    expect(await rag.searchHolding('fishing report policy', 5, ['Cyprus', 'Atlantis'])).toEqual([]);
    unlinkSync(join(docs, 'islands.txt'));
    await index();
  });

  it('re-indexes a file that an interrupted run left part-indexed, and keeps no stray sentences', async () => {
    const whole = (await app.inject({ url: '/rag/stats' })).json();
    const client = new ChromaClient({ host: '127.0.0.1', port: Number(new URL(app.rag.chroma!.url).port) });
    await (await client.getCollection({ name: 'documents' })).delete({ ids: ['harbor.txt#1'] });
    const res = (await index()).json();
    expect(res).toMatchObject({ files_changed: 1, chunks_removed: whole.sources.find((s: { source: string }) => s.source === 'harbor.txt').chunks - 1 });
    const after = (await app.inject({ url: '/rag/stats' })).json();
    expect(after).toMatchObject({ chunks: whole.chunks, sentence_vectors: whole.sentence_vectors });
  });

  it('answers 409 for a collection written in an older layout, and rebuilds it at start-up', async () => {
    const client = new ChromaClient({ host: '127.0.0.1', port: Number(new URL(app.rag.chroma!.url).port) });
    const collection = await client.getCollection({ name: 'documents' });
    await collection.modify({ metadata: { ...collection.metadata, layout: 'chunks/0' } });
    (await app.rag.service()).opts.store.forget();
    const res = await search({ query: 'harbor' });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/older index layout.*re-index/);
    await app.close();
    app = await makeApp({ DOCS_DIR: docs, DATA_DIR: dataDir, RAG_INDEX_ON_START: true });
    await app.rag.start();
    expect((await search({ query: 'harbor' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/rag/stats' })).json().documents).toBe(3);
  });

  it('keeps the index across a service restart, and refuses a different embedder with 409', async () => {
    const before = (await app.inject({ url: '/rag/stats' })).json().chunks;
    const chromaPid = app.rag.chroma!.pid!;
    await app.close();
    expect(() => process.kill(chromaPid, 0)).toThrow(); // no orphan left behind
    app = await build();
    expect((await app.inject({ url: '/rag/stats' })).json().chunks).toBe(before);
    await app.close();

    const otherEmbedder = join(tempDir('emb-'), 'embedder-copy');
    cpSync(fromRoot('models/text/embedder'), otherEmbedder, { recursive: true });
    app = await makeApp({ DOCS_DIR: docs, DATA_DIR: dataDir, RAG_INDEX_ON_START: false, EMBEDDING_MODEL: otherEmbedder });
    const res = await search({ query: 'harbor' });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/re-index/);
    const rebuilt = await index({ full: true });
    expect(rebuilt.statusCode).toBe(200);
    expect((await search({ query: 'harbor' })).statusCode).toBe(200);
  });
});
