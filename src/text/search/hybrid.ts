// Fusing semantic and keyword rankings: a weighted sum of normalised scores (default 0.7 / 0.3) or reciprocal-rank
// fusion. Normalisation "theoretical" scales each score from its theoretical minimum (cosine -1, BM25 0) to the best
// candidate's score (Bruch et al. 2023, "An Analysis of Fusion Functions for Hybrid Retrieval"); "minmax" scales
// from the worst candidate to the best, which stretches a narrow band of similarities over [0, 1].

export type Normalisation = 'theoretical' | 'minmax';

export interface Scored {
  id: string;
  semantic: number;
  bm25: number;
  combined: number;
}

function normalise(values: Map<string, number>, floor?: number): Map<string, number> {
  const xs = [...values.values()];
  const min = floor ?? Math.min(...xs);
  const max = Math.max(...xs);
  return new Map([...values].map(([k, v]) => [k, max > min ? (v - min) / (max - min) : xs.length ? 1 : 0]));
}

/** Every candidate of either list, scored by `combine`, best first (a candidate missing from a list has 0 there). */
function fuse(semantic: Map<string, number>, keyword: Map<string, number>, combine: (id: string) => number): Scored[] {
  return [...new Set([...semantic.keys(), ...keyword.keys()])]
    .map((id) => ({ id, semantic: semantic.get(id) ?? 0, bm25: keyword.get(id) ?? 0, combined: combine(id) }))
    .sort((a, b) => b.combined - a.combined);
}

/** Each score is scaled to [0, 1] before mixing. */
export function weightedFusion(
  semantic: Map<string, number>,
  keyword: Map<string, number>,
  semanticWeight = 0.7,
  normalisation: Normalisation = 'theoretical',
): Scored[] {
  const theoretical = normalisation === 'theoretical';
  const s = normalise(semantic, theoretical ? -1 : undefined);
  const k = normalise(keyword, theoretical ? 0 : undefined);
  return fuse(semantic, keyword, (id) => semanticWeight * (s.get(id) ?? 0) + (1 - semanticWeight) * (k.get(id) ?? 0));
}

/** Reciprocal-rank fusion (k = 60): rank positions only, no score scales. */
export function rrfFusion(semantic: Map<string, number>, keyword: Map<string, number>, k = 60): Scored[] {
  const rank = (m: Map<string, number>) => new Map([...m].sort((a, b) => b[1] - a[1]).map(([id], i) => [id, i + 1]));
  const rs = rank(semantic);
  const rk = rank(keyword);
  const term = (r: number | undefined) => (r === undefined ? 0 : 1 / (k + r));
  return fuse(semantic, keyword, (id) => term(rs.get(id)) + term(rk.get(id)));
}

/** The highest dot product of the query with a row of the packed matrix. */
export function bestRow(q: number[], rows: Float32Array): number {
  let best = -Infinity;
  for (let at = 0; at < rows.length; at += q.length) {
    let s = 0;
    for (let d = 0; d < q.length; d++) s += q[d]! * rows[at + d]!;
    best = Math.max(best, s);
  }
  return best;
}
