import { describe, expect, it } from 'vitest';
import { fitLogistic, largestDifference } from '../../scripts/lib/ml/logistic.js';
import { lexiconOf } from '../../src/text/rag/ask/lexicon.js';
import { questionNlp } from '../../src/text/rag/ask/question-nlp.js';
import { GATE_FEATURES, type SupportGate, gateApplies, gateFeatures, gateProbability, loadSupportGate } from '../../src/text/rag/ask/support-gate.js';
import { checkSupport } from '../../src/text/rag/ask/support.js';

const lexicon = lexiconOf('the of and to in a is was what who did how many capital city navy ships built new school founded first'.split(' '));
const check = (q: string, text: string) => checkSupport(q, questionNlp(q), [{ text, source: 'a.txt' }], lexicon);

describe('support gate: what a refused question lacks, and whether the gate may reconsider it', () => {
  it('counts a missing name as a hard refusal the gate never reconsiders', async () => {
    const v = await check('What is the capital of France?', 'The capital city was built in 1790 on the river.');
    expect(v.passed).toBe(false);
    expect(v.lacks.names).toBe(1);
    expect(gateApplies(v.lacks)).toBe(false);
  });

  it('leaves a refusal for a missing common noun to the gate when the names are there', async () => {
    // "capital" is the one thing asked about Paris; the passage names Paris and never says capital.
    const v = await check('What is the capital of Paris?', 'Paris had new ships built in 1790.');
    expect(v.passed).toBe(false);
    expect(v.lacks).toMatchObject({ names: 0, topic: false, nothingAsked: true });
    expect(gateApplies(v.lacks)).toBe(true);
  });

  it('puts the features in the order the model was trained on', () => {
    const lacks = { names: 0, topic: false, nothingAsked: true, rareNouns: 2, missingWeight: 1.5 };
    const factors = { retrieval_quality: 0.6, consistency: 0.9, coverage: 1, entity_coverage: 0.5, answer_support: 0.3 };
    expect(gateFeatures(0.4, lacks, factors)).toEqual([0.4, 2, 1, 1.5, 0.3, 0.6, 0.9, 0.5]);
    expect(GATE_FEATURES).toHaveLength(8);
  });

  it('computes the probability as the logistic of the standardised weighted sum', () => {
    const gate: SupportGate = { features: ['a', 'b'], mean: [1, 0], scale: [2, 1], weights: [2, -1], bias: 0.5, threshold: 0.5 };
    // z = 0.5 + 2 * (3 - 1) / 2 - 1 * 1 = 1.5
    expect(gateProbability(gate, [3, 1])).toBeCloseTo(1 / (1 + Math.exp(-1.5)), 10);
  });

  it('fits a logistic model that separates two classes by one feature and ignores a noise feature', () => {
    const X = Array.from({ length: 200 }, (_, i) => [i < 100 ? i / 100 : 1 + i / 100, (i * 7919) % 13]);
    const y = X.map((_, i) => (i < 100 ? 0 : 1));
    const m = fitLogistic(X, y);
    expect(m.weights[0]).toBeGreaterThan(1);
    expect(Math.abs(m.weights[1]!)).toBeLessThan(0.5);
    const gate: SupportGate = { features: ['x', 'noise'], ...m, threshold: 0.5 };
    expect(gateProbability(gate, [0.5, 5])).toBeLessThan(0.2);
    expect(gateProbability(gate, [2.5, 5])).toBeGreaterThan(0.8);
  });

  it('measures how far one fit lands from another by the largest difference in bias or weights', () => {
    expect(largestDifference({ bias: 0.1, weights: [1, 2] }, { bias: 0.3, weights: [1.5, 2] })).toBeCloseTo(0.5, 12);
    expect(largestDifference({ bias: -1, weights: [0, 0] }, { bias: 1, weights: [0.5, -0.5] })).toBeCloseTo(2, 12);
    expect(largestDifference({ bias: 0, weights: [3] }, { bias: 0, weights: [3] })).toBe(0);
  });

  it('ships a gate that answers with more missing support only when the reader is surer', () => {
    const gate = loadSupportGate();
    expect(gate.features).toEqual([...GATE_FEATURES]);
    const lacks = { names: 0, topic: false, nothingAsked: false, rareNouns: 1, missingWeight: 1 };
    const at = (support: number, coverage: number) =>
      gateProbability(
        gate,
        gateFeatures(coverage, lacks, { retrieval_quality: 0.6, consistency: 0.9, coverage: 1, entity_coverage: 1, answer_support: support }),
      );
    expect(at(0.8, 0.45)).toBeGreaterThan(at(0.1, 0.45));
    expect(at(0.5, 0.45)).toBeGreaterThan(at(0.5, 0.1));
  });
});
