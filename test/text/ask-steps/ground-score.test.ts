import { describe, expect, it } from 'vitest';
import type { Answered } from '../../../src/text/rag/ask/context.js';
import { GroundStep } from '../../../src/text/rag/ask/steps/ground.js';
import { ScoreStep } from '../../../src/text/rag/ask/steps/score.js';
import { context, hit } from './fakes.js';

const kept = [hit('The navy built three ironclad ships in 1862.', { semantic: 0.8 }), hit('Ships sailed.', { semantic: 0.6 })];
const answered = (o: Partial<Answered>): Answered => ({
  answer: 'three ironclad ships',
  passage: { text: 'The navy built three ironclad ships in 1862.', source: 'doc.txt', chunk_index: 0 },
  answerType: 'factoid',
  support: 0.9,
  warnings: [],
  llm: false,
  fallback: 'no_key',
  ...o,
});

describe('ground step (guardrail 3)', () => {
  it("checks an LLM answer's grounding and warns below the threshold", async () => {
    const ctx = context({ kept, answered: answered({ llm: true, fallback: null, answer: 'Dragons guarded the harbour of Lisbon.' }) });
    await new GroundStep({ groundingThreshold: 0.5 }).run(ctx);
    expect(ctx.grounding).toBe(0);
    expect(ctx.guardrails.grounding).toMatchObject({ applicable: true, passed: false });
    expect(ctx.warnings[0]).toMatch(/Only 0% of the answer is supported/);
    expect(ctx.events.map(([s]) => s)).toEqual(['guardrail_grounding']);
  });

  it('calls an extractive answer not applicable, and says why it is extractive', async () => {
    const ctx = context({ kept, answered: answered({}) });
    await new GroundStep({ groundingThreshold: 0.5 }).run(ctx);
    expect(ctx.grounding).toBeNull();
    expect(ctx.guardrails.grounding).toMatchObject({ applicable: false });
    expect(ctx.warnings).toEqual([expect.stringMatching(/LLM_API_KEY is unset/)]);
    const failed = context({ kept, answered: answered({ fallback: 'timeout' }) });
    await new GroundStep({ groundingThreshold: 0.5 }).run(failed);
    expect(failed.warnings).toEqual(['The language model was unavailable (timeout); the answer is extractive.']);
  });
});

describe('score step', () => {
  it("blends the retrieval with the reader's support, and builds the response", async () => {
    const ctx = context({ kept, entityShare: 1, answered: answered({}) });
    ctx.warnings.push('w');
    await new ScoreStep().run(ctx);
    expect(ctx.response).toMatchObject({ answer: 'three ironclad ships', answer_type: 'factoid', llm_powered: false, warnings: ['w'] });
    expect(ctx.response?.confidence_factors.answer_support).toBe(0.9);
    expect(ctx.response?.context.map((c) => c.number)).toEqual([1, 2]);
    expect(Object.keys(ctx.timings)).toEqual(['confidence']);
  });

  it("shows the learned decision's probability and level for an extractive answer it decided on, not for an LLM's", async () => {
    const decision = { probability: 0.42, threshold: 0.3, passed: true, level: 'medium' as const, features: {} };
    const ctx = context({ kept, entityShare: 1, answered: answered({}), decision });
    await new ScoreStep().run(ctx);
    expect(ctx.response).toMatchObject({ confidence: 'medium', confidence_score: 0.42 });
    expect(ctx.response?.confidence_explanation).toMatch(/^Medium confidence \(0.42\): the learned decision's probability/);
    const llm = context({ kept, entityShare: 1, answered: answered({ llm: true, support: null, fallback: null }), decision });
    await new ScoreStep().run(llm);
    expect(llm.response?.confidence_score).not.toBe(0.42);
    expect(llm.response?.confidence_factors.answer_support).toBeUndefined();
  });
});
