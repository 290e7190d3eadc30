// A tiny cross-encoder built with the project's own ONNX graph builder: one-hot word vectors, so its logit is the
// share of the query's words that occur in the passage (special tokens and unknown words count for nothing). Tests and
// the fuzzer use it where a real cross-encoder (a Hub download) cannot be had.
import { join } from 'node:path';
import { SPECIAL, writeModelDir } from './model-dir.js';
import { crossEncoderOnnx } from './onnx-text.js';

/** Writes the model under `parent` and returns its directory. */
export function writeExactMatchCrossEncoder(parent: string, words: string[]): string {
  const vocab = [...SPECIAL, ...new Set(words.map((w) => w.toLowerCase()))];
  const dim = vocab.length;
  const unit = new Float32Array(dim * dim);
  const weights = new Float32Array(dim);
  for (let i = SPECIAL.length; i < dim; i++) {
    unit[i * dim + i] = 1;
    weights[i] = 1;
  }
  const dir = join(parent, 'exact-match');
  writeModelDir({
    dir,
    vocab,
    dim,
    labels: ['relevance'],
    onnx: crossEncoderOnnx(dim, dim, unit, weights, 'test fixture'),
    card: { name: 'exact-match test fixture' },
  });
  return dir;
}
