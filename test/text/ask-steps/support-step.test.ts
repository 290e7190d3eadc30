import { describe, expect, it } from 'vitest';
import type { ChunkRecord } from '../../../src/text/rag/store.js';
import { CorpusVocabulary } from '../../../src/text/rag/ask/corpus.js';
import { lexiconOf } from '../../../src/text/rag/ask/lexicon.js';
import type { QuestionNlp } from '../../../src/text/rag/ask/question-nlp.js';
import { DEFAULT_SUPPORT } from '../../../src/text/rag/ask/support.js';
import { SupportStep } from '../../../src/text/rag/ask/steps/support.js';
import type { SearchHit } from '../../../src/text/rag/service.js';
import { context, hit } from './fakes.js';

const lexicon = lexiconOf('the of a in what did who when build built canal company year was'.split(' '));
const tagged: QuestionNlp = { entities: { people: [], places: [], organizations: ['Erie'], dates: [], numbers: [] }, answerType: 'factoid', nouns: ['canal'] };

function step(holding: SearchHit[], texts: string[] = ['The canal was built by the state.', 'Rain fell.', 'Ships sailed.', 'Taxes rose.']) {
  const asked: string[][] = [];
  const s = new SupportStep({
    rag: { searchHolding: async (_q: string, _k: number, names: string[]) => (asked.push(names), holding) },
    settings: DEFAULT_SUPPORT,
    relevant: (h) => h.semantic_score >= 0.3,
    lexicon,
    wordVectors: undefined,
    corpus: new CorpusVocabulary({ generation: 1, chunks: () => texts.map((text) => ({ text, source: 'notes.txt' }) as ChunkRecord) }),
    tag: async () => tagged,
  });
  return { s, asked };
}

const question = { original: 'Who built the Erie canal?', rewritten: 'Who built the Erie canal?', tagged, entities: tagged.entities };

describe('support step (guardrail 2b)', () => {
  it('passes passages that hold the question’s name and noun, and counts the entities they mention', async () => {
    const kept = [hit('The Erie canal was built by the state.')];
    const ctx = context({ ...question, kept, entityList: ['Erie'] });
    await step([]).s.run(ctx);
    expect(ctx.support?.passed).toBe(true);
    expect(ctx.guardrails.support).toMatchObject({ passed: true, missing: [] });
    expect(ctx.events.map(([s]) => s)).toEqual(['guardrail_support']);
    expect(ctx.stats).toEqual({ Erie: { chunks: 1, sources: ['doc.txt'] } });
  });

  it('brings in the best chunks that name what the kept ones lack, first, and checks again', async () => {
    const named = hit('The Erie canal company built it in 1825.', { source: 'erie.txt' });
    const weak = hit('Erie is also named in a passage too far from the question.', { semantic: 0.1 });
    const kept = [hit('The canal was built by the state.')];
    const { s, asked } = step([named, weak]);
    const ctx = context({ ...question, kept });
    await s.run(ctx);
    expect(asked).toEqual([['Erie']]);
    expect(ctx.kept.map((h) => h.source)).toEqual(['erie.txt', 'doc.txt']);
    expect(ctx.support?.passed).toBe(true);
    expect(ctx.events.map(([s]) => s)).toEqual(['retrieve_names', 'guardrail_support']);
    expect(ctx.events[0]![1]).toEqual({ names: ['Erie'], added: 1 });
  });

  it("does not look elsewhere for a question asked of one author's documents", async () => {
    const { s, asked } = step([hit('The Erie canal.')]);
    const ctx = context({ ...question, kept: [hit('The canal was built by the state.')], speakerDocs: new Set(['doc.txt']) });
    await s.run(ctx);
    expect(asked).toEqual([]);
    expect(ctx.support?.passed).toBe(false);
    expect(ctx.guardrails.support).toMatchObject({ passed: false, missing: ['Erie'] });
  });

  it('checks nothing when no passage was kept, but still leaves the check for the answer', async () => {
    const ctx = context({ ...question, kept: [] });
    await step([]).s.run(ctx);
    expect(ctx.support).toBeNull();
    expect(ctx.supportCheck).not.toBeNull();
    expect(ctx.events).toEqual([]);
  });
});
