// A small text classifier trained here: mean and max of (fine-tuned) word vectors -> hidden ReLU layer -> softmax,
// optimised with Adam (lazy, per-row updates for the embedding table).
import { rng } from '../../../src/infra/rng.js';
import type { ClassifierWeights } from './onnx-classifier.js';

export interface TrainExample {
  /** Word token ids (no special tokens). */
  ids: Int32Array;
  /** Target distribution over labels (several gold labels share the mass). */
  target: Float32Array;
  weight: number;
}

export interface BagParams {
  hidden: number;
  lr: number;
  embeddingLr: number;
  /** The pair table learns slower than the word table: it has many rare rows and overfits first. */
  bigramLrScale: number;
  epochs: number;
  batch: number;
  weightDecay: number;
  dropout: number;
  /** Learning rates are multiplied by this after each epoch (default 1: constant). */
  lrDecay?: number;
  /** Share of word occurrences dropped from the bag of each training example (default 0: none). */
  wordDropout?: number;
  seed: number;
}

class Adam {
  m: Float32Array;
  v: Float32Array;
  constructor(size: number) {
    this.m = new Float32Array(size);
    this.v = new Float32Array(size);
  }
  step(param: Float32Array, grad: Float32Array, lr: number, t: number, from = 0, to = param.length): void {
    const b1 = 0.9;
    const b2 = 0.999;
    const c1 = 1 - b1 ** t;
    const c2 = 1 - b2 ** t;
    for (let i = from; i < to; i++) {
      const g = grad[i]!;
      this.m[i] = b1 * this.m[i]! + (1 - b1) * g;
      this.v[i] = b2 * this.v[i]! + (1 - b2) * g * g;
      param[i]! -= (lr * (this.m[i]! / c1)) / (Math.sqrt(this.v[i]! / c2) + 1e-8);
    }
  }
}

export const BIGRAM_BUCKETS = 16384;
/** Hash of a word pair into a bucket; the ONNX graph computes the same with int64 Mul, Add and Mod. */
export const BIGRAM_PRIME = 2654435761;
export const bigramBucket = (a: number, b: number) => (a * BIGRAM_PRIME + b) % BIGRAM_BUCKETS;

/** Tokens (as the BERT pre-tokeniser gives them: "don't" is don ' t) that negate the words after them. */
export const NEGATORS = [
  'not',
  'no',
  'never',
  'nothing',
  'nobody',
  'none',
  'neither',
  'nor',
  'nowhere',
  'without',
  'cannot',
  't',
  'dont',
  'didnt',
  'doesnt',
  'isnt',
  'wasnt',
  'arent',
  'werent',
  'cant',
  'couldnt',
  'wouldnt',
  'shouldnt',
  'wont',
  'aint',
  'hardly',
  'barely',
  'nope',
];
/** Tokens that end a negation's reach (clause ends and contrast). */
export const NEGATION_BOUNDARIES = ['.', ',', '!', '?', ';', ':', 'but', 'however', 'although', 'though'];

/** Negation scope: 1 for a token within `window` tokens after a negator, with no boundary between them. */
export function negationScope(ids: Int32Array, negators: Float32Array, boundaries: Float32Array, window: number): Float32Array {
  const scope = new Float32Array(ids.length);
  for (let t = 0; t < ids.length; t++) {
    let open = 1;
    let s = 0;
    for (let j = 1; j <= window && t - j >= 0; j++) {
      s += negators[ids[t - j]!]! * open;
      open *= 1 - boundaries[ids[t - j]!]!;
    }
    scope[t] = Math.min(s, 1);
  }
  return scope;
}

export class BagClassifier {
  readonly w: ClassifierWeights;
  private rand: () => number;

  /** Pooled blocks: word mean, word max, pair mean, and with negation the mean of the negated words. */
  readonly blocks: number;

