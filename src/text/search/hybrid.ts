// Fusing semantic and keyword rankings: min-max-normalised weighted sum (default 0.7 / 0.3) or reciprocal-rank fusion.

export interface Scored {
  id: string;
  semantic: number;
  bm25: number;
  combined: number;
}

function normalise(values: Map<string, number>): Map<string, number> {
  const xs = [...values.values()];
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  return new Map([...values].map(([k, v]) => [k, max > min ? (v - min) / (max - min) : xs.length ? 1 : 0]));
}

/** Every candidate of either list, scored by `combine`, best first (a candidate missing from a list has 0 there). */
function fuse(semantic: Map<string, number>, keyword: Map<string, number>, combine: (id: string) => number): Scored[] {
  return [...new Set([...semantic.keys(), ...keyword.keys()])]
    .map((id) => ({ id, semantic: semantic.get(id) ?? 0, bm25: keyword.get(id) ?? 0, combined: combine(id) }))
    .sort((a, b) => b.combined - a.combined);
}

/** Each score is scaled to [0, 1] over the candidates before mixing. */
export function weightedFusion(semantic: Map<string, number>, keyword: Map<string, number>, semanticWeight = 0.7): Scored[] {
  const s = normalise(semantic);
  const k = normalise(keyword);
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
