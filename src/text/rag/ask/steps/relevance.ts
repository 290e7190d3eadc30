// Step 4, guardrail 2: only chunks relevant enough (by their semantic similarity or their BM25 score) go on.
import type { SearchHit } from '../../service.js';
import type { AskContext } from '../context.js';
import type { AskStep } from './step.js';

export interface RelevanceThresholds {
  /** A chunk is relevant from this cosine similarity... */
  minSemantic: number;
  /** ... or from this BM25 score. */
  minBm25: number;
}

export const isRelevant = (t: RelevanceThresholds) => (h: SearchHit) => h.semantic_score >= t.minSemantic || h.bm25_score >= t.minBm25;

export class RelevanceStep implements AskStep {
  readonly name = 'guardrail_relevance';

  constructor(private readonly thresholds: RelevanceThresholds) {}

  async run(ctx: AskContext): Promise<void> {
    const relevant = isRelevant(this.thresholds);
    const { hits } = ctx;
    ctx.kept = await ctx.time('guardrail_relevance', () => hits.filter(relevant));
    ctx.guardrails.relevance = {
      passed: ctx.kept.length > 0,
      kept: ctx.kept.length,
      dropped: hits.length - ctx.kept.length,
      min_semantic: this.thresholds.minSemantic,
      min_bm25: this.thresholds.minBm25,
    };
    ctx.emit('guardrail_relevance', ctx.guardrails.relevance as Record<string, unknown>);
    const { entities } = ctx;
    ctx.entityList = [entities.people, entities.places, entities.organizations, entities.dates, entities.numbers].flat();
  }
}
