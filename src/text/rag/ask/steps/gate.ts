// Step 7: a question the support rule refused is read anyway when a learned part may overrule it. With the learned
// decision (answerability.ts) every such question is read, and the answer step decides on the reading; without, the
// support gate (support-gate.ts) reads a question refused for missing words only (its names, numbers and topic are
// there) and answers it when, from what the passages lack and how sure the reader is, it says they support it.
import { confidenceOf } from '../confidence.js';
import type { AskContext } from '../context.js';
import type { PassageReader } from '../read-passages.js';
import { entityCoverage } from '../response.js';
import { type SupportGate, gateApplies, gateFeatures, gateProbability } from '../support-gate.js';
import type { AskStep, LearnedParts } from './step.js';

export class GateStep implements AskStep {
  readonly name = 'guardrail_support_gate';

  constructor(
    private readonly reader: PassageReader,
    private readonly learned: LearnedParts,
  ) {}

  async run(ctx: AskContext): Promise<void> {
    const { support, kept, notInCatalogue, newest } = ctx;
    // The share of passages that mention the question's entities (or whose author is one): a confidence factor.
    ctx.entityShare = entityCoverage(ctx.entityList, kept, (source) => ctx.catalogue?.get(source)?.author);
    const { decision, gate } = this.learned;
    if (decision && support && !support.passed && !notInCatalogue && !newest) {
      // The learned decision weighs what the rule found against the reading: the reader reads every kept passage.
      ctx.gated = await ctx.time('answer', () => this.reader.read(ctx.original, ctx.tagged.answerType, kept));
    } else if (gate && support && !support.passed && gateApplies(support.lacks) && !notInCatalogue && !newest) {
      await this.applyGate(ctx, gate);
    }
  }

  private async applyGate(ctx: AskContext, gate: SupportGate): Promise<void> {
    const { kept } = ctx;
    const support = ctx.support!;
    const read = await ctx.time('answer', () => this.reader.read(ctx.original, ctx.tagged.answerType, kept));
    if (!read) return;
    const { factors } = confidenceOf(
      kept.map((h) => h.semantic_score),
      ctx.entityShare,
      read.support ?? undefined,
    );
    const features = gateFeatures(support.coverage, support.lacks, factors);
    const probability = gateProbability(gate, features);
    const verdict = { probability: Math.round(probability * 1e4) / 1e4, threshold: gate.threshold, passed: probability >= gate.threshold };
    ctx.guardrails.support = { ...(ctx.guardrails.support as object), gate: verdict };
    ctx.emit('guardrail_support_gate', { ...verdict, features: Object.fromEntries(gate.features.map((f, i) => [f, features[i]])) });
    if (verdict.passed) ctx.gated = read;
  }
}
