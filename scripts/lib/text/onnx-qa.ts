// The ONNX graph of a tiny extractive question-answering model (start and end logits), built from the text graphs'
// pieces: test fixtures use it to check the reader's span and offset handling with predictable logits.
import { ElemType, attr } from '../../../src/infra/onnx-proto.js';
import { INPUTS, int8Rows, int8Tokens, io, maskedMax, node, scalars, tensor, textModel } from './onnx-text.js';

/**
 * An extractive question-answering graph (start and end logits over "[CLS] question [SEP] context [SEP]", token
 * types 0 then 1) that marks runs of context words also found in the question: a context token matches when its
 * unit vector equals a question token's and its `markWeights` entry is 1. A run of matching tokens gets `scale` as
 * the start logit on its first token and as the end logit on its last; every other position gets 0.
 */
export function questionAnsweringOnnx(vocabSize: number, dim: number, unitVectors: Float32Array, markWeights: Float32Array, scale: number, doc: string) {
  return textModel(doc, {
    name: 'word_match_reader',
    input: [...INPUTS, io('token_type_ids', ElemType.INT64, ['batch', 'sequence'])],
    output: [io('start_logits', ElemType.FLOAT, ['batch', 'sequence']), io('end_logits', ElemType.FLOAT, ['batch', 'sequence'])],
    initializer: [
      ...int8Rows(vocabSize, dim, unitVectors),
      tensor('mark_weights', [vocabSize], markWeights),
      tensor('scale', [], [scale]),
      tensor('zero', [], [0]),
      tensor('s0', [1], [0], 'int64'),
      tensor('s1', [1], [1], 'int64'),
      tensor('sm1', [1], [-1], 'int64'),
      tensor('smax', [1], [2 ** 53], 'int64'),
      ...scalars(),
    ],
    node: [
      ...int8Tokens('x'),
      node('Cast', ['token_type_ids'], ['x_typef'], [attr.int('to', ElemType.FLOAT)]),
      node('Mul', ['x_typef', 'x_maskf'], ['c_mask']),
      node('Sub', ['one', 'x_typef'], ['q_seg']),
      node('Mul', ['q_seg', 'x_maskf'], ['q_mask']),
      // Best question match of every position: cosine with each question token, other columns pushed down.
      node('Transpose', ['x_vec'], ['x_tokT'], [attr.ints('perm', [0, 2, 1])]),
      node('MatMul', ['x_vec', 'x_tokT'], ['sim']),
      node('Unsqueeze', ['q_mask', 'axis1'], ['q_mask3']),
      ...maskedMax('q', 'sim', 'q_mask3', 'best', 2),
      node('Gather', ['mark_weights', 'input_ids'], ['m_w'], [attr.int('axis', 0)]),
      node('Mul', ['best', 'c_mask'], ['m_ctx']),
      node('Mul', ['m_ctx', 'm_w'], ['match']),
      // The match of the previous and of the next position (0 beyond the edges): runs start and end where they change.
      node('Slice', ['match', 's0', 's1', 's1'], ['m_first']),
      node('Mul', ['m_first', 'zero'], ['m_zero']),
      node('Slice', ['match', 's0', 'sm1', 's1'], ['m_head']),
      node('Slice', ['match', 's1', 'smax', 's1'], ['m_tail']),
      node('Concat', ['m_zero', 'm_head'], ['m_prev'], [attr.int('axis', 1)]),
      node('Concat', ['m_tail', 'm_zero'], ['m_next'], [attr.int('axis', 1)]),
      node('Sub', ['one', 'm_prev'], ['not_prev']),
      node('Sub', ['one', 'm_next'], ['not_next']),
      node('Mul', ['match', 'not_prev'], ['first']),
      node('Mul', ['match', 'not_next'], ['last']),
      node('Mul', ['first', 'scale'], ['start_logits']),
      node('Mul', ['last', 'scale'], ['end_logits']),
    ],
  });
}
