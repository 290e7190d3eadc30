// Exact path-dependent TreeSHAP (Lundberg et al. 2018, Algorithm 2) over the served trees, in log-odds space.
import type { Ensemble, Tree } from '../../infra/tree-ensemble.js';

interface PathElement {
  feature: number;
  zero: number;
  one: number;
  weight: number;
}

function extend(path: PathElement[], zero: number, one: number, feature: number): PathElement[] {
  const l = path.length;
  const m = path.map((e) => ({ ...e }));
  m.push({ feature, zero, one, weight: l === 0 ? 1 : 0 });
  for (let i = l - 1; i >= 0; i--) {
    m[i + 1]!.weight += (one * m[i]!.weight * (i + 1)) / (l + 1);
    m[i]!.weight = (zero * m[i]!.weight * (l - i)) / (l + 1);
  }
  return m;
}

function unwind(path: PathElement[], i: number): PathElement[] {
  const l = path.length - 1;
  const m = path.map((e) => ({ ...e }));
  const { one, zero } = m[i]!;
  let n = m[l]!.weight;
  for (let j = l - 1; j >= 0; j--) {
    if (one !== 0) {
      const t = m[j]!.weight;
      m[j]!.weight = (n * (l + 1)) / ((j + 1) * one);
      n = t - (m[j]!.weight * zero * (l - j)) / (l + 1);
    } else {
      m[j]!.weight = (m[j]!.weight * (l + 1)) / (zero * (l - j));
    }
  }
  for (let j = i; j < l; j++) {
    m[j]!.feature = m[j + 1]!.feature;
    m[j]!.zero = m[j + 1]!.zero;
    m[j]!.one = m[j + 1]!.one;
  }
  m.pop();
  return m;
}

function treeShap(tree: Tree, x: ArrayLike<number>, phi: Float64Array): void {
  const recurse = (j: number, path: PathElement[], zero: number, one: number, feature: number) => {
    const m = extend(path, zero, one, feature);
    const node = tree.nodes[j]!;
    if (node.feature < 0) {
      for (let i = 1; i < m.length; i++) {
        const w = unwind(m, i).reduce((s, e) => s + e.weight, 0);
        phi[m[i]!.feature] = phi[m[i]!.feature]! + w * (m[i]!.one - m[i]!.zero) * node.value;
      }
      return;
    }
    const goesLeft = Math.fround(x[node.feature]!) <= node.threshold;
    const hot = goesLeft ? node.left : node.right;
    const cold = goesLeft ? node.right : node.left;
    let iz = 1;
    let io = 1;
    let rest = m;
    const k = m.findIndex((e, idx) => idx > 0 && e.feature === node.feature);
    if (k > 0) {
      iz = m[k]!.zero;
      io = m[k]!.one;
      rest = unwind(m, k);
    }
    recurse(hot, rest, (iz * tree.nodes[hot]!.cover) / node.cover, io, node.feature);
    recurse(cold, rest, (iz * tree.nodes[cold]!.cover) / node.cover, 0, node.feature);
  };
  recurse(0, [], 1, 1, -1);
}

/** Expected raw output over the training distribution the covers describe: SHAP's base value. */
export function expectedValue(model: Ensemble): number {
  let sum = model.baseScore;
  for (const tree of model.trees) {
    const root = tree.nodes[0]!.cover;
    for (const n of tree.nodes) if (n.feature < 0) sum += (n.value * n.cover) / root;
  }
  return sum;
}

/** Shapley values of every feature for one row; base + sum equals the raw output. */
export function shapValues(model: Ensemble, x: ArrayLike<number>): Float64Array {
  const phi = new Float64Array(model.nFeatures);
  for (const tree of model.trees) treeShap(tree, x, phi);
  return phi;
}

/** The cover-weighted conditional expectation E[f(x) | x_S]: the value function TreeSHAP's values are exact for. */
export function conditionalExpectation(model: Ensemble, x: ArrayLike<number>, known: Set<number>): number {
  let sum = model.baseScore;
  for (const tree of model.trees) {
    const g = (j: number): number => {
      const n = tree.nodes[j]!;
      if (n.feature < 0) return n.value;
      if (known.has(n.feature)) return g(Math.fround(x[n.feature]!) <= n.threshold ? n.left : n.right);
      return (g(n.left) * tree.nodes[n.left]!.cover + g(n.right) * tree.nodes[n.right]!.cover) / n.cover;
    };
    sum += g(0);
  }
  return sum;
}
