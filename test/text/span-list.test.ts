import { describe, expect, it } from 'vitest';
import { asksForSeveral } from '../../src/text/rag/ask/reader-question.js';
import { wholeList } from '../../src/text/rag/ask/span-list.js';

describe('a question that asks for several things', () => {
  it('is one whose what/which noun is a plural, the head of its phrase', () => {
    expect(asksForSeveral('which versions of the protocol does the broker support?')).toBe(true);
    expect(asksForSeveral('what C types can a sample be?')).toBe(true);
    expect(asksForSeveral('which similarity measures come with the library?')).toBe(true);
    expect(asksForSeveral('what version of bison do i need?')).toBe(false);
    expect(asksForSeveral('which file handles the input side?')).toBe(false);
    expect(asksForSeveral('What is the default port?')).toBe(false);
    expect(asksForSeveral('how many workers are started?')).toBe(false);
  });
});

describe('the list a span is an item of', () => {
  const versions = 'The broker implements version 5.0, 3.1.1, and 3.1 of the protocol.';

  it('is the whole list, from any of its items, without what follows the last one', () => {
    expect(wholeList('5.0', versions)).toBe('5.0, 3.1.1, and 3.1');
    expect(wholeList('3.1.1', versions)).toBe('5.0, 3.1.1, and 3.1');
    expect(wholeList('unsigned char', 'A sample is either unsigned char or short, as configured.')).toBe('unsigned char or short');
    expect(wholeList('Tversky', 'It offers Cosine, Tversky, Dice and Otsuka similarity.')).toBe('Cosine, Tversky, Dice and Otsuka');
  });

  it('keeps the quotes of quoted items', () => {
    expect(wholeList('ttl', "At least one of 'max', 'ttl', or 'maxSize' is required.")).toBe("'max', 'ttl', or 'maxSize'");
  });

  it('leaves a span that is no item of a list, or of one too long to show, as it is', () => {
    expect(wholeList('Boston', 'In 1990, the company moved to Boston, where it grew.')).toBe('Boston');
    expect(wholeList('Boston', 'The company moved to Boston in 1990.')).toBe('Boston');
    const long = `It reads ${Array.from({ length: 15 }, (_, i) => `format${i}`).join(', ')} and plain text.`;
    expect(wholeList('format3', long)).toBe('format3');
    expect(wholeList('absent', versions)).toBe('absent');
  });
});

describe('two phrases joined after a comma', () => {
  it('are two clauses, not a list', () => {
    expect(wholeList('Rice University', 'The land came from Rice University, and Administrator Webb agreed.')).toBe('Rice University');
  });
});

describe('a list with an item the question names', () => {
  it('is not the answer: the question asks for the others', () => {
    const s = 'Such schools may be run by trusts and societies.';
    expect(wholeList('societies', s, 'Along with trusts, what other non-profits may run schools?')).toBe('societies');
    expect(wholeList('societies', s, 'Which non-profits may run schools?')).toBe('trusts and societies');
  });
});
