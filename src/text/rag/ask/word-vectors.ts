// Single-word vectors for the extractive reader's features (a question's "network" is close to a sentence's
// "channel"): the shipped embedder's int8 table (GloVe vectors with SIF weights baked in, models/text/embedder), read
// straight from its ONNX file. The reader always uses these, whatever EMBEDDING_MODEL says, because its models were
// trained on them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../../infra/paths.js';
import { decodeModel } from '../../../infra/onnx-proto.js';
import { DEFAULT_TEXT_MODELS } from '../../model-dirs.js';

export interface WordTable {
  /** The row of a lower-case word, or -1. */
  row(word: string): number;
  /** Cosine similarity of two rows (0 when either is -1 or all zero). */
  similarity(a: number, b: number): number;
  /** Writes the row as a unit vector into `out` from `at`; false (nothing written) when it is -1 or all zero. */
  unitInto(row: number, out: Float32Array, at: number): boolean;
  readonly size: number;
  readonly dim: number;
}

class Int8WordTable implements WordTable {
  private readonly norms: Float32Array;

  constructor(
    private readonly ids: Map<string, number>,
    private readonly q: Int8Array,
    readonly dim: number,
  ) {
    const rows = q.length / dim;
    this.norms = new Float32Array(rows);
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let d = r * dim; d < (r + 1) * dim; d++) s += q[d]! * q[d]!;
      this.norms[r] = Math.sqrt(s);
    }
  }

  get size(): number {
    return this.ids.size;
  }

  row(word: string): number {
    return this.ids.get(word) ?? -1;
  }

  unitInto(row: number, out: Float32Array, at: number): boolean {
    const norm = row < 0 ? 0 : this.norms[row]!;
    if (!norm) return false;
    for (let d = 0; d < this.dim; d++) out[at + d] = this.q[row * this.dim + d]! / norm;
    return true;
  }

  similarity(a: number, b: number): number {
    if (a < 0 || b < 0) return 0;
    if (a === b) return 1;
    const na = this.norms[a]!;
    const nb = this.norms[b]!;
    if (!na || !nb) return 0;
    const { q, dim } = this;
    let s = 0;
    for (let d = 0; d < dim; d++) s += q[a * dim + d]! * q[b * dim + d]!;
    return s / (na * nb);
  }
}

let shipped: WordTable | null = null;

/** The word table of a word-level embedder directory (tokenizer.json + onnx/model.onnx with an int8 table). */
export function loadWordTable(dir = fromRoot(DEFAULT_TEXT_MODELS.embedder)): WordTable {
  const isShipped = dir === fromRoot(DEFAULT_TEXT_MODELS.embedder);
  if (isShipped && shipped) return shipped;
  const tokenizer = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as { model: { type: string; vocab: Record<string, number> } };
  if (tokenizer.model.type !== 'WordLevel') throw new Error(`${dir} has no word-level vocabulary`);
  const model = decodeModel(new Uint8Array(readFileSync(join(dir, 'onnx', 'model.onnx'))));
  const init = model.graph?.initializer?.find((t) => t.name === 'embeddings_q');
  if (!init?.rawData || !init.dims || init.dims.length !== 2) throw new Error(`${dir}: no int8 embedding table`);
  const dim = Number(init.dims[1]);
  const raw = init.rawData;
  // A copy: the decoded protobuf's buffer is released with it.
  const q = new Int8Array(raw.byteLength);
  q.set(new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength));
  const table = new Int8WordTable(new Map(Object.entries(tokenizer.model.vocab)), q, dim);
  if (isShipped) shipped = table;
  return table;
}

/** Unit vectors of words, flat (`dim` numbers a word); `found[i]` is 0 where the table has no single entry for word i. */
export interface TableVectors {
  dim: number;
  found: Uint8Array;
  vectors: Float32Array;
}

/**
 * The unit vectors of the words that are one entry of the table: a word alone is its own row, so these are the
 * shipped embedder's vectors of those words (mean-pooled and normalised), without a run of the embedder.
 */
export function tableVectors(table: WordTable, words: string[]): TableVectors {
  const dim = table.dim;
  const out: TableVectors = { dim, found: new Uint8Array(words.length), vectors: new Float32Array(words.length * dim) };
  words.forEach((w, i) => {
    if (/^\p{Ll}+$/u.test(w) && table.unitInto(table.row(w), out.vectors, i * dim)) out.found[i] = 1;
  });
  return out;
}
