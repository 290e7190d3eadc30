// Topic analysis: k-means over chunk embeddings (k by silhouette when not given), labelled by distinctive words.
import { lowerCase, removeWords, tokenize0 } from '../search/text-prep.js';
import { rng } from '../../infra/rng.js';
import type { ChunkRecord } from './store.js';

export interface Topic {
  label: string;
  size: number;
  keywords: string[];
  sample_chunks: { source: string; chunk_index: number; excerpt: string }[];
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const dist = (a: Float32Array, b: Float32Array) => Math.max(0, 1 - dot(a, b)); // cosine distance of unit vectors

function normalise(v: Float32Array): Float32Array {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

/** k-means++ seeding and Lloyd iterations in cosine geometry (centroids re-normalised); deterministic by seed. */
export function kmeans(vectors: Float32Array[], k: number, seed = 1): { assign: number[]; centroids: Float32Array[] } {
  const rand = rng(seed);
  const centroids: Float32Array[] = [vectors[Math.floor(rand() * vectors.length)]!];
  while (centroids.length < k) {
    const d = vectors.map((v) => Math.min(...centroids.map((c) => dist(v, c))) ** 2);
    const total = d.reduce((s, x) => s + x, 0);
    let r = rand() * total;
    let pick = 0;
    while (pick < d.length - 1 && (r -= d[pick]!) > 0) pick++;
    centroids.push(vectors[pick]!);
  }
  let assign = new Array<number>(vectors.length).fill(0);
  for (let it = 0; it < 50; it++) {
    const next = vectors.map((v) => centroids.reduce((best, c, j) => (dot(v, c) > dot(v, centroids[best]!) ? j : best), 0));
    const changed = next.some((a, i) => a !== assign[i]);
    assign = next;
    for (let j = 0; j < k; j++) {
      const members = vectors.filter((_, i) => assign[i] === j);
      if (!members.length) continue;
      const sum = new Float32Array(vectors[0]!.length);
      for (const m of members) for (let d = 0; d < sum.length; d++) sum[d]! += m[d]!;
      centroids[j] = normalise(sum);
    }
    if (!changed && it > 0) break;
  }
  return { assign, centroids };
}

/** Mean silhouette (cosine distance); higher is a better separated clustering. */
export function silhouette(vectors: Float32Array[], assign: number[], k: number): number {
  let total = 0;
  vectors.forEach((v, i) => {
    const byCluster = new Array<number[]>(k).fill(null as never).map(() => [] as number[]);
    vectors.forEach((w, j) => {
      if (i !== j) byCluster[assign[j]!]!.push(dist(v, w));
    });
    const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
    const a = mean(byCluster[assign[i]!]!);
    const b = Math.min(...byCluster.map((xs, c) => (c === assign[i] || !xs.length ? Infinity : mean(xs))));
    total += Number.isFinite(b) && Math.max(a, b) > 0 ? (b - a) / Math.max(a, b) : 0;
  });
  return total / vectors.length;
}

const words = (text: string) => removeWords(tokenize0(lowerCase(text))).filter((w) => /^\p{L}{3,}$/u.test(w));

export function topics(records: ChunkRecord[], requestedK?: number): { k: number; chosen_by: string; silhouette: number; clustered_topics: Topic[] } {
  const usable = records.filter((r) => r.embedding);
  const vectors = usable.map((r) => normalise(r.embedding!));
  let k = requestedK ?? 0;
  let best = { k: 1, assign: vectors.map(() => 0), centroids: vectors.length ? [vectors[0]!] : [], score: 0 };
  if (requestedK) {
    const r = kmeans(vectors, k);
    best = { k, ...r, score: vectors.length > k ? silhouette(vectors, r.assign, k) : 0 };
  } else {
    for (let c = 2; c <= Math.min(8, vectors.length - 1); c++) {
      const r = kmeans(vectors, c);
      const score = silhouette(vectors, r.assign, c);
      if (score > best.score || best.k === 1) best = { k: c, ...r, score };
    }
    k = best.k;
  }
  // Distinctive words: frequent in the cluster, rare across the collection (tf-idf over chunks).
  const df = new Map<string, number>();
  const chunkWords = usable.map((r) => words(r.text));
  for (const ws of chunkWords) for (const w of new Set(ws)) df.set(w, (df.get(w) ?? 0) + 1);
  const clustered: Topic[] = [];
  for (let c = 0; c < k; c++) {
    const members = usable.map((r, i) => ({ r, i })).filter(({ i }) => best.assign[i] === c);
    if (!members.length) continue;
    const tf = new Map<string, number>();
    for (const { i } of members) for (const w of chunkWords[i]!) tf.set(w, (tf.get(w) ?? 0) + 1);
    const keywords = [...tf]
      .map(([w, n]) => [w, n * Math.log(usable.length / (df.get(w) ?? 1))] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 6)
      .map(([w]) => w);
    const central = members
      .map(({ r, i }) => ({ r, score: dot(vectors[i]!, best.centroids[c]!) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 2);
    clustered.push({
      label: keywords.slice(0, 3).join(' / '),
      size: members.length,
      keywords,
      sample_chunks: central.map(({ r }) => ({ source: r.source, chunk_index: r.chunk_index, excerpt: r.text.slice(0, 240) })),
    });
  }
  clustered.sort((a, b) => b.size - a.size);
  const chosenBy = requestedK ? 'request' : vectors.length < 3 ? 'too few chunks to compare' : 'silhouette';
  return { k: clustered.length, chosen_by: chosenBy, silhouette: Math.round(best.score * 1e4) / 1e4, clustered_topics: clustered };
}
