import { describe, expect, it } from 'vitest';
import { gloveFrom, withValence } from '../../scripts/lib/text/glove.js';
import { gloveTable } from '../../scripts/lib/text/classifier-data.js';

describe("GloVe lookups for the classifiers' word tables", () => {
  const glove = gloveFrom({ dimensions: 2, words: ['good', 'bad'], vectors: { good: [3, 4, 9], bad: [0, -5, 9] } });

  it("reads a word's own vector, cut to the package's dimensions, and its frequency rank", () => {
    expect(Array.from(glove.vector('good')!)).toEqual([3, 4]);
    expect(glove.rank('bad')).toBe(1);
    expect(glove.vector('great')).toBeUndefined();
  });

  it('finds no vector for words that name properties of every object', () => {
    for (const w of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) expect(glove.vector(w)).toBeUndefined();
  });

  it('builds a finite word table when the vocabulary holds such words', () => {
    const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'good', 'constructor', 'bad'];
    const table = gloveTable(vocab, glove, 7);
    expect(table.every(Number.isFinite)).toBe(true);
    // Both known words have norm 5: the mean norm is scaled to 1.
    expect(Math.hypot(table[8]!, table[9]!)).toBeCloseTo(1, 6);
  });

  it('adds a finite valence dimension for a vocabulary word that the lexicon lacks but every object has', () => {
    const data = { dimensions: 2, words: ['good', 'constructor'], vectors: { good: [3, 4], constructor: [0, 5] } };
    const withLexicon = withValence(gloveFrom(data), { good: 3 }, 2);
    expect(Array.from(withLexicon.vector('constructor')!)).toEqual([0, 5, 0]);
    // AFINN +3 at weight 2 x the mean norm (5) per 5 points.
    expect(withLexicon.vector('good')![2]).toBeCloseTo(6, 6);
  });
});
