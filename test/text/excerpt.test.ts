import { describe, expect, it } from 'vitest';
import { MAX_SENTENCE_CHARS, excerpt } from '../../src/text/rag/ask/excerpt.js';

const tip = (i: number) => `Tip number ${i} of the list: run the tool with option ${i} for report kind ${i}`;

describe('an answer with a sentence of many lines', () => {
  const tips = Array.from({ length: 12 }, (_, i) => tip(i));
  tips[7] = 'To change the sampling frequency to 100 Hz: tool record -F 100';
  const file = tips.join('\n');

  it('shows the lines around the one that holds most of the question, marked where cut', () => {
    expect(file.length).toBeGreaterThan(MAX_SENTENCE_CHARS);
    expect(excerpt(file, 'how do I change the sampling frequency?')).toBe(`… ${tips[6]}\n${tips[7]}\n${tips[8]} …`);
  });

  it('leaves a short answer, a long one of few lines and prose of many sentences as they are', () => {
    expect(excerpt(tips.slice(0, 3).join('\n'), 'sampling frequency')).toBe(tips.slice(0, 3).join('\n'));
    const long = 'word '.repeat(200).trim();
    expect(excerpt(long, 'word')).toBe(long);
    const prose = Array.from({ length: 12 }, (_, i) => `This is sentence ${i} of a paragraph of prose.`).join('\n');
    expect(excerpt(prose, 'sentence paragraph')).toBe(prose);
    // One long sentence of prose wrapped at a width, in lower case or in capitals, is prose.
    const clause = 'the licensee may copy and distribute the work, provided that every copy carries this notice and';
    const wrapped = ['You may do so only if', ...Array.from({ length: 6 }, () => clause), 'no fee is charged.'].join('\n');
    expect(excerpt(wrapped, 'copy notice')).toBe(wrapped);
    const capitals = wrapped.toUpperCase().replace(/\nTHE /g, '\nAND THE ');
    expect(excerpt(capitals, 'copy notice')).toBe(capitals);
  });

  it('cuts only the long sentence of an answer that has others', () => {
    const answer = `The tips are listed below. ${file}`;
    expect(excerpt(answer, 'sampling frequency')).toBe(`The tips are listed below. … ${tips[6]}\n${tips[7]}\n${tips[8]} …`);
  });
});
