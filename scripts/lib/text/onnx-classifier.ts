// ONNX graphs of the word-based sentiment and emotion classifiers (bag of words and pairs, and ensembles of them),
// built from the shared pieces of onnx-text.ts.
import { ElemType, attr } from '../../../src/infra/onnx-proto.js';
import { INPUTS, io, maskedMax, maskedTokens, node, scalars, tensor, textModel, weightedMean } from './onnx-text.js';

export interface ClassifierWeights {
  vocabSize: number;
  dim: number;
  hidden: number;
  labels: number;
  embeddings: Float32Array; // [V, D]
  tokenWeights: Float32Array; // [V]: 0 for special tokens, 1 for words
  bigramBuckets: number;
  bigrams: Float32Array; // [buckets, D]: vectors of hashed adjacent word pairs
  w1: Float32Array; // [3D, H]: word mean, word max, pair mean (+ negated-word mean: [4D, H])
  b1: Float32Array; // [H]
  w2: Float32Array; // [H, L]
  b2: Float32Array; // [L]
  /** Negation scope: per-token negator and boundary flags ([V], 0 or 1) and how many tokens a negation reaches. */
  negation?: { negators: Float32Array; boundaries: Float32Array; window: number };
}

/**
 * Adjacent word pairs as hash buckets: bucket = (left * prime + right) mod buckets (b_id), and each pair's weight, the
 * product of its words' weights (b_w): a pair touching a special token weighs 0.
 */
const pairBuckets = () => [
  node('Slice', ['input_ids', 's0', 'sm1', 's1'], ['b_left']),
  node('Slice', ['input_ids', 's1', 'smax', 's1'], ['b_right']),
  node('Slice', ['c_w', 's0', 'sm1', 's1'], ['b_wl']),
  node('Slice', ['c_w', 's1', 'smax', 's1'], ['b_wr']),
  node('Mul', ['b_wl', 'b_wr'], ['b_w']),
  node('Mul', ['b_left', 'prime'], ['b_lp']),
  node('Add', ['b_lp', 'b_right'], ['b_key']),
  node('Mod', ['b_key', 'buckets'], ['b_id']),
];

/** [mean, max] of the word vectors and the mean of hashed word-pair vectors -> Gemm -> Relu -> Gemm -> logits. */
export function classifierOnnx(w: ClassifierWeights, doc: string, bigramPrime: number): Uint8Array {
  return textModel(doc, {
    name: 'bag_classifier',
    input: INPUTS,
    output: [io('logits', ElemType.FLOAT, ['batch', w.labels])],
    initializer: [
      tensor('embeddings', [w.vocabSize, w.dim], w.embeddings, 'half'),
      tensor('token_weights', [w.vocabSize], w.tokenWeights),
      tensor('bigrams', [w.bigramBuckets, w.dim], w.bigrams, 'half'),
      tensor('w1', [3 * w.dim, w.hidden], w.w1),
      tensor('prime', [], [bigramPrime], 'int64'),
      tensor('buckets', [], [w.bigramBuckets], 'int64'),
      tensor('s0', [1], [0], 'int64'),
      tensor('s1', [1], [1], 'int64'),
      tensor('sm1', [1], [-1], 'int64'),
      tensor('smax', [1], [2 ** 53], 'int64'),
      tensor('b1', [w.hidden], w.b1),
      tensor('w2', [w.hidden, w.labels], w.w2),
      tensor('b2', [w.labels], w.b2),
      ...scalars(),
    ],
    node: [
      ...maskedTokens('c'),
      node('Gather', ['token_weights', 'input_ids'], ['c_tw'], [attr.int('axis', 0)]),
      node('Mul', ['c_tw', 'c_maskf'], ['c_w']),
      node('Unsqueeze', ['c_w', 'axis2'], ['c_w3']),
      node('Mul', ['c_tok', 'c_w3'], ['c_weighted']),
      ...weightedMean('c', 'c_weighted', 'c_w', 'mean', 0),
      // Max over words only; no words at all gives 0.
      ...maskedMax('c', 'c_tok', 'c_w3', 'c_max', 1),
      node('Min', ['c_count', 'one'], ['c_any']),
      node('Mul', ['c_max', 'c_any'], ['max']),
      ...pairBuckets(),
      node('Gather', ['bigrams', 'b_id'], ['b_vec16'], [attr.int('axis', 0)]),
      node('Cast', ['b_vec16'], ['b_vec'], [attr.int('to', ElemType.FLOAT)]),
      node('Unsqueeze', ['b_w', 'axis2'], ['b_w3']),
      node('Mul', ['b_vec', 'b_w3'], ['b_weighted']),
      ...weightedMean('b', 'b_weighted', 'b_w', 'pairs', 0),
      node('Concat', ['mean', 'max', 'pairs'], ['pooled'], [attr.int('axis', 1)]),
      node('Gemm', ['pooled', 'w1', 'b1'], ['h1']),
      node('Relu', ['h1'], ['h1r']),
      node('Gemm', ['h1r', 'w2', 'b2'], ['logits']),
    ],
  });
}