  constructor(
    embeddings: Float32Array,
    tokenWeights: Float32Array,
    dim: number,
    labels: number,
    hidden: number,
    seed: number,
    negation?: ClassifierWeights['negation'],
  ) {
    const vocabSize = tokenWeights.length;
    this.blocks = negation ? 4 : 3;
    this.rand = rng(seed);
    const init = (n: number, fanIn: number) => Float32Array.from({ length: n }, () => (this.rand() * 2 - 1) * Math.sqrt(6 / fanIn));
    this.w = {
      vocabSize,
      dim,
      hidden,
      labels,
      embeddings,
      tokenWeights,
      bigramBuckets: BIGRAM_BUCKETS,
      bigrams: new Float32Array(BIGRAM_BUCKETS * dim),
      w1: init(this.blocks * dim * hidden, this.blocks * dim),
      b1: new Float32Array(hidden),
      w2: init(hidden * labels, hidden),
      b2: new Float32Array(labels),
      ...(negation ? { negation } : {}),
    };
  }

  /**
   * Pooled vector [mean, max] over the word vectors whose token weight is not zero, as the ONNX graph computes;
   * `argmax` receives, per dimension, the token id that gave the max (-1 when there is no word). With negation,
   * words in a negation's scope leave the mean and the max for a fourth block, their own mean.
   */
  private pool(ids: Int32Array, out: Float32Array, argmax?: Int32Array): number {
    const { dim, embeddings, tokenWeights, negation } = this.w;
    out.fill(0);
    out.fill(-Infinity, dim, 2 * dim);
    argmax?.fill(-1);
    const scope = negation ? negationScope(ids, negation.negators, negation.boundaries, negation.window) : undefined;
    this.lastScope = scope;
    let n = 0;
    let nn = 0;
    for (let t = 0; t < ids.length; t++) {
      const id = ids[t]!;
      const tw = tokenWeights[id]!;
      if (tw === 0) continue;
      const base = id * dim;
      if (scope?.[t]) {
        nn += tw;
        for (let d = 0; d < dim; d++) out[3 * dim + d]! += tw * embeddings[base + d]!;
        continue;
      }
      n += tw;
      for (let d = 0; d < dim; d++) {
        const v = embeddings[base + d]!;
        out[d]! += tw * v;
        if (v > out[dim + d]!) {
          out[dim + d] = v;
          if (argmax) argmax[d] = id;
        }
      }
    }
    const denom = Math.max(n, 1e-6);
    for (let d = 0; d < dim; d++) out[d]! /= denom;
    if (n === 0) out.fill(0, dim, 2 * dim);
    // Third block: mean of the vectors of adjacent word pairs (hashed).
    out.fill(0, 2 * dim, 3 * dim);
    let nb = 0;
    for (let t = 0; t + 1 < ids.length; t++) {
      const wb = tokenWeights[ids[t]!]! * tokenWeights[ids[t + 1]!]!;
      if (wb === 0) continue;
      nb += wb;
      const base = bigramBucket(ids[t]!, ids[t + 1]!) * dim;
      for (let d = 0; d < dim; d++) out[2 * dim + d]! += wb * this.w.bigrams[base + d]!;
    }
    this.lastBigramCount = Math.max(nb, 1e-6);
    for (let d = 0; d < dim; d++) out[2 * dim + d]! /= this.lastBigramCount;
    this.lastNegatedCount = Math.max(nn, 1e-6);
    if (scope) for (let d = 0; d < dim; d++) out[3 * dim + d]! /= this.lastNegatedCount;
    return denom;
  }

  private lastBigramCount = 1e-6;
  private lastNegatedCount = 1e-6;
  private lastScope: Float32Array | undefined;

  probabilities(ids: Int32Array): Float32Array {
    return softmax(this.logitsOf(ids));
  }

  logitsOf(ids: Int32Array): Float32Array {
    const { dim, hidden, labels, w1, b1, w2, b2 } = this.w;
    const h = new Float32Array(this.blocks * dim);
    this.pool(ids, h);
    const a = new Float32Array(hidden);
    for (let j = 0; j < hidden; j++) {
      let s = b1[j]!;
      for (let i = 0; i < this.blocks * dim; i++) s += h[i]! * w1[i * hidden + j]!;
      a[j] = Math.max(0, s);
    }
    return this.logits(a, w2, b2, hidden, labels);
  }

  private logits(r: Float32Array, w2: Float32Array, b2: Float32Array, hidden: number, labels: number): Float32Array {
    const z = new Float32Array(labels);
    for (let k = 0; k < labels; k++) {
      let s = b2[k]!;
      for (let j = 0; j < hidden; j++) s += r[j]! * w2[j * labels + k]!;
      z[k] = s;
    }
    return z;
  }

