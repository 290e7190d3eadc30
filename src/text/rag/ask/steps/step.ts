// One step of the ask pipeline (pipeline.ts): its settings and collaborators at construction, and one `run` over the
// question's context (context.ts), which it reads and fills in. A step that ends the question (a refusal, an answer
// from the catalogue, the final answer) sets `context.response`; the pipeline stops there.
import type { AskContext } from '../context.js';
import type { Answerability } from '../answerability.js';
import type { SupportGate } from '../support-gate.js';

export interface AskStep {
  /** The step's name, as its event and timing are named. */
  readonly name: string;
  run(ctx: AskContext): Promise<void>;
}

/** The learned decisions that training and evaluation replace while the pipeline runs (AskPipeline's use* methods). */
export interface LearnedParts {
  /** Reconsiders the support rule's refusals for missing words; null: the rule alone decides. */
  gate: SupportGate | null;
  /** "Not in the collection" as a learned decision; it replaces the gate when given. */
  decision: Answerability | null;
  /** The span's expected token F1 below which a factoid is answered with its sentence. */
  spanDoubt: number;
}
