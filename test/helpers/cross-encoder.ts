// A tiny cross-encoder for tests, built with the project's own ONNX graph builder: one-hot word vectors, so its logit
// is the share of the query's words that occur in the passage (special tokens and unknown words count for nothing).
import { join } from 'node:path';
import { SPECIAL, writeModelDir } from '../../scripts/lib/text/model-dir.js';
import { crossEncoderOnnx } from '../../scripts/lib/text/onnx-text.js';
import { tempDir } from './app.js';

export function exactMatchCrossEncoder(words: string[]): string {
  const vocab = [...SPECIAL, ...new Set(words.map((w) => w.toLowerCase()))];
  const dim = vocab.length;
  const unit = new Float32Array(dim * dim);
  const weights = new Float32Array(dim);
  for (let i = SPECIAL.length; i < dim; i++) {
    unit[i * dim + i] = 1;
    weights[i] = 1;
  }
  const dir = join(tempDir('cross-encoder-'), 'exact-match');
  writeModelDir({ dir, vocab, dim, labels: ['relevance'], onnx: crossEncoderOnnx(dim, dim, unit, weights, 'test fixture'), card: { name: 'exact-match test fixture' } });
  return dir;
}
