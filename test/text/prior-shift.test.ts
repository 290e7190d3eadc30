// The sentiment trainer's prior shift: the per-class logit offset fitted for the highest mean accuracy over the
// development slices (scripts/lib/text/train-classifier.ts).
import { describe, expect, it } from 'vitest';
import { fitPriorShift } from '../../scripts/lib/text/train-classifier.js';

const example = (label: string) => ({ text: '', labels: [label] });
const labels = ['positive', 'negative', 'neutral'];
const gold = (e: { labels: string[] }) => e.labels.map((l) => labels.indexOf(l));

describe('prior shift', () => {
  it('moves the decision away from a class the logits favour too readily, by the smallest offset that does it', () => {
    // Four texts, all truly neutral; their logits put negative 0.3 above neutral. Any negative offset below -0.3
    // makes all four right; the smallest on the 0.05 grid is -0.35.
    const z = [0, 1, 2, 3].map(() => Float32Array.from([-1, 0.3, 0]));
    const r = fitPriorShift(3, [{ z, examples: [0, 1, 2, 3].map(() => example('neutral')) }], gold);
    expect(r.before).toEqual([0]);
    expect(r.after).toEqual([1]);
    expect(r.offset[1]).toBeCloseTo(-0.35, 10);
    expect(r.offset[0]).toBe(0);
    expect(r.offset[2]).toBe(0);
  });

  it('weighs each slice the same, not each text: a large slice does not outvote a small one', () => {
    // Slice A (three texts, truly negative) needs negative raised by more than 0.2; slice B (one text, truly neutral)
    // needs it lowered by more than 0.1. Pooled, raising it would win (3 of 4 right); as the mean of the slices, either
    // way scores 0.5, and the tie goes to the smaller offset: -0.15.
    const a = { z: [0, 1, 2].map(() => Float32Array.from([-1, -0.2, 0])), examples: [0, 1, 2].map(() => example('negative')) };
    const b = { z: [Float32Array.from([-1, 0.1, 0])], examples: [example('neutral')] };
    const r = fitPriorShift(3, [a, b], gold);
    expect(r.before).toEqual([0, 0]);
    expect(r.offset[1]).toBeCloseTo(-0.15, 10);
    expect(r.after).toEqual([0, 1]);
  });
});
