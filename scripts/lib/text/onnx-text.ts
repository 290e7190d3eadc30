// ONNX graphs of the compact text models, in the layout transformers.js loads like a Hub BERT export:
// inputs input_ids / attention_mask (int64 [batch, seq]); a classifier outputs logits, an embedder last_hidden_state.
import { ElemType, attr, encodeModel, onnx } from '../../../src/infra/onnx-proto.js';

/** IEEE 754 half precision bits of a float (round to nearest even), for the embedding tables. */
export function toHalf(value: number): number {
  const f32 = new Float32Array([value]);
  const x = new Uint32Array(f32.buffer)[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  e = half >>> 10;
  return sign | half;
}

export function tensor(name: string, dims: number[], values: Float32Array | Int8Array | number[], type: 'float' | 'half' | 'int64' | 'int8' = 'float') {
  let raw: Uint8Array;
  if (type === 'int8') {
    raw = new Uint8Array(Int8Array.from(values).buffer);
  } else if (type === 'half') {
    const h = new Uint16Array(values.length);
    for (let i = 0; i < values.length; i++) h[i] = toHalf(values[i]!);
    raw = new Uint8Array(h.buffer);
  } else if (type === 'int64') {
    raw = new Uint8Array(BigInt64Array.from(Array.from(values, (v) => BigInt(v))).buffer);
  } else {
    raw = new Uint8Array(Float32Array.from(values).buffer);
  }
  const dataType = { half: ElemType.FLOAT16, int64: ElemType.INT64, int8: ElemType.INT8, float: ElemType.FLOAT }[type];
  return onnx.TensorProto.create({ name, dims, dataType, rawData: raw });
}

export const io = (name: string, elemType: number, dims: (string | number)[]) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
});

export const node = (opType: string, input: string[], output: string[], attribute: ReturnType<(typeof attr)[keyof typeof attr]>[] = []) => ({
  opType,
  input,
  output,
  name: output[0],
  attribute,
});

export const INPUTS = [io('input_ids', ElemType.INT64, ['batch', 'sequence']), io('attention_mask', ElemType.INT64, ['batch', 'sequence'])];

/** A model of this project's text graphs: one producer, ONNX opset 17. */
export const textModel = (doc: string, graph: Parameters<typeof encodeModel>[0]['graph']) =>
  encodeModel({ producer: 'service-text-models', docString: doc, opsets: { '': 17 }, graph });

/** Constants the graphs share: axes 1 and 2, a small epsilon, one, and the 1e4 that pushes masked positions down. */
export const scalars = () => [
  tensor('axis1', [1], [1], 'int64'),
  tensor('axis2', [1], [2], 'int64'),
  tensor('eps', [], [1e-6]),
  tensor('one', [], [1]),
  tensor('big', [], [1e4]),
];

/** Token vectors (half precision) times their mask: [batch, seq, dim]. */
export function maskedTokens(prefix: string) {
  return [
    node('Gather', ['embeddings', 'input_ids'], [`${prefix}_tok16`], [attr.int('axis', 0)]),
    node('Cast', [`${prefix}_tok16`], [`${prefix}_tok`], [attr.int('to', ElemType.FLOAT)]),
    node('Cast', ['attention_mask'], [`${prefix}_maskf`], [attr.int('to', ElemType.FLOAT)]),
  ];
}

/** The maximum over `axis` of `values`, counting only positions where `mask` is 1 (others pushed down by 1e4). */
export function maskedMax(prefix: string, values: string, mask: string, out: string, axis: number) {
  return [
    node('Sub', [mask, 'one'], [`${prefix}_off`]),
    node('Mul', [`${prefix}_off`, 'big'], [`${prefix}_penalty`]),
    node('Add', [values, `${prefix}_penalty`], [`${prefix}_masked`]),
    node('ReduceMax', [`${prefix}_masked`], [out], [attr.ints('axes', [axis]), attr.int('keepdims', 0)]),
  ];
}

/** sum(weighted) / max(sum(weights), eps) over axis 1; `keepdims` keeps that axis in the result. */
export function weightedMean(prefix: string, weighted: string, weights: string, out: string, keepdims: 0 | 1) {
  return [
    node('ReduceSum', [weighted, 'axis1'], [`${prefix}_sum`], [attr.int('keepdims', keepdims)]),
    node('ReduceSum', [weights, 'axis1'], [`${prefix}_count`], [attr.int('keepdims', 1)]),
    node('Max', [`${prefix}_count`, 'eps'], [`${prefix}_denom`]),
    node('Div', [`${prefix}_sum`, `${prefix}_denom`], [out]),
  ];
}

