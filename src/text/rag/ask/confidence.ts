// The confidence score: a weighted sum of four retrieval factors in [0, 1], blended with the extractive reader's
// support for its answer when there is one, with a level and a one-line explanation.

export interface ConfidenceFactors {
  retrieval_quality: number;
  consistency: number;
  coverage: number;
  entity_coverage: number;
  /** The reader's support for an extractive answer (absent for LLM answers). */
  answer_support?: number;
}

export const WEIGHTS = { retrieval_quality: 0.4, consistency: 0.25, coverage: 0.2, entity_coverage: 0.15 };
/** Supporting chunks for full coverage. */
export const FULL_COVERAGE = 3;
/**
 * Share of the score given to the reader's answer support, when there is one. On the odd half of the SQuAD file the
 * four retrieval factors alone do not separate right from wrong extractive answers (ROC AUC 0.49 for "token F1 >=
 * 0.5"); the support does (0.65), so it carries most of the weight.
 */
export const SUPPORT_WEIGHT = 0.75;
/** Level thresholds on the score of LLM answers (the four factors only): high from 0.7, medium from 0.4. */
export const THRESHOLDS = { high: 0.7, medium: 0.4 };
/**
 * Thresholds for extractive answers (the blended score): the terciles of that score over the first 800 questions of
 * the odd half of the SQuAD file (the half the reader's settings were chosen on), rounded, with reader 3.1. Reader 3.2
 * gives lower sentence probabilities, so fewer answers reach high (28%) and each level is right more often.
 */
export const SUPPORTED_THRESHOLDS = { high: 0.73, medium: 0.56 };

const clamp = (x: number) => Math.max(0, Math.min(1, x));
const round = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * retrieval quality = mean semantic similarity of the chunks used; consistency = 1 - 2 x their standard deviation
 * (alike scores are high); coverage = supporting chunks / 3, capped at 1; entity coverage = share of chunks that
 * mention at least one of the question's entities (1 when the question names none).
 * retrieval score = 0.4 x retrieval quality + 0.25 x consistency + 0.2 x coverage + 0.15 x entity coverage.
 * With an extractive answer, `support` is the reader's probability that the answer is right (sentence probability x
 * the span's expected token F1, or the sentence probability for an open answer), and
 * score = (1 - SUPPORT_WEIGHT) x retrieval score + SUPPORT_WEIGHT x support, with its own thresholds.
 */
export function confidenceOf(similarities: number[], entityCoverage: number, support?: number) {
  const n = similarities.length;
  const mean = n ? similarities.reduce((s, x) => s + x, 0) / n : 0;
  const sd = n ? Math.sqrt(similarities.reduce((s, x) => s + (x - mean) ** 2, 0) / n) : 0;
  const factors: ConfidenceFactors = {
    retrieval_quality: round(clamp(mean)),
    consistency: round(n ? clamp(1 - 2 * sd) : 0),
    coverage: round(clamp(n / FULL_COVERAGE)),
    entity_coverage: round(clamp(entityCoverage)),
  };
  const retrieval = (Object.keys(WEIGHTS) as (keyof typeof WEIGHTS)[]).reduce((s, k) => s + WEIGHTS[k] * factors[k], 0);
  const supported = support !== undefined && n > 0;
  if (supported) factors.answer_support = round(clamp(support));
  const score = round(supported ? (1 - SUPPORT_WEIGHT) * retrieval + SUPPORT_WEIGHT * factors.answer_support! : retrieval);
  const t = supported ? SUPPORTED_THRESHOLDS : THRESHOLDS;
  const level: 'high' | 'medium' | 'low' = score >= t.high ? 'high' : score >= t.medium ? 'medium' : 'low';
  const explanation =
    `${level[0]!.toUpperCase()}${level.slice(1)} confidence (${score.toFixed(2)}): ${n} supporting passage${n === 1 ? '' : 's'} ` +
    `with mean similarity ${factors.retrieval_quality.toFixed(2)}, ${factors.consistency >= 0.7 ? 'consistent' : 'uneven'} scores, ` +
    `${Math.round(factors.entity_coverage * 100)}% of passages mentioning the question's entities` +
    (supported ? `, reader support ${factors.answer_support!.toFixed(2)}.` : '.');
  return { score, level: level, factors, explanation, retrieval_score: round(retrieval) };
}

export type ConfidenceOf = ReturnType<typeof confidenceOf>;