/** A [V, D] table as int8 with one scale per row (symmetric): a quarter of float32. */
export function quantiseMemberRows(rows: number, members: number, dim: number, table: Float32Array) {
  const q = new Int8Array(table.length);
  const scales = new Float32Array(rows * members);
  const dequantised = new Float32Array(table.length);
  for (let r = 0; r < rows * members; r++) {
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(table[r * dim + d]!));
    scales[r] = max / 127;
    for (let d = 0; d < dim; d++) {
      q[r * dim + d] = max ? Math.round(table[r * dim + d]! / scales[r]!) : 0;
      // float32(q) * float32(scale), as ONNX Runtime computes it: the trainer evaluates exactly the shipped numbers.
      dequantised[r * dim + d] = q[r * dim + d]! * scales[r]!;
    }
  }
  return { q, scales, dequantised };
}

/** Rows of `tables` (one [rows, dim] table per member) side by side: [rows, members * dim]. */
export function interleaveMembers(tables: Float32Array[], rows: number, dim: number): Float32Array {
  const K = tables.length;
  const out = new Float32Array(rows * K * dim);
  for (let r = 0; r < rows; r++) for (let k = 0; k < K; k++) out.set(tables[k]!.subarray(r * dim, (r + 1) * dim), (r * K + k) * dim);
  return out;
}

/**
 * Vectors of the ids in `ids` from a members-side-by-side table, as float [batch, seq, members * dim]: a half table
 * is cast; an int8 one is cast and multiplied by its scale per row and member.
 */
function memberVectors(prefix: string, table: string, ids: string, out: string, int8: boolean) {
  if (!int8) {
    return [node('Gather', [table, ids], [`${prefix}16`], [attr.int('axis', 0)]), node('Cast', [`${prefix}16`], [out], [attr.int('to', ElemType.FLOAT)])];
  }
  return [
    node('Gather', [`${table}_q`, ids], [`${prefix}_q`], [attr.int('axis', 0)]),
    node('Cast', [`${prefix}_q`], [`${prefix}_qf`], [attr.int('to', ElemType.FLOAT)]),
    node('Reshape', [`${prefix}_qf`, 'shape_bskd'], [`${prefix}_q4`]),
    node('Gather', [`${table}_scales`, ids], [`${prefix}_s`], [attr.int('axis', 0)]),
    node('Unsqueeze', [`${prefix}_s`, 'axis3'], [`${prefix}_s4`]),
    node('Mul', [`${prefix}_q4`, `${prefix}_s4`], [`${prefix}_v4`]),
    node('Reshape', [`${prefix}_v4`, 'shape_bsx'], [out]),
  ];
}

/** `x` shifted right by j positions along the sequence (zeros come in): [batch, seq]. */
const shifted = (x: string, j: number) => [
  node('Pad', [x, `pad${j}`], [`${x}_pad${j}`]),
  node('Slice', [`${x}_pad${j}`, 's0', `sm${j}`, 's1'], [`${x}_sh${j}`]),
];

