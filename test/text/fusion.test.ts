import { describe, expect, it } from 'vitest';
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
