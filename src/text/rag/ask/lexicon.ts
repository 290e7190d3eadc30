// A general English vocabulary: the shipped embedder's 80,000 words in GloVe frequency order. Typo fixing leaves
// every word of it alone, and the support check weighs a question's words by how rare they are in general English.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../../infra/paths.js';
import { DEFAULT_TEXT_MODELS } from '../../model-dirs.js';

export interface Lexicon {
  /** True for a word of the vocabulary (lower case). */
  has(word: string): boolean;
  /** Frequency rank (0 = most frequent), undefined for an unknown word. */
  rank(word: string): number | undefined;
  /** The `n` most frequent words, most frequent first. */
  frequent(n: number): string[];
  readonly size: number;
}

/** A lexicon from words listed most frequent first. */
export function lexiconOf(words: Iterable<string>): Lexicon {
  const ranks = new Map<string, number>();
  for (const w of words) if (!ranks.has(w)) ranks.set(w, ranks.size);
  const ordered = [...ranks.keys()];
  return { has: (w) => ranks.has(w), rank: (w) => ranks.get(w), frequent: (n) => ordered.slice(0, n), size: ranks.size };
}

let shipped: Lexicon | null = null;

/**
 * The words of a word-level tokenizer.json (the shipped embedder's), special tokens and punctuation left out. Read
 * once: the file is 1.3 MB and the same for every request.
 */
export function loadLexicon(dir = fromRoot(DEFAULT_TEXT_MODELS.embedder)): Lexicon {
  if (shipped && dir === fromRoot(DEFAULT_TEXT_MODELS.embedder)) return shipped;
  const tokenizer = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as { model: { type: string; vocab: Record<string, number> } };
  if (tokenizer.model.type !== 'WordLevel') throw new Error(`${dir} has no word-level vocabulary`);
  const ordered = Object.entries(tokenizer.model.vocab)
    .filter(([w]) => /^\p{L}[\p{L}'-]*$/u.test(w))
    .sort((a, b) => a[1] - b[1])
    .map(([w]) => w);
  const lexicon = lexiconOf(ordered);
  if (dir === fromRoot(DEFAULT_TEXT_MODELS.embedder)) shipped = lexicon;
  return lexicon;
}
