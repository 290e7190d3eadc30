// Gradient-boosted decision trees for binary log-loss (second-order, exact greedy splits), written for small tabular data.
import { rng } from '../../../src/infra/rng.js';
import { type Ensemble, type Tree, type TreeNode, sigmoid } from '../../../src/infra/tree-ensemble.js';

export interface GbdtParams {
  nTrees: number;
  maxDepth: number;
  learningRate: number;
  minChildWeight: number;
  lambda: number;
  gamma: number;
  subsample: number;
  colsample: number;
  seed: number;
}

function sampleIndices(n: number, fraction: number, rand: () => number): number[] {
  if (fraction >= 1) return Array.from({ length: n }, (_, i) => i);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx.slice(0, Math.max(1, Math.round(n * fraction))).sort((a, b) => a - b);
}

interface Split {
  feature: number;
  threshold: number;
  gain: number;
}

export function trainGbdt(X: Float32Array[], y: number[], params: GbdtParams): Ensemble {
  const n = X.length;
  const d = X[0]?.length ?? 0;
  const rand = rng(params.seed);
  const mean = y.reduce((a, b) => a + b, 0) / n;
  const baseScore = Math.log(mean / (1 - mean));
  const F = new Float64Array(n).fill(baseScore);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const trees: Tree[] = [];
  const leafWeight = (G: number, H: number) => (-G / (H + params.lambda)) * params.learningRate;
  const score = (G: number, H: number) => (G * G) / (H + params.lambda);

  // Rows sorted by each feature once; a node scans that order and keeps its own rows (cheaper than sorting per node).
  const order = Array.from({ length: d }, (_, f) => Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => X[a]![f]! - X[b]![f]!));
  const inNode = new Uint8Array(n);

  const bestSplit = (rows: number[], features: number[], G: number, H: number): Split | null => {
    let best: Split | null = null;
    const parent = score(G, H);
    for (const r of rows) inNode[r] = 1;
    for (const f of features) {
      const sorted = order[f]!;
      let GL = 0;
      let HL = 0;
      let prev = -1;
      for (let k = 0; k < n; k++) {
        const r = sorted[k]!;
        if (!inNode[r]) continue;
        if (prev >= 0) {
          const a = X[prev]![f]!;
          const b = X[r]![f]!;
          const HR = H - HL;
          if (a !== b && HL >= params.minChildWeight && HR >= params.minChildWeight) {
            const gain = 0.5 * (score(GL, HL) + score(G - GL, HR) - parent) - params.gamma;
            if (gain > 0 && (!best || gain > best.gain)) {
              let threshold = Math.fround((a + b) / 2);
              if (threshold >= b) threshold = a; // adjacent float32 values: the midpoint rounds up to b
              best = { feature: f, threshold, gain };
            }
          }
        }
        GL += g[r]!;
        HL += h[r]!;
        prev = r;
      }
    }
    for (const r of rows) inNode[r] = 0;
    return best;
  };

  for (let t = 0; t < params.nTrees; t++) {
    for (let i = 0; i < n; i++) {
      const p = sigmoid(F[i]!);
      g[i] = p - y[i]!;
      h[i] = p * (1 - p);
    }
    const rows = sampleIndices(n, params.subsample, rand);
    const features = sampleIndices(d, params.colsample, rand);
    const nodes: TreeNode[] = [];
    const grow = (nodeRows: number[], depth: number): number => {
      const id = nodes.length;
      let G = 0;
      let H = 0;
      for (const r of nodeRows) {
        G += g[r]!;
        H += h[r]!;
      }
      nodes.push({ feature: -1, threshold: 0, left: -1, right: -1, value: leafWeight(G, H), cover: 0 });
      const split = depth < params.maxDepth ? bestSplit(nodeRows, features, G, H) : null;
      if (!split) return id;
      const leftRows = nodeRows.filter((r) => X[r]![split.feature]! <= split.threshold);
      const rightRows = nodeRows.filter((r) => X[r]![split.feature]! > split.threshold);
      const node = nodes[id]!;
      node.feature = split.feature;
      node.threshold = split.threshold;
      node.value = 0;
      node.left = grow(leftRows, depth + 1);
      node.right = grow(rightRows, depth + 1);
      return id;
    };
    grow(rows, 0);
    const tree: Tree = { nodes };
    // Covers count every training row (not only the subsample), so they describe the training distribution.
    for (let i = 0; i < n; i++) {
      let k = 0;
      for (;;) {
        const node = nodes[k]!;
        node.cover++;
        if (node.feature < 0) break;
        k = X[i]![node.feature]! <= node.threshold ? node.left : node.right;
      }
      F[i] = F[i]! + nodes[k]!.value;
    }
    trees.push(tree);
  }
  return { trees, baseScore, nFeatures: d };
}

/**
 * The same boosting with histogram splits, for larger data (tens of thousands of rows): each feature's candidate
 * thresholds are at most `bins - 1` of its values at evenly spaced quantiles, and a node sums gradients per bin
 * instead of scanning every row in sorted order. Thresholds are data values, so `x <= threshold` is exact in float32.
 */
