import { describe, expect, it } from 'vitest';
import { RelevanceStep } from '../../../src/text/rag/ask/steps/relevance.js';
import { context, hit } from './fakes.js';

describe('relevance step (guardrail 2)', () => {
  it('keeps a passage relevant by either score, and reports what it dropped', async () => {
    const similar = hit('similar', { semantic: 0.5, bm25: 0 });
    const keyword = hit('keyword', { semantic: 0.1, bm25: 4 });
    const neither = hit('neither', { semantic: 0.2, bm25: 1 });
    const ctx = context({
      hits: [similar, keyword, neither],
      entities: { people: ['Ada'], places: [], organizations: ['Navy'], dates: ['1862'], numbers: [] },
    });
    await new RelevanceStep({ minSemantic: 0.4, minBm25: 3 }).run(ctx);
    expect(ctx.kept).toEqual([similar, keyword]);
    expect(ctx.guardrails.relevance).toEqual({ passed: true, kept: 2, dropped: 1, min_semantic: 0.4, min_bm25: 3 });
    expect(ctx.events).toEqual([['guardrail_relevance', ctx.guardrails.relevance]]);
    expect(ctx.entityList).toEqual(['Ada', 'Navy', '1862']);
  });

  it('fails when nothing is relevant', async () => {
    const ctx = context({ hits: [hit('weak', { semantic: 0.1, bm25: 0 })] });
    await new RelevanceStep({ minSemantic: 0.4, minBm25: 3 }).run(ctx);
    expect(ctx.kept).toEqual([]);
    expect(ctx.guardrails.relevance).toMatchObject({ passed: false, dropped: 1 });
  });
});