/**
 * Negation scope as bag-model's negationScope computes it: a word is negated when one of the `shifts.length` tokens
 * before it is a negator and no boundary lies between them. Splits the word weights c_w into plain (c_wp) and
 * negated (c_wn).
 */
function negationNodes(shifts: number[]) {
  const out = [
    node('Gather', ['negators', 'input_ids'], ['neg'], [attr.int('axis', 0)]),
    node('Gather', ['boundaries', 'input_ids'], ['bnd'], [attr.int('axis', 0)]),
    node('Sub', ['one', 'bnd'], ['nb']),
  ];
  // term_j = neg[t - j] * prod_{i < j} nb[t - i]; open_j is that product.
  for (const j of shifts) {
    out.push(...shifted('neg', j));
    if (j === 1) {
      out.push(node('Identity', ['neg_sh1'], ['term1']));
      continue;
    }
    out.push(...shifted('nb', j - 1));
    out.push(j === 2 ? node('Identity', ['nb_sh1'], ['open2']) : node('Mul', [`open${j - 1}`, `nb_sh${j - 1}`], [`open${j}`]));
    out.push(node('Mul', [`neg_sh${j}`, `open${j}`], [`term${j}`]));
  }
  out.push(
    node(
      'Sum',
      shifts.map((j) => `term${j}`),
      ['scope_sum'],
    ),
    node('Min', ['scope_sum', 'one'], ['scope']),
    node('Mul', ['c_w', 'scope'], ['c_wn']),
    node('Sub', ['c_w', 'c_wn'], ['c_wp']),
  );
  return out;
}

/**
 * An ensemble of bag classifiers that share the vocabulary, in one graph: the members' tables sit side by side
 * ([rows, members * dim]), so one Gather, one mean, one max and one pair mean pool all members at once; each member's
 * hidden layer is one slice of a batched MatMul; the output is the mean of the members' logits (one Gemm over their
 * hidden layers, the second-layer weights stacked and divided by the number of members).
 */
