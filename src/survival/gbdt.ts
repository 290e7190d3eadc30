// Gradient-boosted decision trees for binary log-loss (second-order, exact greedy splits), written for small tabular data.

/** One node; a leaf has feature -1. Samples with x[feature] <= threshold go left (ONNX BRANCH_LEQ). */
export interface TreeNode {
  feature: number;
  threshold: number;
  left: number;
  right: number;
  /** Leaf output in log-odds (already scaled by the learning rate); 0 for inner nodes. */
  value: number;
  /** Training rows that reach the node (the weights of path-dependent TreeSHAP). */
  cover: number;
}

export interface Tree {
  nodes: TreeNode[];
}

export interface Ensemble {
  trees: Tree[];
  /** Initial log-odds, added to the sum of the leaves. */
  baseScore: number;
  nFeatures: number;
}

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

/** Small deterministic PRNG (mulberry32): training must reproduce bit for bit. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Raw log-odds of one row. Inputs and thresholds are float32, as in ONNX Runtime. */
export function predictRaw(model: Ensemble, x: ArrayLike<number>): number {
  let sum = model.baseScore;
  for (const tree of model.trees) sum += tree.nodes[leafIndex(tree, x)]!.value;
  return sum;
}

export function leafIndex(tree: Tree, x: ArrayLike<number>): number {
  let i = 0;
  for (;;) {
    const node = tree.nodes[i]!;
    if (node.feature < 0) return i;
    i = Math.fround(x[node.feature]!) <= node.threshold ? node.left : node.right;
  }
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
  const order = Array.from({ length: d }, (_, f) =>
    Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => X[a]![f]! - X[b]![f]!),
  );
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
