// Gradient-boosted tree ensembles at serving time: the node layout, raw log-odds of a row, and reading the trees back
// from a standard ONNX TreeEnsembleClassifier (ai.onnx.ml). Training and export live in scripts/lib/ml/.
import { sigmoid } from './math.js';
import { decodeModel, metadata, nodeAttributes } from './onnx-proto.js';

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

export { sigmoid };

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

/**
 * An ensemble in flat typed arrays, for scoring only (no covers): twelve bytes per node where a TreeNode object takes
 * about a hundred. The question-answering reader's span model has about 190,000 nodes. Each tree is laid out depth
 * first, so that a node's left child is the next node and a walk down a tree reads nearby memory.
 */
export interface CompactEnsemble {
  /**
   * Per node three 32-bit slots: the feature (-1 for a leaf); the right child's index, or for a leaf the index of its
   * value in `values`; and the threshold, a float32 read through `thresholds` (a view of the same buffer).
   */
  nodes: Int32Array;
  thresholds: Float32Array;
  /** The leaves' outputs in log-odds. */
  values: Float64Array;
  /** The root node of each tree. */
  roots: Int32Array;
  baseScore: number;
  nFeatures: number;
}

export function compactEnsemble(model: Ensemble): CompactEnsemble {
  const total = model.trees.reduce((s, t) => s + t.nodes.length, 0);
  const buffer = new ArrayBuffer(total * 12);
  const nodes = new Int32Array(buffer);
  const thresholds = new Float32Array(buffer);
  const values = new Float64Array(total);
  const roots = new Int32Array(model.trees.length);
  let at = 0;
  let leaves = 0;
  model.trees.forEach((tree, t) => {
    roots[t] = at;
    const place = (i: number): void => {
      const n = tree.nodes[i]!;
      const me = at++;
      nodes[3 * me] = n.feature < 0 ? -1 : n.feature;
      if (n.feature < 0) {
        nodes[3 * me + 1] = leaves;
        values[leaves++] = n.value;
        return;
      }
      thresholds[3 * me + 2] = n.threshold;
      place(n.left);
      nodes[3 * me + 1] = at;
      place(n.right);
    };
    place(0);
  });
  return { nodes, thresholds, values: values.slice(0, leaves), roots, baseScore: model.baseScore, nFeatures: model.nFeatures };
}

/** Adds tree `t`'s output for each row to `out` (float32 comparisons, ONNX BRANCH_LEQ). */
function addTree(m: CompactEnsemble, t: number, xs: readonly ArrayLike<number>[], out: Float64Array): void {
  const { nodes, thresholds, values } = m;
  const root = m.roots[t]!;
  for (let r = 0; r < xs.length; r++) {
    const x = xs[r]!;
    let i = root;
    let f: number;
    while ((f = nodes[3 * i]!) >= 0) i = Math.fround(x[f]!) <= thresholds[3 * i + 2]! ? i + 1 : nodes[3 * i + 1]!;
    out[r]! += values[nodes[3 * i + 1]!]!;
  }
}

/**
 * Raw log-odds of each row, as predictRaw computes them (each row's trees summed in the same order, so the same
 * numbers). Tree by tree over all the rows: a tree stays in the cache while the rows walk it, about twice as fast as
 * one row at a time through every tree.
 */
export function predictCompactMany(m: CompactEnsemble, xs: readonly ArrayLike<number>[]): Float64Array {
  const out = new Float64Array(xs.length).fill(m.baseScore);
  for (let t = 0; t < m.roots.length; t++) addTree(m, t, xs, out);
  return out;
}

/** Raw log-odds of one row, as predictRaw computes it. */
export const predictCompact = (m: CompactEnsemble, x: ArrayLike<number>): number => predictCompactMany(m, [x])[0]!;

export const INPUT_NAME = 'input';

export interface TreeModelMeta {
  featureNames: string[];
  version: string;
}

/** Reads the trees back from an ONNX TreeEnsembleClassifier (ours, or any binary one with BRANCH_LEQ/LT nodes). */
export function ensembleFromOnnx(bytes: Uint8Array): { model: Ensemble; meta: TreeModelMeta } {
  const proto = decodeModel(bytes);
  const node = proto.graph?.node?.find((n) => n.opType === 'TreeEnsembleClassifier');
  if (!node) throw new Error('the ONNX file has no TreeEnsembleClassifier node');
  const at = nodeAttributes(node);
  const ints = (k: string) => (at.get(k) as number[] | undefined) ?? [];
  const floats = ints;
  const modes = (at.get('nodes_modes') as string[] | undefined) ?? [];
  if (at.get('post_transform') !== 'LOGISTIC') throw new Error('only LOGISTIC post_transform is supported');
  const bad = modes.find((m) => m !== 'LEAF' && m !== 'BRANCH_LEQ');
  if (bad) throw new Error(`unsupported node mode ${bad}`);
  const md = metadata(proto);
  const covers = md.node_covers ? (JSON.parse(md.node_covers) as number[][]) : undefined;

  const treeIds = ints('nodes_treeids');
  const trees: Tree[] = [];
  treeIds.forEach((t, k) => {
    const id = ints('nodes_nodeids')[k]!;
    const tree = (trees[t] ??= { nodes: [] });
    const leaf = modes[k] === 'LEAF';
    const n: TreeNode = {
      feature: leaf ? -1 : ints('nodes_featureids')[k]!,
      threshold: leaf ? 0 : floats('nodes_values')[k]!,
      left: leaf ? -1 : ints('nodes_truenodeids')[k]!,
      right: leaf ? -1 : ints('nodes_falsenodeids')[k]!,
      value: 0,
      cover: covers?.[t]?.[id] ?? 1,
    };
    tree.nodes[id] = n;
  });
  const classTrees = ints('class_treeids');
  const classNodes = ints('class_nodeids');
  const classIds = ints('class_ids');
  const weights = floats('class_weights');
  // ONNX Runtime's binary case: when every weight names the same class id, the summed weights are the
  // positive class's score (sklearn-onnx writes class id 0 this way). Two ids would be a two-score model.
  if (new Set(classIds).size > 1) throw new Error('only single-score binary tree ensembles are supported');
  classTrees.forEach((t, k) => {
    trees[t]!.nodes[classNodes[k]!]!.value += weights[k]!;
  });
  const base = floats('base_values')[0] ?? 0;
  const nFeatures = Number(proto.graph?.input?.[0]?.type?.tensorType?.shape?.dim?.[1]?.dimValue ?? 0);
  const featureNames = md.feature_names ? (JSON.parse(md.feature_names) as string[]) : [];
  return {
    model: { trees, baseScore: base, nFeatures },
    meta: { featureNames, version: md.model_version ?? 'unknown' },
  };
}
