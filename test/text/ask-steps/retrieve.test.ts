import { describe, expect, it } from 'vitest';
import { TextHttpError } from '../../../src/text/errors.js';
import { CorpusVocabulary } from '../../../src/text/rag/ask/corpus.js';
import { RetrieveStep } from '../../../src/text/rag/ask/steps/retrieve.js';
import type { DocumentMeta } from '../../../src/text/rag/documents.js';
import { RERANK_DEPTH, type SearchHit } from '../../../src/text/rag/service.js';
import type { ChunkRecord } from '../../../src/text/rag/store.js';
import { context, hit } from './fakes.js';

const hits = [hit('one'), hit('two'), hit('three')];

function fakeRag(rerank: (q: string, h: SearchHit[], k: number) => Promise<SearchHit[]> = async (_, h, k) => [...h].reverse().slice(0, k)) {
  const calls: { how: string; depth: number; within?: string[] }[] = [];
  return {
    calls,
    rag: {
      search: async (_q: string, depth: number) => (calls.push({ how: 'search', depth }), hits),
      searchIn: async (_q: string, depth: number, within: ReadonlySet<string>) => (calls.push({ how: 'searchIn', depth, within: [...within] }), hits),
      rerank,
    },
  };
}

describe('retrieve step', () => {
  it('searches the whole collection for topK passages', async () => {
    const { rag, calls } = fakeRag();
    const ctx = context({}, { topK: 2 });
    await new RetrieveStep({ rag, rerank: false }).run(ctx);
    expect(calls).toEqual([{ how: 'search', depth: 2 }]);
    expect(ctx.hits).toBe(hits);
    expect(ctx.events).toEqual([['retrieve', { results: 3 }]]);
  });

  it("asks a question about one author's words of that author's documents only", async () => {
    const { rag, calls } = fakeRag();
    const catalogue = new Map<string, DocumentMeta>([
      ['a.txt', { author: 'Ada Lovelace' }],
      ['b.txt', { author: 'Charles Babbage' }],
    ]);
    const ctx = context({ original: 'What did Lovelace say about engines?' });
    await new RetrieveStep({ rag, rerank: false, documents: () => catalogue }).run(ctx);
    expect(calls[0]).toMatchObject({ how: 'searchIn', within: ['a.txt'] });
    expect([...ctx.speakerNames]).toEqual(['lovelace']);
    expect(ctx.events[0]![1]).toMatchObject({ within: ['a.txt'] });
  });

  it('asks a question that names documents by a word of their file names of those documents only', async () => {
    // Five READMEs of Node.js packages: "node" is in one file name but all over the texts, "readme" in every name.
    const texts: Record<string, string[]> = {
      'keyv-readme.txt': ['Keyv stores values in Node.js.', 'Namespaces keep keys of two apps apart.'],
      'node-cron-readme.txt': ['Schedules tasks in Node.js.'],
      'tinybench-readme.txt': ['A tiny Node.js benchmark.'],
      'pino-readme.txt': ['A fast Node.js logger.'],
      'undici-readme.txt': ['An HTTP client for Node.js.'],
    };
    const chunks = Object.entries(texts).flatMap(([source, t]) => t.map((text) => ({ source, text }) as ChunkRecord));
    const corpus = new CorpusVocabulary({ generation: 1, chunks: () => chunks });
    const ask = async (question: string) => {
      const { rag, calls } = fakeRag();
      const ctx = context({ rewritten: question });
      await new RetrieveStep({ rag, rerank: false, corpus }).run(ctx);
      return { call: calls[0], named: [...ctx.namedStems] };
    };
    expect(await ask('keyv: how do I keep two apps apart?')).toEqual({ call: { how: 'searchIn', depth: 5, within: ['keyv-readme.txt'] }, named: ['keyv'] });
    expect((await ask('Which node version runs the scheduler?')).call).toEqual({ how: 'search', depth: 5 });
    expect((await ask('What does the readme say about loggers?')).call).toEqual({ how: 'search', depth: 5 });
  });

  it('reranks a deeper list, and keeps the hybrid order with a safe warning when the reranker fails', async () => {
    const ok = fakeRag();
    const ctx = context({}, { topK: 2 });
    await new RetrieveStep({ rag: ok.rag, rerank: true }).run(ctx);
    expect(ok.calls[0]!.depth).toBe(RERANK_DEPTH);
    expect(ctx.hits.map((h) => h.text)).toEqual(['three', 'two']);
    expect(ctx.events[0]![1]).toMatchObject({ reranked: true });
    const failing = fakeRag(async () => {
      throw new Error('/secret/path/model.onnx missing');
    });
    const bad = context({}, { topK: 2 });
    await new RetrieveStep({ rag: failing.rag, rerank: true }).run(bad);
    expect(bad.hits.map((h) => h.text)).toEqual(['one', 'two']);
    expect(bad.warnings).toEqual(['The passages were not reranked: the reranking model failed on this question']);
    expect(bad.events[0]![1]).toMatchObject({ reranked: false });
    const known = fakeRag(async () => {
      throw new TextHttpError(503, 'The reranking model is loading');
    });
    const busy = context({}, { topK: 2 });
    await new RetrieveStep({ rag: known.rag, rerank: true }).run(busy);
    expect(busy.warnings[0]).toMatch(/loading/);
  });
});
