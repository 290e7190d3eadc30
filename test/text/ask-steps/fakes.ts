// Small fakes for the ask pipeline's step tests: search hits, a context at a given point of the pipeline, a reader
// that returns a fixed reading, an LLM client that answers from a script.
import type { Llm, LlmResult } from '../../../src/text/llm/llm.js';
import { AskContext, type AskRequest } from '../../../src/text/rag/ask/context.js';
import type { PassageReader, PassageReading } from '../../../src/text/rag/ask/read-passages.js';
import type { SupportVerdict } from '../../../src/text/rag/ask/support.js';
import type { SearchHit } from '../../../src/text/rag/service.js';

let nextId = 0;

export function hit(text: string, o: { source?: string; semantic?: number; bm25?: number; chunk?: number } = {}): SearchHit {
  return {
    id: `h${nextId++}`,
    text,
    source: o.source ?? 'doc.txt',
    chunk_index: o.chunk ?? 0,
    start: 0,
    end: text.length,
    semantic_score: o.semantic ?? 0.6,
    bm25_score: o.bm25 ?? 5,
    combined_score: 1,
  };
}

/** A context as the steps before `fields` would have left it. */
export function context(fields: Partial<AskContext> = {}, request: Partial<AskRequest> = {}): AskContext & { events: [string, Record<string, unknown>][] } {
  const events: [string, Record<string, unknown>][] = [];
  const ctx = new AskContext({ question: 'What?', topK: 5, onStep: (step, data) => events.push([step, data]), ...request });
  Object.assign(ctx, { original: 'What?', rewritten: 'What?' }, fields);
  return Object.assign(ctx, { events });
}

export function reading(answer: string, o: Partial<PassageReading> = {}): PassageReading {
  return { answer, passage: { text: `${answer}.`, source: 'doc.txt', chunk_index: 0 }, answerType: 'factoid', support: 0.8, warnings: [], ...o };
}

/** A reader whose every reading is `result`; `calls` records what it was asked. */
export function fakeReader(result: PassageReading | null) {
  const calls: { question: string; type: string; kept: SearchHit[]; windows: boolean }[] = [];
  const reader = {
    read: async (question: string, type: string, kept: SearchHit[], windowSupport?: unknown) => {
      calls.push({ question, type, kept, windows: !!windowSupport });
      return result;
    },
    documentPassage: async () => result,
  } as unknown as PassageReader;
  return { reader, calls };
}

/** An LLM client that answers every call with `reply` (tokens streamed word by word when it succeeds). */
export function fakeLlm(reply: LlmResult | null) {
  const signals: (AbortSignal | undefined)[] = [];
  const llm = {
    available: reply !== null,
    generate: async (_prompt: string, opts: { signal?: AbortSignal } = {}) => {
      signals.push(opts.signal);
      return reply;
    },
    stream: async (_prompt: string, onToken: (t: string) => void | Promise<void>, opts: { signal?: AbortSignal } = {}) => {
      signals.push(opts.signal);
      if (reply?.ok) for (const w of reply.text.split(' ')) await onToken(w);
      return reply;
    },
  } as unknown as Llm;
  return { llm, signals };
}

export function verdict(o: Partial<SupportVerdict> = {}): SupportVerdict {
  return {
    passed: true,
    missing: [],
    coverage: 1,
    terms: [],
    supporting: [true],
    lacks: { names: 0, topic: false, nothingAsked: false, rareNouns: 0, missingWeight: 0 },
    ...o,
  };
}