export function ensembleClassifierOnnx(members: ClassifierWeights[], tables: 'half' | 'int8', doc: string, bigramPrime: number): Uint8Array {
  const K = members.length;
  const { vocabSize, dim: D, hidden: H, labels: L, bigramBuckets } = members[0]!;
  const int8 = tables === 'int8';
  const table = (name: string, rows: number, per: (w: ClassifierWeights) => Float32Array) => {
    const side = interleaveMembers(members.map(per), rows, D);
    if (!int8) return [tensor(name, [rows, K * D], side, 'half')];
    const { q, scales } = quantiseMemberRows(rows, K, D, side);
    return [tensor(`${name}_q`, [rows, K * D], q, 'int8'), tensor(`${name}_scales`, [rows, K], scales)];
  };
  const stack = (per: (w: ClassifierWeights) => Float32Array) => {
    const out = new Float32Array(members.reduce((s, w) => s + per(w).length, 0));
    let at = 0;
    for (const w of members) {
      out.set(per(w), at);
      at += per(w).length;
    }
    return out;
  };
  const b2 = new Float32Array(L);
  for (const w of members) for (let l = 0; l < L; l++) b2[l]! += w.b2[l]! / K;
  const negation = members[0]!.negation;
  const blocks = negation ? ['mean', 'max', 'pairs', 'negated'] : ['mean', 'max', 'pairs'];
  const P = blocks.length * D;
  const W = negation?.window ?? 0;
  const shifts = Array.from({ length: W }, (_, i) => i + 1);
  return textModel(doc, {
    name: 'bag_classifier_ensemble',
    input: INPUTS,
    output: [io('logits', ElemType.FLOAT, ['batch', L])],
    initializer: [
      ...table('embeddings', vocabSize, (w) => w.embeddings),
      tensor('token_weights', [vocabSize], members[0]!.tokenWeights),
      ...table('bigrams', bigramBuckets, (w) => w.bigrams),
      tensor(
        'w1',
        [K, P, H],
        stack((w) => w.w1),
      ),
      tensor(
        'b1',
        [K, 1, H],
        stack((w) => w.b1),
      ),
      tensor(
        'w2',
        [K * H, L],
        stack((w) => w.w2).map((v) => v / K),
      ),
      tensor('b2', [L], b2),
      tensor('prime', [], [bigramPrime], 'int64'),
      tensor('buckets', [], [bigramBuckets], 'int64'),
      tensor('s0', [1], [0], 'int64'),
      tensor('s1', [1], [1], 'int64'),
      tensor('sm1', [1], [-1], 'int64'),
      tensor('smax', [1], [2 ** 53], 'int64'),
      tensor('axis3', [1], [3], 'int64'),
      tensor('shape_bskd', [4], [0, 0, K, D], 'int64'),
      tensor('shape_bsx', [3], [0, 0, K * D], 'int64'),
      tensor('shape_b1kd', [4], [0, 1, K, D], 'int64'),
      tensor('shape_kp', [3], [K, -1, P], 'int64'),
      tensor('shape_bx', [2], [0, -1], 'int64'),
      ...(negation
        ? [
            tensor('negators', [vocabSize], negation.negators),
            tensor('boundaries', [vocabSize], negation.boundaries),
            ...shifts.flatMap((j) => [tensor(`pad${j}`, [4], [0, j, 0, 0], 'int64'), tensor(`sm${j}`, [1], [-j], 'int64')]),
          ]
        : []),
      ...scalars(),
    ],
    node: [
      ...memberVectors('c_tok', 'embeddings', 'input_ids', 'c_tok', int8),
      node('Cast', ['attention_mask'], ['c_maskf'], [attr.int('to', ElemType.FLOAT)]),
      node('Gather', ['token_weights', 'input_ids'], ['c_tw'], [attr.int('axis', 0)]),
      node('Mul', ['c_tw', 'c_maskf'], ['c_w']),
      ...(negation ? negationNodes(shifts) : []),
      node('Unsqueeze', [negation ? 'c_wp' : 'c_w', 'axis2'], ['c_w3']),
      node('Mul', ['c_tok', 'c_w3'], ['c_weighted']),
      ...weightedMean('c', 'c_weighted', negation ? 'c_wp' : 'c_w', 'mean', 0),
      ...maskedMax('c', 'c_tok', 'c_w3', 'c_max', 1),
      node('Min', ['c_count', 'one'], ['c_any']),
      node('Mul', ['c_max', 'c_any'], ['max']),
      ...(negation
        ? [
            node('Unsqueeze', ['c_wn', 'axis2'], ['n_w3']),
            node('Mul', ['c_tok', 'n_w3'], ['n_weighted']),
            ...weightedMean('n', 'n_weighted', 'c_wn', 'negated', 0),
          ]
        : []),
      ...pairBuckets(),
      ...memberVectors('b_vec', 'bigrams', 'b_id', 'b_vec', int8),
      node('Unsqueeze', ['b_w', 'axis2'], ['b_w3']),
      node('Mul', ['b_vec', 'b_w3'], ['b_weighted']),
      ...weightedMean('b', 'b_weighted', 'b_w', 'pairs', 0),
      // [batch, members * dim] per block -> [members, batch, blocks * dim]: each member's blocks in its own row.
      ...blocks.map((b) => node('Reshape', [b, 'shape_b1kd'], [`${b}4`])),
      node(
        'Concat',
        blocks.map((b) => `${b}4`),
        ['pooled4'],
        [attr.int('axis', 1)],
      ),
      node('Transpose', ['pooled4'], ['pooled_k'], [attr.ints('perm', [2, 0, 1, 3])]),
      node('Reshape', ['pooled_k', 'shape_kp'], ['pooled']),
      node('MatMul', ['pooled', 'w1'], ['h1m']),
      node('Add', ['h1m', 'b1'], ['h1']),
      node('Relu', ['h1'], ['h1r']),
      node('Transpose', ['h1r'], ['h1t'], [attr.ints('perm', [1, 0, 2])]),
      node('Reshape', ['h1t', 'shape_bx'], ['hidden_all']),
      node('Gemm', ['hidden_all', 'w2', 'b2'], ['logits']),
    ],
  });
}