export function trainGbdtHistogram(X: Float32Array[], y: number[], params: GbdtParams & { bins: number }): Ensemble {
  const n = X.length;
  const d = X[0]?.length ?? 0;
  const rand = rng(params.seed);
  const mean = y.reduce((a, b) => a + b, 0) / n;
  const baseScore = Math.log(mean / (1 - mean));
  const F = new Float64Array(n).fill(baseScore);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const leafWeight = (G: number, H: number) => (-G / (H + params.lambda)) * params.learningRate;
  const score = (G: number, H: number) => (G * G) / (H + params.lambda);
  // Cut points per feature and each row's bin: bin b holds values <= cuts[b] (and > cuts[b - 1]).
  const cuts: Float32Array[] = [];
  const binned: Uint16Array[] = [];
  for (let f = 0; f < d; f++) {
    const sorted = Float32Array.from(X, (x) => x[f]!).sort();
    const c: number[] = [];
    for (let k = 1; k < params.bins; k++) {
      const v = sorted[Math.min(n - 1, Math.floor((k * n) / params.bins))]!;
      if (v < sorted[n - 1]! && (c.length === 0 || v > c[c.length - 1]!)) c.push(v);
    }
    const cf = Float32Array.from(c);
    cuts.push(cf);
    const b = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const x = X[i]![f]!;
      let lo = 0;
      let hi = cf.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (x <= cf[mid]!) hi = mid;
        else lo = mid + 1;
      }
      b[i] = lo;
    }
    binned.push(b);
  }
  const trees: Tree[] = [];
  for (let t = 0; t < params.nTrees; t++) {
    for (let i = 0; i < n; i++) {
      const p = sigmoid(F[i]!);
      g[i] = p - y[i]!;
      h[i] = p * (1 - p);
    }
    const rows = sampleIndices(n, params.subsample, rand);
    const features = sampleIndices(d, params.colsample, rand);
    const nodes: TreeNode[] = [];
    const grow = (nodeRows: number[], depth: number): number => {
      const id = nodes.length;
      let G = 0;
      let H = 0;
      for (const r of nodeRows) {
        G += g[r]!;
        H += h[r]!;
      }
      nodes.push({ feature: -1, threshold: 0, left: -1, right: -1, value: leafWeight(G, H), cover: 0 });
      if (depth >= params.maxDepth) return id;
      let best: Split | null = null;
      const parent = score(G, H);
      for (const f of features) {
        const c = cuts[f]!;
        if (!c.length) continue;
        const hg = new Float64Array(c.length + 1);
        const hh = new Float64Array(c.length + 1);
        const b = binned[f]!;
        for (const r of nodeRows) {
          hg[b[r]!]! += g[r]!;
          hh[b[r]!]! += h[r]!;
        }
        let GL = 0;
        let HL = 0;
        for (let k = 0; k < c.length; k++) {
          GL += hg[k]!;
          HL += hh[k]!;
          const HR = H - HL;
          if (HL < params.minChildWeight || HR < params.minChildWeight) continue;
          const gain = 0.5 * (score(GL, HL) + score(G - GL, HR) - parent) - params.gamma;
          if (gain > 0 && (!best || gain > best.gain)) best = { feature: f, threshold: c[k]!, gain };
        }
      }
      if (!best) return id;
      const split = best;
      const leftRows = nodeRows.filter((r) => X[r]![split.feature]! <= split.threshold);
      const rightRows = nodeRows.filter((r) => X[r]![split.feature]! > split.threshold);
      if (!leftRows.length || !rightRows.length) return id;
      const node = nodes[id]!;
      node.feature = split.feature;
      node.threshold = split.threshold;
      node.value = 0;
      node.left = grow(leftRows, depth + 1);
      node.right = grow(rightRows, depth + 1);
      return id;
    };
    grow(rows, 0);
    for (let i = 0; i < n; i++) {
      let k = 0;
      for (;;) {
        const node = nodes[k]!;
        node.cover++;
        if (node.feature < 0) break;
        k = X[i]![node.feature]! <= node.threshold ? node.left : node.right;
      }
      F[i] = F[i]! + nodes[k]!.value;
    }
    trees.push({ nodes });
  }
  return { trees, baseScore, nFeatures: d };
}

/**
 * The mean of several ensembles' raw scores as one ensemble: all their trees, each leaf divided by their number, and
 * the mean of their base scores. (A bag of models trained with different seeds.)
 */
export function bagEnsembles(models: Ensemble[]): Ensemble {
  const k = models.length;
  return {
    trees: models.flatMap((m) => m.trees.map((t) => ({ nodes: t.nodes.map((n) => ({ ...n, value: n.value / k })) }))),
    baseScore: models.reduce((s, m) => s + m.baseScore, 0) / k,
    nFeatures: models[0]!.nFeatures,
  };
}
