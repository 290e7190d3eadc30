// The confidence score: a weighted sum of four factors in [0, 1], with a level and a one-line explanation.

export interface ConfidenceFactors {
  retrieval_quality: number;
  consistency: number;
  coverage: number;
  entity_coverage: number;
}

export const WEIGHTS: ConfidenceFactors = { retrieval_quality: 0.4, consistency: 0.25, coverage: 0.2, entity_coverage: 0.15 };
/** Supporting chunks for full coverage. */
export const FULL_COVERAGE = 3;

const clamp = (x: number) => Math.max(0, Math.min(1, x));
const round = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * retrieval quality = mean semantic similarity of the chunks used; consistency = 1 - 2 x their standard deviation
 * (alike scores are high); coverage = supporting chunks / 3, capped at 1; entity coverage = share of chunks that
 * mention at least one of the question's entities (1 when the question names none).
 */
export function confidenceOf(similarities: number[], entityCoverage: number) {
  const n = similarities.length;
  const mean = n ? similarities.reduce((s, x) => s + x, 0) / n : 0;
  const sd = n ? Math.sqrt(similarities.reduce((s, x) => s + (x - mean) ** 2, 0) / n) : 0;
  const factors: ConfidenceFactors = {
    retrieval_quality: round(clamp(mean)),
    consistency: round(n ? clamp(1 - 2 * sd) : 0),
    coverage: round(clamp(n / FULL_COVERAGE)),
    entity_coverage: round(clamp(entityCoverage)),
  };
  const score = round((Object.keys(WEIGHTS) as (keyof ConfidenceFactors)[]).reduce((s, k) => s + WEIGHTS[k] * factors[k], 0));
  const level = score >= 0.7 ? 'high' : score >= 0.4 ? 'medium' : 'low';
  const explanation =
    `${level[0]!.toUpperCase()}${level.slice(1)} confidence (${score.toFixed(2)}): ${n} supporting passage${n === 1 ? '' : 's'} ` +
    `with mean similarity ${factors.retrieval_quality.toFixed(2)}, ${factors.consistency >= 0.7 ? 'consistent' : 'uneven'} scores, ` +
    `${Math.round(factors.entity_coverage * 100)}% of passages mentioning the question's entities.`;
  return { score, level: level, factors, explanation };
}
