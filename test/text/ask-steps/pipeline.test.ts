import { describe, expect, it } from 'vitest';
import type { Llm } from '../../../src/text/llm/llm.js';
import { lexiconOf } from '../../../src/text/rag/ask/lexicon.js';
import { AskPipeline } from '../../../src/text/rag/ask/pipeline.js';
import { NOT_FOUND } from '../../../src/text/rag/ask/response.js';
import type { RagService } from '../../../src/text/rag/service.js';
import { hit } from './fakes.js';

const rag = (hits = [hit('The weather was cold.', { semantic: 0.1, bm25: 0 })]) =>
  ({
    ready: async () => {},
    generation: 1,
    chunks: () => [{ text: 'The weather was cold.', source: 'weather.txt' }],
    search: async () => hits,
  }) as unknown as RagService;
const pipeline = (r = rag()) =>
  new AskPipeline(r, { available: false } as Llm, {
    minSemantic: 0.4,
    minBm25: 3,
    groundingThreshold: 0.5,
    abbreviations: {},
    llmRewrite: false,
    lexicon: lexiconOf(['the', 'who', 'built', 'canal']),
    tagInWorker: async () => ({ entities: { people: [], places: [], organizations: [], dates: [], numbers: [] }, answerType: 'factoid', nouns: ['canal'] }),
  });

describe('the ask pipeline', () => {
  it("warms the span step up with a factoid question read from a passage of the collection, in the reader's worker", async () => {
    const calls: { question: string; candidates: { text: string }[] }[] = [];
    const p = new AskPipeline(rag(), { available: false } as Llm, {
      minSemantic: 0.4,
      minBm25: 3,
      groundingThreshold: 0.5,
      abbreviations: {},
      llmRewrite: false,
      lexicon: lexiconOf(['the']),
      readInWorker: async (args) => (calls.push(args), null),
    });
    await p.warmUpReader([]);
    expect(calls).toEqual([]);
    await p.warmUpReader([hit('The canal opened in 1825. It was built by the state.')]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.candidates.map((c) => c.text)).toEqual(['The canal opened in 1825.', 'It was built by the state.']);
    expect(calls[0]!.question).toMatch(/^Who .*\?$/);
    // Many passages: read as a question's retrieval would keep them, five at a time.
    calls.length = 0;
    await p.warmUpReader(Array.from({ length: 7 }, (_, i) => hit(`Passage ${i} opened in 18${10 + i}.`)));
    expect(calls.map((c) => c.candidates.length)).toEqual([5, 2]);
  });

  it('is the list of named steps, in order', () => {
    expect(pipeline().steps.map((s) => s.name)).toEqual([
      'guardrail_input',
      'rewrite',
      'retrieve',
      'guardrail_relevance',
      'guardrail_support',
      'catalogue',
      'guardrail_support_gate',
      'refuse',
      'answer',
      'guardrail_grounding',
      'confidence',
    ]);
  });

  it('stops at the first step that has a response: no step after the refusal runs', async () => {
    const events: string[] = [];
    const r = await pipeline().ask('Who built the canal?', 5, (step) => events.push(step));
    expect(r.answer).toBe(NOT_FOUND);
    expect(events).toEqual(['guardrail_input', 'rewrite', 'retrieve', 'guardrail_relevance']);
    expect(Object.keys(r.timings_ms)).toEqual(['guardrail_input', 'rewrite', 'retrieve', 'guardrail_relevance']);
    expect(r.guardrails).toEqual({ input: { passed: true }, relevance: expect.objectContaining({ passed: false }) });
  });

  it('refuses a bad question before any other step', async () => {
    const events: string[] = [];
    await expect(pipeline().ask('', 5, (step) => events.push(step))).rejects.toMatchObject({ statusCode: 400 });
    expect(events).toEqual([]);
  });
});
