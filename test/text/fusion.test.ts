import { describe, expect, it } from 'vitest';
import { Bm25Index, bm25Tokens, titleWords } from '../../src/text/search/bm25.js';
import { rrfFusion, weightedFusion } from '../../src/text/search/hybrid.js';

const semantic = new Map([
  ['a', 0.6],
  ['b', 0.5],
  ['c', 0.4],
]);
const keyword = new Map([
  ['b', 10],
  ['c', 5],
  ['d', 2],
]);
const combined = (xs: { id: string; combined: number }[]) => Object.fromEntries(xs.map((x) => [x.id, Number(x.combined.toFixed(4))]));

describe('hybrid fusion', () => {
  it('min-max: each list scaled from its worst to its best candidate', () => {
    // semantic a 1, b 0.5, c 0; BM25 b 1, c 0.375, d 0 -> 0.7 s + 0.3 k
    const r = weightedFusion(semantic, keyword, 0.7, 'minmax');
    expect(combined(r)).toEqual({ a: 0.7, b: 0.65, c: 0.1125, d: 0 });
    expect(r.map((x) => x.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('theoretical: cosine scaled from -1 and BM25 from 0 to the best candidate', () => {
    // semantic (v + 1) / 1.6: a 1, b 0.9375, c 0.875; BM25 v / 10: b 1, c 0.5, d 0.2
    const r = weightedFusion(semantic, keyword, 0.7, 'theoretical');
    expect(combined(r)).toEqual({ a: 0.7, b: 0.9563, c: 0.7625, d: 0.06 });
    // A narrow band of similarities no longer outweighs a clear keyword match.
    expect(r.map((x) => x.id)).toEqual(['b', 'c', 'a', 'd']);
    expect(r.find((x) => x.id === 'b')).toMatchObject({ semantic: 0.5, bm25: 10 });
  });

  it('weight 1 ranks by semantic similarity alone, weight 0 by BM25 alone', () => {
    expect(
      weightedFusion(semantic, keyword, 1)
        .map((x) => x.id)
        .slice(0, 3),
    ).toEqual(['a', 'b', 'c']);
    expect(
      weightedFusion(semantic, keyword, 0)
        .map((x) => x.id)
        .slice(0, 3),
    ).toEqual(['b', 'c', 'd']);
  });

  it('reciprocal-rank fusion adds 1 / (60 + rank) from each list', () => {
    const r = rrfFusion(semantic, keyword);
    expect(r[0]).toMatchObject({ id: 'b' });
    expect(r[0]!.combined).toBeCloseTo(1 / 62 + 1 / 61, 10);
    expect(r.find((x) => x.id === 'd')!.combined).toBeCloseTo(1 / 63, 10);
  });
});

describe('keyword search over chunks and their document names', () => {
  const index = () => {
    const bm25 = new Bm25Index();
    bm25.add('w1', 'The establishment of the militia and of a mint are subjects you will resume.', titleWords('1790_george_washington_n.txt'));
    bm25.add(
      'r1',
      'The militia law is obsolete. The militia should be organised like the regular army, and the militia trained.',
      titleWords('1901_theodore_roosevelt_r.txt'),
    );
    bm25.add('r2', 'Forest reserves should be preserves for the wild creatures.', titleWords('1901_theodore_roosevelt_r.txt'));
    bm25.build();
    return bm25;
  };

  it("prefers the chunk of the document a question names over one that says the topic's word more often", () => {
    const ranked = index()
      .search('What did Washington say about the militia?')
      .map(([id]) => id);
    expect(ranked[0]).toBe('w1');
    expect(ranked).toContain('r1');
  });

  it('still ranks by the text when the question names no document', () => {
    expect(index().search('militia law and training')[0]![0]).toBe('r1');
  });

  it("reads a document's path as words", () => {
    expect(titleWords('speeches/1964_lyndon_b_johnson_d.txt')).toBe('speeches 1964 lyndon b johnson d');
  });
});

describe('file names as words', () => {
  it.each([
    ['TulsaJun20_2020.txt', 'Tulsa Jun 20 2020'],
    ['UKBudget2019.txt', 'UK Budget 2019'],
    ['1790_george_washington_n.txt', '1790 george washington n'],
    ['release-notes_v2.txt', 'release notes v 2'],
    ['getting-started.txt', 'getting started'],
    ['pino-api.txt', 'pino api'],
  ])('%s reads as "%s"', (file, words) => {
    expect(titleWords(file)).toBe(words);
  });
});

describe('British and American spellings', () => {
  it('read as one word, in every form of it', () => {
    const same = [
      ['licence', 'license'],
      ['licences', 'licensed'],
      ['colour', 'color'],
      ['behavioural', 'behavioral'],
      ['organise', 'organize'],
      ['organisation', 'organization'],
      ['customised', 'customized'],
      ['centre', 'center'],
      ['centred', 'centered'],
      ['catalogue', 'catalog'],
      ['analyse', 'analyze'],
      ['programme', 'program'],
      ['grey', 'gray'],
    ];
    for (const [british, american] of same) expect(bm25Tokens(british!)).toEqual(bm25Tokens(american!));
  });

  it('leaves words whose "-ise" or "-our" is their own, and keeps them with their own forms', () => {
    for (const [a, b] of [
      ['revise', 'revision'],
      ['precise', 'precision'],
      ['promise', 'promised'],
      ['hundred', 'hundreds'],
      ['referred', 'refer'],
    ])
      expect(bm25Tokens(a!)).toEqual(bm25Tokens(b!));
    expect(bm25Tokens('four hour')).toEqual(['four', 'hour']);
    expect(bm25Tokens('filled')).not.toEqual(bm25Tokens('filed'));
  });

  it('lets a question in one spelling find a passage in the other', () => {
    const bm25 = new Bm25Index();
    bm25.add('a', 'Licensed under the MIT license.');
    bm25.add('b', 'The logger writes one line of JSON per event.');
    bm25.add('c', 'Install it with npm.');
    bm25.build();
    expect(bm25.search('what licence is it under', 3)[0]?.[0]).toBe('a');
  });
});
