import { describe, expect, it } from 'vitest';
import { CatalogueStep } from '../../../src/text/rag/ask/steps/catalogue.js';
import type { DocumentMeta } from '../../../src/text/rag/documents.js';
import { context, fakeReader, hit, reading, verdict } from './fakes.js';

/** The indexed documents' names, for questions about the whole collection (none of these asks one). */
const indexed = async () => ['1941.txt', '1961.txt'];

const catalogue = new Map<string, DocumentMeta>([
  ['1941.txt', { author: 'Franklin D. Roosevelt', date: '1941-01-06', title: 'Annual Message', kind: 'address', role: 'president' }],
  ['1961.txt', { author: 'Dwight D. Eisenhower', date: '1961-01-12', title: 'Annual Message', kind: 'address', role: 'president' }],
]);

describe('catalogue step', () => {
  it('answers who gave a document from the catalogue, with the evidence of its best passage, and streams it', async () => {
    const tokens: string[] = [];
    const { reader } = fakeReader(reading('We look forward to a world founded upon four essential human freedoms', { answerType: 'open' }));
    const ctx = context(
      { original: 'Who gave the 1941 address?', catalogue, kept: [hit('freedoms', { source: '1941.txt' })] },
      { onToken: (t) => void tokens.push(t) },
    );
    await new CatalogueStep(reader, indexed).run(ctx);
    expect(ctx.response?.answer).toBe('Franklin D. Roosevelt');
    expect(ctx.response?.answer_type).toBe('factoid');
    expect(tokens).toEqual(['Franklin D. Roosevelt']);
    expect(ctx.guardrails.catalogue).toEqual({ fact: 'author', passed: true, source: '1941.txt', matched_by: 'year' });
    expect((ctx.response?.guardrails as { grounding: unknown }).grounding).toMatchObject({ applicable: false });
    expect(ctx.response?.warnings.at(-1)).toMatch(/catalogue of documents .*1941\.txt \(Annual Message\)/);
    expect(ctx.events.map(([s]) => s)).toEqual(['catalogue']);
  });

  it('marks a year no document has, for the refusal, without answering', async () => {
    const ctx = context({ original: 'Who gave the 1950 address?', catalogue, kept: [hit('x')] });
    await new CatalogueStep(fakeReader(null).reader, indexed).run(ctx);
    expect(ctx.response).toBeNull();
    expect(ctx.notInCatalogue).toEqual(['1950']);
    expect(ctx.guardrails.catalogue).toEqual({ fact: 'author', passed: false, missing: ['1950'] });
  });

  it('marks a speaker none of whose words the collection holds, and a question about the present', async () => {
    const speaker = context({
      original: 'What did Kennedy say about the moon?',
      catalogue,
      entities: { people: ['Kennedy'], places: [], organizations: [], dates: [], numbers: [] },
    });
    await new CatalogueStep(fakeReader(null).reader, indexed).run(speaker);
    expect(speaker.notInCatalogue).toEqual(['Kennedy']);
    const present = context({ original: 'Who is the current president?', catalogue });
    await new CatalogueStep(fakeReader(null).reader, indexed).run(present);
    expect(present.newest).toBe('1961-01-12');
    expect(present.guardrails.catalogue).toEqual({ fact: 'present', passed: false, newest: '1961-01-12' });
  });

  it('reads the passages for a question that only they tie to a document, when they support it', async () => {
    const { reader, calls } = fakeReader(reading('the military-industrial complex', { passage: { text: 'Beware.', source: '1961.txt', chunk_index: 0 } }));
    const kept = [hit('Beware the military-industrial complex.', { source: '1961.txt' })];
    const ctx = context({ original: 'Which president warned about the military-industrial complex?', catalogue, kept, support: verdict() });
    await new CatalogueStep(reader, indexed).run(ctx);
    expect(calls[0]).toMatchObject({ question: 'warned about the military-industrial complex?', type: 'open' });
    expect(ctx.response?.answer).toBe('Dwight D. Eisenhower');
    expect(ctx.guardrails.catalogue).toMatchObject({ matched_by: 'retrieval', source: '1961.txt' });
  });

  it('leaves a question about what the documents say alone', async () => {
    const ctx = context({ original: 'What are the four freedoms?', catalogue });
    await new CatalogueStep(fakeReader(null).reader, indexed).run(ctx);
    expect(ctx.response).toBeNull();
    expect(ctx.guardrails.catalogue).toBeUndefined();
  });
});
