// Step 10, guardrail 3: the grounding of an LLM answer in the retrieved passages (a low share is a warning). An
// extractive answer is copied from a retrieved passage, so the check would pass by construction: it is reported as not
// applicable. Also the warning that says why an answer is extractive.
import { ASK_WARNINGS } from '../../ask-schema.js';
import type { AskContext } from '../context.js';
import { groundingScore } from '../guardrails.js';
import type { AskStep } from './step.js';

export class GroundStep implements AskStep {
  readonly name = 'guardrail_grounding';

  constructor(private readonly settings: { groundingThreshold: number }) {}

  async run(ctx: AskContext): Promise<void> {
    const answered = ctx.answered!;
    const threshold = this.settings.groundingThreshold;
    const g = await ctx.time('guardrail_grounding', () =>
      answered.llm
        ? groundingScore(
            answered.answer,
            ctx.kept.map((h) => h.text),
          )
        : null,
    );
    ctx.grounding = g?.score ?? null;
    if (g) {
      if (g.score < threshold) ctx.warnings.push(`Only ${Math.round(g.score * 100)}% of the answer is supported by the retrieved passages: check the sources.`);
      ctx.guardrails.grounding = { applicable: true, passed: g.score >= threshold, score: g.score, unsupported: g.unsupported };
    } else {
      ctx.guardrails.grounding = { applicable: false, reason: 'extractive answer: copied from a retrieved passage' };
    }
    ctx.emit('guardrail_grounding', ctx.guardrails.grounding as Record<string, unknown>);
    if (answered.fallback === 'no_key') ctx.warnings.push(ASK_WARNINGS.noLlm);
    else if (answered.fallback) ctx.warnings.push(`The language model was unavailable (${answered.fallback}); the answer is extractive.`);
  }
}
