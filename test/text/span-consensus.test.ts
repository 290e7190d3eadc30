import { describe, expect, it } from 'vitest';
import { answerWords, consensus, overlapF1 } from '../../src/text/rag/ask/span-consensus.js';

describe('consensus among the best spans', () => {
  it('compares answers as SQuAD does: lower case, no punctuation, no articles', () => {
    expect(answerWords('The Department of Agriculture,')).toEqual(['department', 'of', 'agriculture']);
    // Two of three words shared each way: precision 2/3, recall 2/2 -> F1 0.8.
    expect(overlapF1(['department', 'of', 'agriculture'], ['department', 'agriculture'])).toBeCloseTo(0.8, 10);
    expect(overlapF1([], ['x'])).toBe(0);
  });

  it('picks the span the good candidates share over an isolated one that scored a little higher', () => {
    const spans = [
      { text: 'Boston', score: 2.0 },
      { text: 'the Department of Agriculture', score: 1.9 },
      { text: 'Department of Agriculture', score: 1.8 },
      { text: 'Agriculture', score: 1.7 },
    ];
    // Weights at temperature 1: e^0, e^-0.1, e^-0.2, e^-0.3. "Boston" overlaps only itself: 1.0. Both spellings of
    // "Department of Agriculture" are one answer, overlapping both (0.905 + 0.819) and "Agriculture" at F1 0.5
    // (0.5 x 0.741): 2.09; the tie between them goes to the better-scored one.
    expect(consensus(spans, { spans: 4, temperature: 1 })).toBe(1);
    // Only the best candidate votes: the best score wins.
    expect(consensus(spans, { spans: 1, temperature: 1 })).toBe(0);
    // A sharp temperature leaves the top candidate alone in the vote.
    expect(consensus(spans, { spans: 4, temperature: 0.01 })).toBe(0);
  });
});
