import { describe, expect, it } from 'vitest';
import { ANSWERABILITY_FEATURES, type Answerability } from '../../../src/text/rag/ask/answerability.js';
import { QuestionSupport } from '../../../src/text/rag/ask/question-support.js';
import { lexiconOf } from '../../../src/text/rag/ask/lexicon.js';
import { NOT_FOUND } from '../../../src/text/rag/ask/response.js';
import { DEFAULT_SUPPORT } from '../../../src/text/rag/ask/support.js';
import { AnswerStep } from '../../../src/text/rag/ask/steps/answer.js';
import type { LearnedParts } from '../../../src/text/rag/ask/steps/step.js';
import { context, fakeLlm, fakeReader, hit, reading, verdict } from './fakes.js';

const decision = (bias: number): Answerability => ({
  features: ANSWERABILITY_FEATURES,
  mean: ANSWERABILITY_FEATURES.map(() => 0),
  scale: ANSWERABILITY_FEATURES.map(() => 1),
  weights: ANSWERABILITY_FEATURES.map(() => 0),
  bias,
  threshold: 0.5,
  levels: { high: 0.9, medium: 0.6 },
});
const learned = (o: Partial<LearnedParts> = {}): LearnedParts => ({ gate: null, decision: null, spanDoubt: 0.5, ...o });
const supportCheck = new QuestionSupport({
  original: 'Who built it?',
  rewritten: 'Who built it?',
  tagged: { entities: { people: [], places: [], organizations: [], dates: [], numbers: [] }, answerType: 'factoid', nouns: [] },
  entities: { people: [], places: [], organizations: [], dates: [], numbers: [] },
  changes: [],
  lexicon: lexiconOf([]),
  wordVectors: undefined,
  tag: async () => {
    throw new Error('not tagged again');
  },
  notRequired: () => false,
});
const kept = [hit('Horace Mann built it.'), hit('Elsewhere.')];
const ready = (request = {}) => {
  const tokens: string[] = [];
  const ctx = context({ kept, support: verdict({ supporting: [true, false] }), supportCheck }, { onToken: (t) => void tokens.push(t), ...request });
  return { ctx, tokens };
};

describe('answer step', () => {
  it('without an LLM, reads the supporting passages, with the check near the answer, and streams the answer once', async () => {
    const { reader, calls } = fakeReader(reading('Horace Mann'));
    const { ctx, tokens } = ready();
    await new AnswerStep({ llm: fakeLlm(null).llm, reader, learned: learned(), support: DEFAULT_SUPPORT }).run(ctx);
    expect(calls).toEqual([{ question: 'What?', type: 'factoid', kept: [kept[0]], windows: true }]);
    expect(tokens).toEqual(['Horace Mann']);
    expect(ctx.answered).toMatchObject({ answer: 'Horace Mann', llm: false, fallback: 'no_key' });
    expect(ctx.events).toEqual([['answer', { llm_powered: false, answer_type: 'factoid' }]]);
  });

  it('turns down a reading the learned decision doubts: nothing streamed, "not in the collection" with the probability', async () => {
    const { ctx, tokens } = ready();
    await new AnswerStep({
      llm: fakeLlm(null).llm,
      reader: fakeReader(reading('Horace Mann')).reader,
      learned: learned({ decision: decision(-3) }),
      support: DEFAULT_SUPPORT,
    }).run(ctx);
    expect(tokens).toEqual([]);
    expect(ctx.response?.answer).toBe(NOT_FOUND);
    expect(ctx.response?.warnings.at(-1)).toMatch(/learned decision: probability 0.0474 below 0.5/);
    expect(ctx.guardrails.answerability).toMatchObject({ passed: false, level: 'low' });
    expect(ctx.events.map(([s]) => s)).toEqual(['answerability']);
  });

  it('judges an open answer that goes on with the next sentence by the sentence read, and shows both', async () => {
    // A decision that weighs only the answer's length: a longer answer would fall below its threshold.
    const byLength: Answerability = { ...decision(2), weights: ANSWERABILITY_FEATURES.map((f) => (f === 'answer_words' ? -1 : 0)) };
    const read = 'The tests use the nobody user.';
    const shown = `${read} Set NON_ROOT_USERNAME to use another one, which must be able to read the build directory and write to it.`;
    const run = async (r: ReturnType<typeof reading>) => {
      const { ctx } = ready();
      await new AnswerStep({ llm: fakeLlm(null).llm, reader: fakeReader(r).reader, learned: learned({ decision: byLength }), support: DEFAULT_SUPPORT }).run(
        ctx,
      );
      return ctx;
    };
    const judged = await run(reading(shown, { core: read, answerType: 'open' }));
    expect(judged.answered?.answer).toBe(shown);
    expect(judged.guardrails.answerability).toMatchObject({ passed: true });
    expect(judged.guardrails.answerability).toMatchObject({ features: { answer_words: Math.round(Math.log1p(6) * 1e4) / 1e4 } });
    // Judged by the whole answer, the same reading is refused.
    expect((await run(reading(shown, { answerType: 'open' }))).response?.answer).toBe(NOT_FOUND);
  });

  it('answers from a reading the gate made, as it is, once the decision passes it', async () => {
    const { reader, calls } = fakeReader(reading('other'));
    const { ctx } = ready();
    ctx.gated = reading('Horace Mann');
    await new AnswerStep({ llm: fakeLlm(null).llm, reader, learned: learned({ decision: decision(3) }), support: DEFAULT_SUPPORT }).run(ctx);
    expect(calls).toEqual([]);
    expect(ctx.answered?.answer).toBe('Horace Mann');
    expect(ctx.decision).toMatchObject({ passed: true, level: 'high' });
  });

  it('refuses when no sentence has the key terms near it', async () => {
    const { ctx } = ready();
    ctx.guardrails.support = { passed: true };
    await new AnswerStep({ llm: fakeLlm(null).llm, reader: fakeReader(null).reader, learned: learned(), support: DEFAULT_SUPPORT }).run(ctx);
    expect(ctx.response?.answer).toBe(NOT_FOUND);
    expect(ctx.guardrails.support).toEqual({ passed: false, sentence_window: false });
    expect(ctx.events).toEqual([['guardrail_sentence_window', { passed: false }]]);
  });

  it("streams the LLM's answer with the client's abort signal", async () => {
    const signal = new AbortController().signal;
    const { llm, signals } = fakeLlm({ ok: true, text: 'Horace Mann [1].', provider: 'openai', model: 'm' });
    const { ctx, tokens } = ready({ signal });
    await new AnswerStep({ llm, reader: fakeReader(null).reader, learned: learned(), support: DEFAULT_SUPPORT }).run(ctx);
    expect(tokens).toEqual(['Horace', 'Mann', '[1].']);
    expect(signals).toEqual([signal]);
    expect(ctx.answered).toMatchObject({ llm: true, passage: null, fallback: null });
  });

  it('falls back to the extractive answer when the LLM fails, telling the client before it streams it', async () => {
    const { llm } = fakeLlm({ ok: false, reason: 'timeout', detail: 'slow' });
    const order: string[] = [];
    const { ctx } = ready({ onStep: (s: string) => order.push(s), onToken: (t: string) => void order.push(`token:${t}`) });
    await new AnswerStep({ llm, reader: fakeReader(reading('Horace Mann')).reader, learned: learned(), support: DEFAULT_SUPPORT }).run(ctx);
    expect(order).toEqual(['answer_fallback', 'token:Horace Mann', 'answer']);
    expect(ctx.answered).toMatchObject({ llm: false, fallback: 'timeout' });
  });
});
