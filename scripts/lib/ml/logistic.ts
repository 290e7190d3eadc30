// Logistic regression on standardised features with an L2 penalty, by full-batch gradient descent from zero weights:
// deterministic, for small tables (a few thousand rows, a handful of features).

export interface LogisticModel {
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

/**
 * A model that says yes to everything, over the given features: zero weights and bias (probability 0.5), threshold 0.
 * Training scripts put it in place of a learned decision so that every case is answered and its features recorded.
 */
export function openModel<F extends readonly string[]>(features: F) {
  return {
    features,
    mean: features.map(() => 0),
    scale: features.map(() => 1),
    weights: features.map(() => 0),
    bias: 0,
    threshold: 0,
  };
}

/** The largest absolute difference between two models' bias and weights: how far a fresh fit lands from a shipped one. */
export function largestDifference(a: Pick<LogisticModel, 'weights' | 'bias'>, b: Pick<LogisticModel, 'weights' | 'bias'>): number {
  return Math.max(Math.abs(a.bias - b.bias), ...a.weights.map((w, i) => Math.abs(w - b.weights[i]!)));
}

export function fitLogistic(X: number[][], y: number[], { l2 = 0.01, iterations = 3000, rate = 0.5 } = {}): LogisticModel {
  const n = X.length;
  const d = X[0]!.length;
  const mean = Array.from({ length: d }, (_, j) => X.reduce((s, x) => s + x[j]!, 0) / n);
  const scale = mean.map((m, j) => Math.sqrt(X.reduce((s, x) => s + (x[j]! - m) ** 2, 0) / n) || 1);
  const Z = X.map((x) => x.map((v, j) => (v - mean[j]!) / scale[j]!));
  const w = new Array<number>(d).fill(0);
  let b = 0;
  for (let it = 0; it < iterations; it++) {
    const gw = new Array<number>(d).fill(0);
    let gb = 0;
    Z.forEach((z, i) => {
      const p = 1 / (1 + Math.exp(-z.reduce((s, v, j) => s + v * w[j]!, b)));
      const e = p - y[i]!;
      gb += e;
      z.forEach((v, j) => (gw[j]! += e * v));
    });
    b -= (rate * gb) / n;
    for (let j = 0; j < d; j++) w[j]! -= rate * (gw[j]! / n + l2 * w[j]!);
  }
  const r = (x: number) => Math.round(x * 1e6) / 1e6;
  return { mean: mean.map(r), scale: scale.map(r), weights: w.map(r), bias: r(b) };
}
