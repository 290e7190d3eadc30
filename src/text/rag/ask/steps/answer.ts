// Step 9: the answer. With an LLM, its answer from the numbered passages (streamed to the caller as it comes), else,
// or when the LLM fails, the extractive reading of the passages that support the question on their own, when the
// neighbourhood of one of their sentences does too (a question the gate let through was read from all of them
// already: that reading is the answer). With the learned decision, an extractive reading it turns down is no answer:
// nothing is streamed for it, and the question is "not in the collection".
import type { Llm } from '../../../llm/llm.js';
import type { SearchHit } from '../../service.js';
import { ANSWERABILITY_FEATURES, type Answerability, answerabilityFeatures, answerabilityProbability, levelOf } from '../answerability.js';
import { confidenceOf } from '../confidence.js';
import type { Answered, AskContext, Decision } from '../context.js';
import type { PassageReader, PassageReading } from '../read-passages.js';
import { NOT_FOUND, notFound } from '../response.js';
import type { SupportSettings, SupportVerdict } from '../support.js';
import type { AskStep, LearnedParts } from './step.js';

/** The learned decision on an extractive reading: the probability that it is right, its verdict and its level. */
export function learnedDecision(
  model: Answerability,
  read: Pick<PassageReading, 'answer' | 'core' | 'answerType' | 'support'>,
  kept: SearchHit[],
  support: SupportVerdict,
  entityShare: number,
): Decision {
  const { factors } = confidenceOf(
    kept.map((h) => h.semantic_score),
    entityShare,
    read.support ?? undefined,
  );
  const x = answerabilityFeatures({
    support,
    factors,
    topSemantic: Math.max(0, ...kept.map((h) => h.semantic_score)),
    answer: read.core ?? read.answer,
    factoid: read.answerType !== 'open',
  });
  const probability = Math.round(answerabilityProbability(model, x) * 1e4) / 1e4;
  return {
    probability,
    threshold: model.threshold,
    passed: probability >= model.threshold,
    level: levelOf(model, probability),
    features: Object.fromEntries(ANSWERABILITY_FEATURES.map((f, i) => [f, Math.round(x[i]! * 1e4) / 1e4])),
  };
}

export interface AnswerOptions {
  llm: Llm;
  reader: PassageReader;
  learned: LearnedParts;
  /** The support check's settings; near the answer only the required terms count (no share). */
  support: SupportSettings;
}

export class AnswerStep implements AskStep {
  readonly name = 'answer';

  constructor(private readonly o: AnswerOptions) {}

  async run(ctx: AskContext): Promise<void> {
    const answered = await ctx.time('answer', () => this.answer(ctx));
    const decision = ctx.decision;
    if (decision) {
      ctx.guardrails.answerability = decision;
      ctx.emit('answerability', decision);
    }
    if (!answered && decision && !decision.passed) {
      ctx.response = notFound(
        ctx,
        `The reader's best answer is unlikely to be right (learned decision: probability ${decision.probability} below ${decision.threshold}): the question is not answered from these passages.`,
      );
    } else if (!answered) {
      // No sentence has the question's key content near it: its words are scattered over the passages.
      ctx.guardrails.support = { ...(ctx.guardrails.support as object), passed: false, sentence_window: false };
      ctx.emit('guardrail_sentence_window', { passed: false });
      ctx.response = notFound(
        ctx,
        "No sentence of the retrieved passages has the question's key terms around it (they are scattered): the question is not answered from them.",
      );
    } else {
      ctx.answered = answered;
      ctx.warnings.push(...answered.warnings);
      ctx.emit('answer', { llm_powered: answered.llm, answer_type: answered.answerType });
    }
  }

  private async answer(ctx: AskContext): Promise<Answered | null> {
    const { gated } = ctx;
    if (gated && !this.decideOn(ctx, gated)) return null;
    if (this.o.llm.available) return this.withLlm(ctx);
    const ex = gated ?? (await this.extract(ctx));
    if (!gated && !this.decideOn(ctx, ex)) return null;
    await ctx.request.onToken?.(ex?.answer ?? NOT_FOUND);
    return ex && { ...ex, llm: false, fallback: 'no_key' };
  }

  /** The LLM's answer from the numbered passages; when it fails, the extractive one, which supersedes what was streamed. */
  private async withLlm(ctx: AskContext): Promise<Answered | null> {
    const { gated, kept } = ctx;
    const { onToken, signal } = ctx.request;
    const prompt = [
      'Answer the question using only the numbered passages below. Cite the passages you use by number in square',
      'brackets, like [1] or [2][3]. If the passages do not contain the answer, say that the documents do not contain it.',
      '',
      `Question: ${ctx.original}`,
      '',
      ...kept.map((h, i) => `[${i + 1}] (${h.source}) ${h.text}`),
    ].join('\n');
    const system = 'You answer strictly from the given documents.';
    // Streaming callers get the provider's tokens as they come.
    const r = onToken ? await this.o.llm.stream(prompt, onToken, { system, signal }) : await this.o.llm.generate(prompt, { system, signal });
    if (r.ok) return { answer: r.text, passage: null, answerType: ctx.tagged.answerType, support: null, llm: true, fallback: null, warnings: [] };
    const ex = gated ?? (await this.extract(ctx));
    if (!gated && !this.decideOn(ctx, ex)) return null;
    // Tokens already streamed are superseded: the client is told before the extractive answer follows.
    ctx.emit('answer_fallback', { reason: r.reason });
    await onToken?.(ex?.answer ?? NOT_FOUND);
    return ex && { ...ex, llm: false, fallback: r.reason };
  }

  /**
   * The extractive reading of the passages that support the question on their own (the others only share some of its
   * words), when some sentence's window holds the terms a passage must hold (names, numbers, rare nouns, one of the
   * things asked about); the share of the rest is the passage's business.
   */
  private extract(ctx: AskContext): Promise<PassageReading | null> {
    const support = ctx.support!;
    const check = ctx.supportCheck!;
    const supporting = ctx.kept.filter((_, i) => support.supporting[i]);
    return this.o.reader.read(ctx.original, ctx.tagged.answerType, supporting, (windows) =>
      check.check(windows, { ...this.o.support, minCoverage: 0 }).then((v) => v.supporting),
    );
  }

  /** Whether a reading is answered: without the learned decision (or a reading), yes; else its verdict, recorded. */
  private decideOn(ctx: AskContext, read: PassageReading | null): boolean {
    const model = this.o.learned.decision;
    if (!read || !model) return true;
    ctx.decision = learnedDecision(model, read, ctx.kept, ctx.support!, ctx.entityShare);
    return ctx.decision.passed;
  }
}