export function int8Rows(vocabSize: number, dim: number, table: Float32Array) {
  const q = new Int8Array(table.length);
  const scales = new Float32Array(vocabSize);
  for (let i = 0; i < vocabSize; i++) {
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(table[i * dim + d]!));
    scales[i] = max / 127;
    for (let d = 0; d < dim; d++) q[i * dim + d] = max ? Math.round(table[i * dim + d]! / scales[i]!) : 0;
  }
  return [tensor('embeddings_q', [vocabSize, dim], q, 'int8'), tensor('row_scales', [vocabSize], scales)];
}

/** Token vectors from the int8 table, times their row scale and the attention mask: [batch, seq, dim]. */
export function int8Tokens(prefix: string, out = `${prefix}_vec`) {
  return [
    node('Gather', ['embeddings_q', 'input_ids'], [`${prefix}_q`], [attr.int('axis', 0)]),
    node('Cast', [`${prefix}_q`], [`${prefix}_qf`], [attr.int('to', ElemType.FLOAT)]),
    node('Gather', ['row_scales', 'input_ids'], [`${prefix}_scale`], [attr.int('axis', 0)]),
    node('Cast', ['attention_mask'], [`${prefix}_maskf`], [attr.int('to', ElemType.FLOAT)]),
    node('Mul', [`${prefix}_scale`, `${prefix}_maskf`], [`${prefix}_w`]),
    node('Unsqueeze', [`${prefix}_w`, 'axis2'], [`${prefix}_w3`]),
    node('Mul', [`${prefix}_qf`, `${prefix}_w3`], [out]),
  ];
}

/** Token vectors with SIF weights and the common component already baked in; the pipeline pools and normalises. */
export function embedderOnnx(vocabSize: number, dim: number, table: Float32Array, doc: string): Uint8Array {
  return textModel(doc, {
    name: 'sif_embedder',
    input: INPUTS,
    output: [io('last_hidden_state', ElemType.FLOAT, ['batch', 'sequence', dim])],
    initializer: [...int8Rows(vocabSize, dim, table), tensor('axis2', [1], [2], 'int64')],
    node: int8Tokens('e', 'last_hidden_state'),
  });
}

/**
 * A soft term-matching cross-encoder over the pair "[CLS] query [SEP] passage [SEP]" (token_type_ids 0, then 1):
 * each query word is matched with its most similar passage word (cosine of unit word vectors, so an exact match
 * scores 1), and the matches are averaged with the query words' weights. Output: one relevance logit per pair.
 */
export function crossEncoderOnnx(vocabSize: number, dim: number, unitVectors: Float32Array, queryWeights: Float32Array, doc: string): Uint8Array {
  return textModel(doc, {
    name: 'soft_match_cross_encoder',
    input: [...INPUTS, io('token_type_ids', ElemType.INT64, ['batch', 'sequence'])],
    output: [io('logits', ElemType.FLOAT, ['batch', 1])],
    initializer: [...int8Rows(vocabSize, dim, unitVectors), tensor('query_weights', [vocabSize], queryWeights), ...scalars()],
    node: [
      ...int8Tokens('x'),
      node('Cast', ['token_type_ids'], ['x_typef'], [attr.int('to', ElemType.FLOAT)]),
      // Passage positions: second segment and not padding; query positions: first segment, weighted per word.
      node('Mul', ['x_typef', 'x_maskf'], ['p_mask']),
      node('Sub', ['one', 'x_typef'], ['q_seg']),
      node('Mul', ['q_seg', 'x_maskf'], ['q_mask']),
      node('Gather', ['query_weights', 'input_ids'], ['q_tw'], [attr.int('axis', 0)]),
      node('Mul', ['q_tw', 'q_mask'], ['q_w']),
      // Cosine of every pair of positions, non-passage columns pushed down by 1e4, best passage match per row.
      node('Transpose', ['x_vec'], ['x_tokT'], [attr.ints('perm', [0, 2, 1])]),
      node('MatMul', ['x_vec', 'x_tokT'], ['sim']),
      node('Unsqueeze', ['p_mask', 'axis1'], ['p_mask3']),
      ...maskedMax('p', 'sim', 'p_mask3', 'best', 2),
      node('Mul', ['best', 'q_w'], ['best_w']),
      ...weightedMean('q', 'best_w', 'q_w', 'logits', 1),
    ],
  });
}

/** A [rows, members * dim] table as int8 with one symmetric scale per row and member, and its dequantised values. */
