import { describe, expect, it } from 'vitest';
import type { ChunkRecord } from '../../../src/text/rag/store.js';
import { CorpusVocabulary } from '../../../src/text/rag/ask/corpus.js';
import { lexiconOf } from '../../../src/text/rag/ask/lexicon.js';
import type { QuestionNlp } from '../../../src/text/rag/ask/question-nlp.js';
import { RewriteStep } from '../../../src/text/rag/ask/steps/rewrite.js';
import { context, fakeLlm } from './fakes.js';

const corpus = new CorpusVocabulary({
  generation: 1,
  chunks: () => ['The railroad crossed the prairie.', 'The railroad company grew.'].map((text) => ({ text, source: 'rail.txt' }) as ChunkRecord),
});
const tagged: QuestionNlp = {
  entities: { people: [], places: ['Kansas'], organizations: [], dates: [], numbers: [] },
  answerType: 'factoid',
  nouns: ['railroad'],
};
const options = (llm = fakeLlm(null).llm, llmRewrite = false) => ({
  llm,
  abbreviations: { US: 'United States' },
  llmRewrite,
  lexicon: lexiconOf(['the', 'when', 'did', 'reach', 'in']),
  corpus,
  tag: async () => tagged,
});

describe('rewrite step', () => {
  it('expands abbreviations and fixes typos against the collection, and reports both with the entities', async () => {
    const ctx = context({ original: 'When did the US raillroad reach Kansas?' });
    await new RewriteStep(options()).run(ctx);
    expect(ctx.rewritten).toBe('When did the United States railroad reach Kansas?');
    expect(ctx.changes.map((c) => c.kind)).toEqual(['abbreviation', 'typo']);
    expect(ctx.tagged).toBe(tagged);
    expect(ctx.entities.places).toEqual(['Kansas']);
    expect(ctx.events).toEqual([['rewrite', { original: ctx.original, rewritten: ctx.rewritten, changes: ctx.changes, entities: tagged.entities }]]);
  });

  it("takes the LLM's query with RAG_LLM_REWRITE, passing the client's abort signal, and drops a drifting one", async () => {
    const signal = new AbortController().signal;
    const { llm, signals } = fakeLlm({ ok: true, text: 'railroad Kansas arrival year', provider: 'openai', model: 'm' });
    const ctx = context({ original: 'When did the railroad reach Kansas?' }, { signal });
    await new RewriteStep(options(llm, true)).run(ctx);
    expect(ctx.rewritten).toBe('railroad Kansas arrival year');
    expect(ctx.changes.at(-1)).toMatchObject({ kind: 'llm' });
    expect(signals).toEqual([signal]);
    const drifting = fakeLlm({ ok: true, text: 'x'.repeat(500), provider: 'openai', model: 'm' });
    const again = context({ original: 'When did the railroad reach Kansas?' });
    await new RewriteStep(options(drifting.llm, true)).run(again);
    expect(again.rewritten).toBe('When did the railroad reach Kansas?');
  });
});
