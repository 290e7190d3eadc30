import { describe, expect, it } from 'vitest';
import {
  MODERN_YEARS,
  NUMBER_WORDS,
  ORDINAL_WORDS,
  YEARS,
  YEAR_IN_TEXT,
  YEAR_WORD,
  lastName,
  memoise,
  misspeltName,
  oneEditAway,
  sameLastName,
  sameName,
  sameWordStem,
  wordStem,
  withoutAccents,
} from '../../src/text/rag/ask/lexical.js';

describe('the lexical helpers', () => {
  it('remember a function for the most recently used arguments, undefined results included', () => {
    const calls: string[] = [];
    const f = memoise(2, (k) => (calls.push(k), k === 'none' ? undefined : k.toUpperCase()));
    expect([f('a'), f('b'), f('a'), f('none'), f('none')]).toEqual(['A', 'B', 'A', undefined, undefined]);
    // "b" was the least recently used when "none" came: it is computed again, "a" is not.
    f('a');
    f('b');
    expect(calls).toEqual(['a', 'b', 'none', 'b']);
  });

  it('stem a word as BM25 does, and nothing for a stop word', () => {
    expect(wordStem('railroads')).toBe(wordStem('railroad'));
    expect(wordStem('the')).toBeUndefined();
  });

  it('match a name typed with one slip, from five letters, on its last name', () => {
    expect(sameName('lincon', 'lincoln')).toBe(true);
    expect(sameName('linclon', 'lincoln')).toBe(true);
    expect(sameName('bush', 'rush')).toBe(false);
    expect(sameName('lincoln', 'kincoln')).toBe(false);
    expect(lastName("Lyndon B. Johnson's")).toBe('johnson');
    expect(sameLastName('Johnson', 'Lyndon B. Johnson')).toBe(true);
  });

  it("match a passage's word to a question's name with one slip from six letters, two from nine", () => {
    expect(misspeltName('melanchhon', 'melanchthon')).toBe(true);
    expect(misspeltName('obama', 'osama')).toBe(false);
    expect(misspeltName('milennium', 'millennium')).toBe(true);
  });

  it('match another form of a word by its ending, not a word that merely shares its start', () => {
    expect(sameWordStem('martyrdom', 'martyred')).toBe(true);
    expect(sameWordStem('canada', 'canadian')).toBe(true);
    expect(sameWordStem('internet', 'interest')).toBe(false);
  });

  it('list the words one edit away and drop accents', () => {
    const near = oneEditAway('cat');
    expect(['at', 'act', 'cart', 'bat'].every((w) => near.has(w))).toBe(true);
    expect(near.has('cat')).toBe(false);
    expect(withoutAccents('Céleron')).toBe('Celeron');
  });

  it('read numbers, ordinals and years', () => {
    expect(NUMBER_WORDS.indexOf('twelve')).toBe(12);
    expect(ORDINAL_WORDS[9]).toBe('tenth');
    expect(YEAR_IN_TEXT.test('in the 1960s')).toBe(true);
    expect(YEAR_IN_TEXT.test('in 3000')).toBe(false);
    expect(['1862', '1960s', '60s'].every((w) => YEAR_WORD.test(w))).toBe(true);
    expect([...'from 1066 to 1815'.matchAll(YEARS)].map((m) => m[1])).toEqual(['1066', '1815']);
    // The entities' dates start at 1500: "1066" is a number there.
    expect('from 1066 to 1815'.match(MODERN_YEARS)).toEqual(['1815']);
  });
});