  /** Trains in place; `onEpoch` may return false to stop early (it sees the epoch number). */
  train(examples: TrainExample[], p: BagParams, onEpoch: (epoch: number) => boolean): void {
    const { dim, hidden, labels, w1, b1, w2, b2, embeddings } = this.w;
    const opt = {
      w1: new Adam(w1.length),
      b1: new Adam(b1.length),
      w2: new Adam(w2.length),
      b2: new Adam(b2.length),
      e: new Adam(embeddings.length),
      f: new Adam(this.w.bigrams.length),
    };
    const gF = new Float32Array(this.w.bigrams.length);
    const touchedF = new Set<number>();
    const g = { w1: new Float32Array(w1.length), b1: new Float32Array(b1.length), w2: new Float32Array(w2.length), b2: new Float32Array(b2.length) };
    const gE = new Float32Array(embeddings.length);
    const touched = new Set<number>();
    const P = this.blocks * dim;
    const h = new Float32Array(P);
    const argmax = new Int32Array(dim);
    const a = new Float32Array(hidden);
    const r = new Float32Array(hidden);
    const mask = new Float32Array(hidden);
    const dr = new Float32Array(hidden);
    const dh = new Float32Array(P);
    const order = examples.map((_, i) => i);
    let t = 0;
    for (let epoch = 1; epoch <= p.epochs; epoch++) {
      const decay = (p.lrDecay ?? 1) ** (epoch - 1);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(this.rand() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      for (let start = 0; start < order.length; start += p.batch) {
        const batch = order.slice(start, start + p.batch);
        g.w1.fill(0);
        g.b1.fill(0);
        g.w2.fill(0);
        g.b2.fill(0);
        for (const idx of batch) {
          const ex = examples[idx]!;
          // Word dropout: a dropped word becomes padding, so it leaves the mean, the max and both of its pairs.
          const ids = p.wordDropout ? ex.ids.map((id) => (this.rand() < p.wordDropout! ? 0 : id)) : ex.ids;
          const n = this.pool(ids, h, argmax);
          const nb = this.lastBigramCount;
          for (let jj = 0; jj < hidden; jj++) {
            let s = b1[jj]!;
            for (let ii = 0; ii < P; ii++) s += h[ii]! * w1[ii * hidden + jj]!;
            a[jj] = s;
            // Inverted dropout on the hidden layer.
            mask[jj] = s > 0 && this.rand() >= p.dropout ? 1 / (1 - p.dropout) : 0;
            r[jj] = s * mask[jj]!;
          }
          const prob = softmax(this.logits(r, w2, b2, hidden, labels));
          const scale = ex.weight / batch.length;
          dr.fill(0);
          for (let k = 0; k < labels; k++) {
            const dz = (prob[k]! - ex.target[k]!) * scale;
            g.b2[k]! += dz;
            for (let jj = 0; jj < hidden; jj++) {
              g.w2[jj * labels + k]! += r[jj]! * dz;
              dr[jj]! += w2[jj * labels + k]! * dz;
            }
          }
          dh.fill(0);
          for (let jj = 0; jj < hidden; jj++) {
            const da = dr[jj]! * mask[jj]!;
            if (da === 0) continue;
            g.b1[jj]! += da;
            for (let ii = 0; ii < P; ii++) {
              g.w1[ii * hidden + jj]! += h[ii]! * da;
              dh[ii]! += w1[ii * hidden + jj]! * da;
            }
          }
          const scope = this.lastScope;
          const nn = this.lastNegatedCount;
          for (let tt = 0; tt < ids.length; tt++) {
            const id = ids[tt]!;
            const tw = this.w.tokenWeights[id]!;
            if (tw === 0) continue;
            touched.add(id);
            const base = id * dim;
            if (scope?.[tt]) for (let d = 0; d < dim; d++) gE[base + d]! += (tw * dh[3 * dim + d]!) / nn;
            else for (let d = 0; d < dim; d++) gE[base + d]! += (tw * dh[d]!) / n;
          }
          // The max half sends its gradient to the token that won each dimension.
          for (let d = 0; d < dim; d++) {
            const id = argmax[d]!;
            if (id < 0) continue;
            touched.add(id);
            gE[id * dim + d]! += dh[dim + d]!;
          }
          for (let tt = 0; tt + 1 < ids.length; tt++) {
            const wb = this.w.tokenWeights[ids[tt]!]! * this.w.tokenWeights[ids[tt + 1]!]!;
            if (wb === 0) continue;
            const bucket = bigramBucket(ids[tt]!, ids[tt + 1]!);
            touchedF.add(bucket);
            for (let d = 0; d < dim; d++) gF[bucket * dim + d]! += (wb * dh[2 * dim + d]!) / nb;
          }
        }
        t++;
        const lr = p.lr * decay;
        const embeddingLr = p.embeddingLr * decay;
        for (let i = 0; i < w1.length; i++) g.w1[i]! += p.weightDecay * w1[i]!;
        for (let i = 0; i < w2.length; i++) g.w2[i]! += p.weightDecay * w2[i]!;
        opt.w1.step(w1, g.w1, lr, t);
        opt.b1.step(b1, g.b1, lr, t);
        opt.w2.step(w2, g.w2, lr, t);
        opt.b2.step(b2, g.b2, lr, t);
        for (const id of touched) {
          opt.e.step(embeddings, gE, embeddingLr, t, id * dim, (id + 1) * dim);
          gE.fill(0, id * dim, (id + 1) * dim);
        }
        touched.clear();
        for (const b of touchedF) {
          opt.f.step(this.w.bigrams, gF, embeddingLr * p.bigramLrScale, t, b * dim, (b + 1) * dim);
          gF.fill(0, b * dim, (b + 1) * dim);
        }
        touchedF.clear();
      }
      if (!onEpoch(epoch)) break;
    }
  }

  /** A deep copy of the weights (to keep the best epoch). */
  snapshot(): ClassifierWeights {
    const c = (x: Float32Array) => Float32Array.from(x);
    const w = this.w;
    return { ...w, embeddings: c(w.embeddings), bigrams: c(w.bigrams), tokenWeights: c(w.tokenWeights), w1: c(w.w1), b1: c(w.b1), w2: c(w.w2), b2: c(w.b2) };
  }

  restore(s: ClassifierWeights): void {
    for (const k of ['embeddings', 'bigrams', 'w1', 'b1', 'w2', 'b2'] as const) this.w[k].set(s[k]);
  }
}

export function softmax(z: Float32Array): Float32Array {
  let max = -Infinity;
  for (const v of z) max = Math.max(max, v);
  const out = new Float32Array(z.length);
  let sum = 0;
  for (let i = 0; i < z.length; i++) sum += out[i] = Math.exp(z[i]! - max);
  for (let i = 0; i < z.length; i++) out[i]! /= sum;
  return out;
}

export interface ClassMetrics {
  accuracy: number;
  macro_f1: number;
  per_class_f1: Record<string, number>;
  n: number;
}

/** Single-label scoring of argmax predictions; on a multi-label row a prediction in the gold set counts as right. */
export function score(labels: string[], gold: string[][], predicted: number[]): ClassMetrics {
  const L = labels.length;
  const tp = new Array<number>(L).fill(0);
  const fp = new Array<number>(L).fill(0);
  const fn = new Array<number>(L).fill(0);
  let correct = 0;
  gold.forEach((g, i) => {
    const p = labels[predicted[i]!]!;
    if (g.includes(p)) {
      correct++;
      tp[predicted[i]!]!++;
    } else {
      fp[predicted[i]!]!++;
      fn[labels.indexOf(g[0]!)]!++;
    }
  });
  const f1 = labels.map((_, k) => (tp[k]! === 0 ? 0 : (2 * tp[k]!) / (2 * tp[k]! + fp[k]! + fn[k]!)));
  return {
    accuracy: correct / gold.length,
    macro_f1: f1.reduce((s, v) => s + v, 0) / L,
    per_class_f1: Object.fromEntries(labels.map((l, k) => [l, Math.round(f1[k]! * 1e4) / 1e4])),
    n: gold.length,
  };
}
