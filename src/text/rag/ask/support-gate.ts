// The support gate. The support rule (support.ts) refuses a question whose passages lack its names, its numbers or the
// topic it asks about: those refusals stand. It also refuses a question whose passages hold all of those but not
// enough of its other words (rare nouns, the common noun asked about, half of the content words): a question in other
// words than its passage ("When was most of Sunnyside developed?" of "...built between the 1950s and 1970s") ends
// there as often as one the collection cannot answer. For those, the reader reads the passages anyway, and a logistic
// model over what the passages lack and how sure the reader and the retrieval are gives the probability that the
// collection answers the question; below the threshold, the answer is "not in the collection" as before.
// Trained by `npm run train:support-gate` (SQuAD's even-numbered articles; threshold chosen on the odd-numbered).
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../../infra/paths.js';
import type { ConfidenceFactors } from './confidence.js';
import type { SupportLacks } from './support.js';

// Each feature of the gate, by the name its model file lists it under, in the order of its weights.
const FEATURES = {
  coverage: (coverage: number) => coverage,
  rare_nouns_missing: (_: number, lacks: SupportLacks) => lacks.rareNouns,
  nothing_asked: (_: number, lacks: SupportLacks) => (lacks.nothingAsked ? 1 : 0),
  missing_weight: (_: number, lacks: SupportLacks) => lacks.missingWeight,
  answer_support: (_: number, __: SupportLacks, factors: ConfidenceFactors) => factors.answer_support ?? 0,
  retrieval_quality: (_: number, __: SupportLacks, factors: ConfidenceFactors) => factors.retrieval_quality,
  consistency: (_: number, __: SupportLacks, factors: ConfidenceFactors) => factors.consistency,
  entity_coverage: (_: number, __: SupportLacks, factors: ConfidenceFactors) => factors.entity_coverage,
} satisfies Record<string, (coverage: number, lacks: SupportLacks, factors: ConfidenceFactors) => number>;

export const GATE_FEATURES = Object.keys(FEATURES) as (keyof typeof FEATURES)[];

export interface SupportGate {
  features: readonly string[];
  /** Standardisation of each feature (value - mean) / scale before the weights apply. */
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
  /** Probability from which the question is answered. */
  threshold: number;
}

/** Whether a refusal by the support rule may be reconsidered by the gate: nothing required by name is missing. */
export function gateApplies(lacks: SupportLacks): boolean {
  return lacks.names === 0 && !lacks.topic;
}

export function gateFeatures(coverage: number, lacks: SupportLacks, factors: ConfidenceFactors): number[] {
  return GATE_FEATURES.map((f) => FEATURES[f](coverage, lacks, factors));
}

export function gateProbability(gate: SupportGate, x: number[]): number {
  const z = x.reduce((s, v, i) => s + gate.weights[i]! * ((v - gate.mean[i]!) / gate.scale[i]!), gate.bias);
  return 1 / (1 + Math.exp(-z));
}

export const SUPPORT_GATE_FILE = 'models/text/reader/support-gate.json';

/** The shipped gate (the `model` of the file train:support-gate writes). */
export function loadSupportGate(file = fromRoot(SUPPORT_GATE_FILE)): SupportGate {
  const { model } = JSON.parse(readFileSync(file, 'utf8')) as { model: SupportGate };
  if (model.features.join() !== GATE_FEATURES.join()) throw new Error(`${file}: its features differ from the service's (${GATE_FEATURES.join(', ')})`);
  return model;
}
