// Consensus among the span ranker's best candidates (minimum-Bayes-risk decoding): the answer is the span that
// overlaps most, in words, with the best candidates weighted by their scores. A span that several good candidates
// share ("the Department of Agriculture", "Department of Agriculture", "Agriculture") wins over an isolated one that
// scored a little higher: the expected token overlap with the answer is what is maximised, not the top score.

export interface ConsensusSettings {
  /** Candidates (best by score) that vote. 1 is plain argmax. */
  spans: number;
  /** Softness of the votes: each candidate weighs exp((score - best) / temperature). */
  temperature: number;
}

/** Words of a span as answers are compared: lower case, without punctuation and the articles a, an, the. */
export function answerWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter((w) => w && w !== 'a' && w !== 'an' && w !== 'the');
}

/** Token F1 between two word lists (bags of words). */
export function overlapF1(a: string[], b: string[]): number {
  if (!a.length || !b.length) return 0;
  const counts = new Map<string, number>();
  for (const w of b) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of a) {
    const k = counts.get(w) ?? 0;
    if (k > 0) {
      common++;
      counts.set(w, k - 1);
    }
  }
  if (!common) return 0;
  const precision = common / a.length;
  const recall = common / b.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Index, into `candidates`, of the consensus span; candidates need not be sorted. */
export function consensus(candidates: { text: string; score: number }[], s: ConsensusSettings): number {
  const ranked = candidates
    .map((c, i) => ({ i, score: c.score }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, Math.max(1, s.spans));
  if (ranked.length === 1) return ranked[0]!.i;
  const top = ranked[0]!.score;
  const weights = ranked.map((r) => Math.exp((r.score - top) / s.temperature));
  const words = ranked.map((r) => answerWords(candidates[r.i]!.text));
  let best = 0;
  let bestValue = -1;
  ranked.forEach((_, a) => {
    let value = 0;
    ranked.forEach((__, b) => (value += weights[b]! * overlapF1(words[a]!, words[b]!)));
    if (value > bestValue) {
      bestValue = value;
      best = a;
    }
  });
  return ranked[best]!.i;
}
