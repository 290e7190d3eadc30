import { describe, expect, it } from 'vitest';
import type { Answerability } from '../../../src/text/rag/ask/answerability.js';
import { GATE_FEATURES, type SupportGate } from '../../../src/text/rag/ask/support-gate.js';
import { GateStep } from '../../../src/text/rag/ask/steps/gate.js';
import type { LearnedParts } from '../../../src/text/rag/ask/steps/step.js';
import { context, fakeReader, hit, reading, verdict } from './fakes.js';

/** A gate whose probability is the logistic of its bias (every weight 0). */
const gate = (bias: number): SupportGate => ({
  features: GATE_FEATURES,
  mean: GATE_FEATURES.map(() => 0),
  scale: GATE_FEATURES.map(() => 1),
  weights: GATE_FEATURES.map(() => 0),
  bias,
  threshold: 0.5,
});
const learned = (o: Partial<LearnedParts>): LearnedParts => ({ gate: null, decision: null, spanDoubt: 0.5, ...o });
const wordsMissing = verdict({
  passed: false,
  missing: ['canal'],
  coverage: 0.4,
  lacks: { names: 0, topic: false, nothingAsked: false, rareNouns: 0, missingWeight: 0.6 },
});
const nameMissing = verdict({
  passed: false,
  missing: ['Erie'],
  coverage: 0.4,
  lacks: { names: 1, topic: false, nothingAsked: false, rareNouns: 0, missingWeight: 0 },
});
const kept = [hit('The waterway opened in 1825.')];

describe('gate step', () => {
  it('lets the gate answer a question refused for missing words only, when it says the passages support it', async () => {
    const { reader } = fakeReader(reading('1825'));
    const ctx = context({ original: 'When did the canal open?', kept, support: wordsMissing, guardrails: {} });
    ctx.guardrails.support = { passed: false };
    await new GateStep(reader, learned({ gate: gate(2) })).run(ctx);
    expect(ctx.gated?.answer).toBe('1825');
    expect(ctx.guardrails.support).toMatchObject({ passed: false, gate: { passed: true, threshold: 0.5 } });
    expect(ctx.events[0]![0]).toBe('guardrail_support_gate');
    expect(Object.keys(ctx.events[0]![1].features as object)).toEqual(GATE_FEATURES);
  });

  it('keeps the refusal when the gate says no, and never reconsiders a missing name', async () => {
    const no = context({ kept, support: wordsMissing });
    await new GateStep(fakeReader(reading('1825')).reader, learned({ gate: gate(-2) })).run(no);
    expect(no.gated).toBeNull();
    const name = context({ kept, support: nameMissing });
    const { reader, calls } = fakeReader(reading('1825'));
    await new GateStep(reader, learned({ gate: gate(2) })).run(name);
    expect(calls).toEqual([]);
    expect(name.gated).toBeNull();
  });

  it('with the learned decision, reads every refused question (the answer step decides), but not one the catalogue ruled out', async () => {
    const decision: Answerability = { ...gate(0), levels: { high: 0.8, medium: 0.5 } };
    const { reader, calls } = fakeReader(reading('1825'));
    const ctx = context({ original: 'When did the Erie canal open?', kept, support: nameMissing });
    await new GateStep(reader, learned({ decision, gate: gate(2) })).run(ctx);
    expect(calls).toHaveLength(1);
    expect(ctx.gated?.answer).toBe('1825');
    expect(ctx.events).toEqual([]);
    const ruledOut = context({ kept, support: nameMissing, notInCatalogue: ['1950'] });
    await new GateStep(reader, learned({ decision })).run(ruledOut);
    expect(ruledOut.gated).toBeNull();
  });

  it('measures the share of passages naming the entities, counting a document by its author', async () => {
    const ctx = context({
      kept: [hit('I ask Congress.', { source: 'a.txt' }), hit('Nothing here.', { source: 'b.txt' })],
      entityList: ['Lincoln'],
      catalogue: new Map([['a.txt', { author: 'Abraham Lincoln' }]]),
      support: verdict(),
    });
    await new GateStep(fakeReader(null).reader, learned({})).run(ctx);
    expect(ctx.entityShare).toBe(0.5);
  });
});
