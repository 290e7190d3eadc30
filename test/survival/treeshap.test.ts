import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passengerArb, servedParams, servedTrees } from '../helpers/survival.js';
import { conditionalExpectation, expectedValue, shapValues } from '../../src/survival/explain/treeshap.js';
import { trainGbdt } from '../../scripts/lib/ml/gbdt.js';
import { rng } from '../../src/infra/rng.js';
import { type Ensemble, predictRaw } from '../../src/infra/tree-ensemble.js';
import { toFeatures } from '../../src/survival/preprocess.js';

/** Exact Shapley values by enumerating every coalition of the M features. */
function bruteForceShapley(model: Ensemble, x: Float32Array): number[] {
  const M = model.nFeatures;
  const fact = (n: number): number => (n <= 1 ? 1 : n * fact(n - 1));
  const phi = new Array<number>(M).fill(0);
  for (let i = 0; i < M; i++) {
    for (let mask = 0; mask < 1 << M; mask++) {
      if (mask & (1 << i)) continue;
      const S = new Set<number>();
      for (let k = 0; k < M; k++) if (mask & (1 << k)) S.add(k);
      const w = (fact(S.size) * fact(M - S.size - 1)) / fact(M);
      const withI = new Set(S).add(i);
      phi[i]! += w * (conditionalExpectation(model, x, withI) - conditionalExpectation(model, x, S));
    }
  }
  return phi;
}

function smallData(seed: number, n = 120, d = 5) {
  const r = rng(seed);
  const X = Array.from({ length: n }, () => Float32Array.from({ length: d }, () => Math.round(r() * 8) / 2));
  const y = X.map((x) => (x[0]! + x[1]! * x[2]! - x[3]! > 4 ? 1 : 0));
  return { X, y };
}

describe('TreeSHAP', () => {
  it.each([
    [1, 2, 3],
    [2, 3, 6],
    [3, 4, 4],
  ])('equals brute-force Shapley values on a small ensemble (seed %i, depth %i, %i trees)', (seed, maxDepth, nTrees) => {
    const { X, y } = smallData(seed);
    const model = trainGbdt(X, y, { nTrees, maxDepth, learningRate: 0.5, minChildWeight: 0.5, lambda: 1, gamma: 0, subsample: 1, colsample: 1, seed });
    for (const x of X.slice(0, 15)) {
      const fast = shapValues(model, x);
      const exact = bruteForceShapley(model, x);
      exact.forEach((v, i) => expect(fast[i]).toBeCloseTo(v, 9));
      // The empty coalition is the base value.
      expect(conditionalExpectation(model, x, new Set())).toBeCloseTo(expectedValue(model), 12);
    }
  });

  it('is additive for thousands of random passengers on the served model', () => {
    const model = servedTrees();
    const params = servedParams();
    const base = expectedValue(model);
    for (const p of fc.sample(passengerArb, { numRuns: 3000, seed: 3 })) {
      const x = toFeatures(params, p);
      const phi = shapValues(model, x);
      const sum = phi.reduce((s, v) => s + v, 0);
      expect(Math.abs(base + sum - predictRaw(model, x))).toBeLessThan(1e-6);
    }
  });

  it('gives zero to features the trees never use', () => {
    const { X, y } = smallData(9);
    const model = trainGbdt(X, y, { nTrees: 3, maxDepth: 1, learningRate: 0.5, minChildWeight: 0.5, lambda: 1, gamma: 0, subsample: 1, colsample: 1, seed: 1 });
    const used = new Set(model.trees.flatMap((t) => t.nodes.filter((n) => n.feature >= 0).map((n) => n.feature)));
    const phi = shapValues(model, X[0]!);
    for (let f = 0; f < 5; f++) if (!used.has(f)) expect(phi[f]).toBe(0);
  });
});
