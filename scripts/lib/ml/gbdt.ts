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
