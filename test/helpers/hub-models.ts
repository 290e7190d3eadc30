// Model directories for the fake Hub, made from the project's compact models and ONNX builder: a classifier whose
// labels come in another order (like Xenova/finbert), an embedder of another width, and a tiny extractive reader.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPECIAL, writeModelDir } from '../../scripts/lib/text/model-dir.js';
import { questionAnsweringOnnx } from '../../scripts/lib/text/onnx-qa.js';
import { decodeModel, onnx } from '../../src/infra/onnx-proto.js';
import { fromRoot } from '../../src/infra/paths.js';
import { tempDir } from './app.js';

type Tensor = { rawData?: Uint8Array | null };
// A copy: protobufjs hands out Buffer views into the whole file, at any byte offset.
const floats = (t: Tensor) => new Float32Array(new Uint8Array(t.rawData!).buffer);

/**
 * A copy of a classifier whose labels are stored in `order`: config.json's id2label is rewritten and the output
 * layer's columns (the Gemm producing "logits": weights [H, L], or [L, H] transposed, and bias [L]) are permuted to match, so the copy
 * predicts exactly what the original does while every label sits at another index.
 */
export function relabelledClassifier(sourceDir: string, order: string[]): string {
  const dir = join(tempDir('relabelled-'), 'model');
  cpSync(fromRoot(sourceDir), dir, { recursive: true });
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { id2label: Record<string, string>; label2id: Record<string, number> };
  const old = Object.keys(config.id2label)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => config.id2label[k]!);
  if ([...old].sort().join() !== [...order].sort().join()) throw new Error(`labels ${order.join()} are not a permutation of ${old.join()}`);
  const from = order.map((label) => old.indexOf(label));
  const model = decodeModel(readFileSync(join(dir, 'onnx', 'model.onnx')));
  const out = model.graph!.node!.find((n) => n.output?.[0] === 'logits' && n.opType === 'Gemm')!;
  // Weights [H, L], or [L, H] with transB (as PyTorch exports a Linear layer): either way label j's column or row moves.
  const transposed = out.attribute?.some((a) => a.name === 'transB' && Number(a.i) === 1) ?? false;
  const init = (name: string) => model.graph!.initializer!.find((t) => t.name === name)!;
  const [weights, bias] = [init(out.input![1]!), init(out.input![2]!)];
  const labels = old.length;
  const w = floats(weights);
  const b = floats(bias);
  const hidden = w.length / labels;
  const w2 = new Float32Array(w.length);
  for (let h = 0; h < hidden; h++)
    for (let j = 0; j < labels; j++) {
      if (transposed) w2[j * hidden + h] = w[from[j]! * hidden + h]!;
      else w2[h * labels + j] = w[h * labels + from[j]!]!;
    }
  weights.rawData = new Uint8Array(w2.buffer);
  bias.rawData = new Uint8Array(Float32Array.from(from, (k) => b[k]!).buffer);
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(model).finish());
  config.id2label = Object.fromEntries(order.map((l, i) => [String(i), l]));
  config.label2id = Object.fromEntries(order.map((l, i) => [l, i]));
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  return dir;
}

/**
 * A copy of the compact embedder whose vectors are repeated `times` over (100 -> 200 dimensions at 2): another
 * width, the same cosine similarities, so a re-indexed collection ranks as before.
 */
export function widenedEmbedder(sourceDir: string, times: number): { dir: string; dim: number } {
  const dir = join(tempDir('widened-'), 'model');
  cpSync(fromRoot(sourceDir), dir, { recursive: true });
  const model = decodeModel(readFileSync(join(dir, 'onnx', 'model.onnx')));
  const table = model.graph!.initializer!.find((t) => t.name === 'embeddings_q')!;
  const [rows, dim] = table.dims!.map(Number) as [number, number];
  const q = table.rawData!;
  const wide = new Uint8Array(rows * dim * times);
  for (let r = 0; r < rows; r++) for (let k = 0; k < times; k++) wide.set(q.subarray(r * dim, (r + 1) * dim), (r * times + k) * dim);
  table.rawData = wide;
  table.dims = [rows, dim * times];
  model.graph!.output![0]!.type!.tensorType!.shape!.dim![2]!.dimValue = dim * times;
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(model).finish());
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify({ ...config, hidden_size: dim * times }, null, 2)}\n`);
  return { dir, dim: dim * times };
}

/**
 * A tiny extractive reader over a word list: the answer it gives is the run of context words that also occur in
 * the question (words outside the list are unknown and never match), with start and end logits of `scale`.
 */
export function wordMatchReader(words: string[], scale = 12): string {
  const vocab = [...SPECIAL, ...new Set(words.map((w) => w.toLowerCase()))];
  const dim = vocab.length;
  const unit = new Float32Array(dim * dim);
  const mark = new Float32Array(dim);
  for (let i = SPECIAL.length; i < dim; i++) {
    unit[i * dim + i] = 1;
    mark[i] = 1;
  }
  const dir = join(tempDir('qa-reader-'), 'word-match');
  writeModelDir({
    dir,
    vocab,
    dim,
    onnx: questionAnsweringOnnx(dim, dim, unit, mark, scale, 'test fixture'),
    card: { name: 'word-match reader test fixture' },
  });
  // A question-answering head, as a SQuAD export's config says.
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify({ ...config, architectures: ['BertForQuestionAnswering'] }, null, 2)}\n`);
  return dir;
}
