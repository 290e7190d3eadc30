// Data helpers of the compact text classifiers' trainers (gru-classifier.ts, sentiment-data.ts, train-emotion.ts): the
// vocabulary, the GloVe-initialised word table, and a deterministic stratified split.
import { rng } from '../../../src/infra/rng.js';
import type { Example } from './data.js';
import { type Glove, roughTokens } from './glove.js';
import { SPECIAL } from './model-dir.js';

/**
 * The vocabulary: the special tokens, the `topGlove` most frequent GloVe words and the lexicon's words, then the
 * training texts' other words seen at least `minCount` times, most frequent first.
 */
export function buildVocab(texts: string[], glove: Glove, topGlove: number, minCount = 2, lexiconWords: string[] = []): string[] {
  const counts = new Map<string, number>();
  for (const t of texts) for (const w of roughTokens(t)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const vocab: string[] = [...SPECIAL];
  const seen = new Set<string>(vocab);
  for (const w of [...glove.words.slice(0, topGlove), ...lexiconWords]) {
    if (!seen.has(w) && !/\s/.test(w)) {
      vocab.push(w);
      seen.add(w);
    }
  }
  const extra = [...counts.entries()].filter(([w, c]) => !seen.has(w) && c >= minCount).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [w] of extra) vocab.push(w);
  return vocab;
}

/** The word table: GloVe vectors scaled to a unit average norm; words GloVe lacks start small and random. */
export function gloveTable(vocab: string[], glove: Glove, seed: number): Float32Array {
  const D = glove.dim;
  const table = new Float32Array(vocab.length * D);
  const rand = rng(seed);
  let normSum = 0;
  let found = 0;
  vocab.forEach((w, i) => {
    const v = glove.vector(w);
    if (!v) return;
    table.set(v, i * D);
    normSum += Math.hypot(...v);
    found++;
  });
  // Unit average norm keeps the first layer's inputs in a friendly range; unknown words start small and random.
  const scale = found ? found / normSum : 1;
  vocab.forEach((w, i) => {
    if (i < SPECIAL.length) return;
    if (glove.vector(w)) for (let d = 0; d < D; d++) table[i * D + d]! *= scale;
    else for (let d = 0; d < D; d++) table[i * D + d] = (rand() - 0.5) * 0.1;
  });
  return table;
}

/** Deterministic stratified split by the first label. */
export function split<T extends Example>(examples: T[], testShare: number, seed: number): { train: T[]; test: T[] } {
  const rand = rng(seed);
  const train: T[] = [];
  const test: T[] = [];
  const byLabel = new Map<string, T[]>();
  for (const e of examples) byLabel.set(e.labels[0]!, [...(byLabel.get(e.labels[0]!) ?? []), e]);
  for (const group of [...byLabel.keys()].sort().map((k) => byLabel.get(k)!)) {
    const shuffled = [...group];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const cut = Math.round(shuffled.length * testShare);
    test.push(...shuffled.slice(0, cut));
    train.push(...shuffled.slice(cut));
  }
  return { train, test };
}
