// "Not in the collection" as a learned decision. The reader reads the retrieved passages whatever the support rule
// (support.ts) says, and a logistic model over what the rule found (what the best passage lacks, how much of the
// question it covers), how sure the reader is and how well the passages were retrieved gives the probability that the
// answer shown is right; below the threshold, the answer is "not in the collection". The support rule's verdict is one
// input among the others, not the decision.
// Trained by `npm run train:answerability` on questions nobody fitted anything else on: SQuAD 2.0's fitting articles
// (answerable and unanswerable questions) and the development halves of the evaluation collections; its threshold is
// chosen on SQuAD 2.0's development articles and those halves (scripts/train-answerability.ts).
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../../infra/paths.js';
import type { ConfidenceFactors } from './confidence.js';
import type { SupportVerdict } from './support.js';
import { type SupportGate, gateProbability } from './support-gate.js';

/** What the decision reads: the support rule's verdict, the confidence factors of the reading, the retrieval and the answer. */
export interface AnswerabilityInput {
  support: Pick<SupportVerdict, 'passed' | 'coverage' | 'lacks'>;
  factors: ConfidenceFactors;
  topSemantic: number;
  answer: string;
  factoid: boolean;
}

// Each feature by the name its model file lists it under; the model's weights follow this order (checked on load).
const FEATURES = {
  support_passed: (x: AnswerabilityInput) => (x.support.passed ? 1 : 0),
  coverage: (x: AnswerabilityInput) => x.support.coverage,
  names_missing: (x: AnswerabilityInput) => Math.min(3, x.support.lacks.names),
  topic_missing: (x: AnswerabilityInput) => (x.support.lacks.topic ? 1 : 0),
  nothing_asked: (x: AnswerabilityInput) => (x.support.lacks.nothingAsked ? 1 : 0),
  rare_nouns_missing: (x: AnswerabilityInput) => Math.min(4, x.support.lacks.rareNouns),
  missing_weight: (x: AnswerabilityInput) => x.support.lacks.missingWeight,
  answer_support: (x: AnswerabilityInput) => x.factors.answer_support ?? 0,
  retrieval_quality: (x: AnswerabilityInput) => x.factors.retrieval_quality,
  consistency: (x: AnswerabilityInput) => x.factors.consistency,
  entity_coverage: (x: AnswerabilityInput) => x.factors.entity_coverage,
  // No BM25 score: its scale follows the collection (a word's rarity grows with the number of chunks), so a folder of
  // a few files scored low whatever the match, and its answers fell below the threshold.
  top_semantic: (x: AnswerabilityInput) => x.topSemantic,
  answer_words: (x: AnswerabilityInput) => Math.log1p(x.answer.split(/\s+/).filter(Boolean).length),
  factoid: (x: AnswerabilityInput) => (x.factoid ? 1 : 0),
} satisfies Record<string, (x: AnswerabilityInput) => number>;

export const ANSWERABILITY_FEATURES = Object.keys(FEATURES) as (keyof typeof FEATURES)[];

export interface Answerability extends SupportGate {
  /** Probability from which the answer is shown; below, "not in the collection". */
  threshold: number;
  /** Probabilities from which an answer's confidence is high, and medium (below: low). */
  levels: { high: number; medium: number };
}

export function answerabilityFeatures(x: AnswerabilityInput): number[] {
  return ANSWERABILITY_FEATURES.map((f) => FEATURES[f](x));
}

/** The same standardised logistic model as the support gate's. */
export const answerabilityProbability = (model: Answerability, x: number[]): number => gateProbability(model, x);

export function levelOf(model: Answerability, probability: number): 'high' | 'medium' | 'low' {
  return probability >= model.levels.high ? 'high' : probability >= model.levels.medium ? 'medium' : 'low';
}

export const ANSWERABILITY_FILE = 'models/text/reader/answerability.json';

/** The shipped model (the `model` of the file train:answerability writes). */
export function loadAnswerability(file = fromRoot(ANSWERABILITY_FILE)): Answerability {
  const { model } = JSON.parse(readFileSync(file, 'utf8')) as { model: Answerability };
  if (model.features.join() !== ANSWERABILITY_FEATURES.join())
    throw new Error(`${file}: its features differ from the service's (${ANSWERABILITY_FEATURES.join(', ')})`);
  return model;
}
