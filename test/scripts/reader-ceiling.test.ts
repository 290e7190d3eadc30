import { describe, expect, it } from 'vitest';
import { KINDS, type Kind, ceilingOf } from '../../scripts/lib/text/reader-diagnosis.js';

const counts = (given: Partial<Record<Kind, number>>) => ({ ...Object.fromEntries(KINDS.map((k) => [k, 0])), ...given }) as Record<Kind, number>;

describe('the ceiling of a refusal decision over the reader', () => {
  it('counts the right readings and every unanswerable question as right, the other answerable ones as wrong', () => {
    const ceiling = ceilingOf(
      {
        // 3 + 1 right of 10 answerable, 2 unanswerable: 6 of 12.
        a: {
          factoid: counts({ right: 3, not_retrieved: 2, wrong_sentence_answer_in_first_passage: 2 }),
          open: counts({ right: 1, refused_before_reading: 1, right_sentence_wrong_span: 1 }),
        },
        // 1 right of 4 answerable, no unanswerable: 1 of 4.
        b: { factoid: counts({ right: 1, wrong_sentence_answer_in_later_passage: 3 }) },
      },
      { a: 2 },
    );
    expect(ceiling.collections).toEqual({ a: { questions: 12, right: 6, share: 0.5 }, b: { questions: 4, right: 1, share: 0.25 } });
    expect(ceiling.mean_share).toBe(0.375);
  });
});
