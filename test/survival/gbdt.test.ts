import { describe, expect, it } from 'vitest';
import { type GbdtParams, bagEnsembles, trainGbdt, trainGbdtHistogram } from '../../scripts/lib/ml/gbdt.js';
import { ensembleToOnnx } from '../../scripts/lib/ml/onnx-trees.js';
import { rng } from '../../src/infra/rng.js';
import { ensembleFromOnnx, predictRaw, sigmoid } from '../../src/infra/tree-ensemble.js';

const base: GbdtParams = { nTrees: 30, maxDepth: 3, learningRate: 0.3, minChildWeight: 1, lambda: 1, gamma: 0, subsample: 0.8, colsample: 1, seed: 7 };

function data(n: number, seed: number) {
  const r = rng(seed);
  const X: Float32Array[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = Float32Array.from([r() * 10, r() * 10, r() < 0.5 ? 1 : 0]);
    X.push(x);
    y.push(x[0]! + 3 * x[2]! > 6 ? 1 : 0);
  }
  return { X, y };
}

describe('GBDT trainer', () => {
  it('learns a threshold rule and generalises to new rows', () => {
    const train = data(400, 1);
    const test = data(200, 2);
    const model = trainGbdt(train.X, train.y, base);
    const acc = test.X.filter((x, i) => (sigmoid(predictRaw(model, x)) >= 0.5 ? 1 : 0) === test.y[i]).length / 200;
    expect(acc).toBeGreaterThan(0.95);
  });

  it('is deterministic for a seed and differs for another', () => {
    const { X, y } = data(200, 3);
    const a = trainGbdt(X, y, base);
    expect(trainGbdt(X, y, base)).toEqual(a);
    expect(trainGbdt(X, y, { ...base, seed: 8 })).not.toEqual(a);
  });

  it('counts every training row in each root cover', () => {
    const { X, y } = data(150, 4);
    const model = trainGbdt(X, y, base);
    for (const tree of model.trees) {
      expect(tree.nodes[0]!.cover).toBe(150);
      for (const n of tree.nodes) if (n.feature >= 0) expect(tree.nodes[n.left]!.cover + tree.nodes[n.right]!.cover).toBe(n.cover);
    }
  });

  it('survives the ONNX round trip with the same raw outputs', () => {
    const { X, y } = data(200, 5);
    const model = trainGbdt(X, y, base);
    const { model: back, meta } = ensembleFromOnnx(ensembleToOnnx(model, { featureNames: ['a', 'b', 'c'], version: '9.9.9' }));
    expect(meta).toEqual({ featureNames: ['a', 'b', 'c'], version: '9.9.9' });
    for (const x of X) expect(predictRaw(back, x)).toBeCloseTo(predictRaw(model, x), 5);
  });
});

describe('a bag of GBDT models (bagEnsembles)', () => {
  it('scores each row as the mean of its models, in one ensemble that survives the ONNX round trip', () => {
    const { X, y } = data(300, 3);
    const models = [7, 8, 9].map((seed) => trainGbdt(X, y, { ...base, seed }));
    const bag = bagEnsembles(models);
    expect(bag.trees.length).toBe(3 * base.nTrees);
    const back = ensembleFromOnnx(ensembleToOnnx(bag, { featureNames: ['a', 'b', 'c'], version: 't' })).model;
    const { X: rows } = data(50, 4);
    for (const x of rows) {
      const mean = models.reduce((s, m) => s + predictRaw(m, x), 0) / models.length;
      expect(predictRaw(bag, x)).toBeCloseTo(mean, 5);
      expect(predictRaw(back, x)).toBeCloseTo(mean, 5);
    }
  });
});

describe('histogram GBDT (trainGbdtHistogram)', () => {
  it('splits at a data value between the classes (x <= 1 left) and separates them', () => {
    const X = [0, 1, 2, 3].map((x) => Float32Array.from([x]));
    const y = [0, 0, 1, 1];
    const model = trainGbdtHistogram(X, y, {
      nTrees: 1,
      maxDepth: 1,
      learningRate: 1,
      minChildWeight: 0.1,
      lambda: 0,
      gamma: 0,
      subsample: 1,
      colsample: 1,
      seed: 1,
      bins: 64,
    });
    const root = model.trees[0]!.nodes[0]!;
    expect([root.feature, root.threshold]).toEqual([0, 1]);
    // Base score log(0.5 / 0.5) = 0; each leaf is -G / H = -(2 x 0.5) / (2 x 0.25) = -/+2 with learning rate 1.
    expect(X.map((x) => predictRaw(model, x))).toEqual([-2, -2, 2, 2]);
  });
});
