// Step 11: the confidence of the answer (the learned decision's probability and level when it decided on an
// extractive reading, else the blended score of confidence.ts), and the response.
import { confidenceOf } from '../confidence.js';
import type { AskContext } from '../context.js';
import { responseOf } from '../response.js';
import type { AskStep } from './step.js';

export class ScoreStep implements AskStep {
  readonly name = 'confidence';

  async run(ctx: AskContext): Promise<void> {
    const answered = ctx.answered!;
    const blended = await ctx.time('confidence', () =>
      confidenceOf(
        ctx.kept.map((h) => h.semantic_score),
        ctx.entityShare,
        answered.support ?? undefined,
      ),
    );
    const decision = ctx.decision;
    ctx.confidence =
      decision && !answered.llm
        ? {
            ...blended,
            score: decision.probability,
            level: decision.level,
            explanation: `${decision.level[0]!.toUpperCase()}${decision.level.slice(1)} confidence (${decision.probability.toFixed(2)}): the learned decision's probability that this answer is right, from how well the passages cover the question, how sure the reader is and how well they were retrieved.`,
          }
        : blended;
    ctx.response = responseOf(ctx, {
      answer: answered.answer,
      passage: answered.passage,
      answerType: answered.answerType,
      llm: answered.llm,
      grounding: ctx.grounding,
      confidence: ctx.confidence,
      warnings: [...ctx.warnings],
    });
  }
}
