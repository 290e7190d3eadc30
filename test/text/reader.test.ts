import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASK_WARNINGS } from '../../src/text/rag/ask-schema.js';
import { completeFragment } from '../../src/text/rag/ask/extractive.js';
import { chunkDocument } from '../../src/text/rag/chunker.js';
import { type QaReader, loadQaReader } from '../../src/text/models.js';
import { splitSentences } from '../../src/text/sentences.js';
import { makeApp, tempDir } from '../helpers/app.js';
import { FakeHub } from '../helpers/fake-hub.js';
import { wordMatchReader } from '../helpers/hub-models.js';

// The fixture reader answers with the run of context words that the question also contains (see hub-models.ts).
const dir = wordMatchReader(['new', 'york', 'london', 'navy', 'ships', 'treaty', 'river', 'the']);
const SCALE = 12;

/** p(start) * p(end) when one position of n holds the logit SCALE and the others 0 (the softmax, by hand). */
const peaked = (n: number) => (Math.exp(SCALE) / (Math.exp(SCALE) + n - 1)) ** 2;
/** Context tokens of the fixture: one per word and one per other character (its tokenizer splits punctuation). */
const tokenCount = (text: string) => (text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).length;

describe('extractive QA reader (transformers.js question-answering model)', () => {
  let reader: QaReader;
  beforeAll(async () => {
    reader = await loadQaReader(dir);
  });

  it('answers with the span as written in the context, its character offsets and its score', async () => {
    const context = 'In 1850 the firm moved from Boston to New York, where it grew.';
    const r = await reader.answer('Did it move to new york?', context);
    expect(r.answer).toBe('New York');
    expect(r.start).toBe(context.indexOf('New York'));
    expect(r.end).toBe(r.start + 'New York'.length);
    expect(context.slice(r.start, r.end)).toBe(r.answer);
    expect(r.score).toBeCloseTo(peaked(tokenCount(context)), 4);
  });

  it('gives offsets in the original text after characters outside the basic plane and odd spacing', async () => {
    const context = '😀 Ships 🚢   sailed\tup the\n\nriver to London (by night).';
    const r = await reader.answer('Where is LONDON?', context);
    expect(r).toMatchObject({ answer: 'London', start: context.indexOf('London'), end: context.indexOf('London') + 6 });
  });

  it('reads a context longer than its 512-token window, in overlapping windows', async () => {
    const filler = Array.from({ length: 900 }, (_, i) => `word${i}`).join(' ');
    const context = `${filler} The navy ships sailed. ${filler}`;
    const r = await reader.answer('What about navy ships?', context);
    expect(r.answer).toBe('navy ships');
    expect(r.start).toBe(context.indexOf('navy ships'));
    expect(tokenCount(context)).toBeGreaterThan(1500);
  });

  it('gives an empty answer with score 0 for an empty context', async () => {
    expect(await reader.answer('Where is London?', '   ')).toEqual({ answer: '', score: 0, start: 0, end: 0 });
  });
});

describe('QA reader from the Hub (READER_MODEL)', () => {
  const hub = new FakeHub().publish('test-org/word-match-reader', dir);
  beforeAll(() => hub.start());
  afterAll(() => hub.stop());

  it('loads by Hub id through HF_ENDPOINT into MODEL_CACHE_DIR, and the app offers it as rag.reader', async () => {
    const app = await makeApp({ HF_ENDPOINT: hub.url, MODEL_CACHE_DIR: tempDir('reader-cache-'), READER_MODEL: 'test-org/word-match-reader' });
    try {
      const reader = await app.rag.reader!();
      const context = 'They signed the treaty in Paris.';
      expect(await reader.answer('The treaty?', context)).toMatchObject({
        answer: 'the treaty',
        start: context.indexOf('the treaty'),
        end: context.indexOf(' in'),
      });
      expect(hub.downloads('test-org/word-match-reader')).toContain('onnx/model.onnx');
    } finally {
      await app.close();
    }
    const none = await makeApp();
    expect(none.rag.reader).toBeNull();
    await none.close();
  });
});

describe('/rag/ask with READER_MODEL', () => {
  const hub = new FakeHub().publish('test-org/word-match-reader', dir);
  const docs = tempDir('reader-docs-');
  beforeAll(async () => {
    writeFileSync(join(docs, 'fleet.txt'), 'Farmers grew wheat in Kansas. The navy ships sailed up the river to London. Prices of corn fell.');
    await hub.start();
  });
  afterAll(() => hub.stop());
  const ask = async (model: string) => {
    const app = await makeApp({
      DOCS_DIR: docs,
      RAG_INDEX_ON_START: false,
      HF_ENDPOINT: hub.url,
      MODEL_CACHE_DIR: tempDir('reader-cache-'),
      READER_MODEL: model,
    });
    try {
      await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
      return (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: 'Where did the navy ships sail to?' } })).json();
    } finally {
      await app.close();
    }
  };

  it("reads the factoid span with the model: the fixture's answer is made of the question's own words", async () => {
    const body = await ask('test-org/word-match-reader');
    expect(body.answer_type).toBe('factoid');
    expect(body.answer_passage).toBe('The navy ships sailed up the river to London.');
    expect(body.answer_passage).toContain(body.answer);
    const question = new Set(['where', 'did', 'the', 'navy', 'ships', 'sail', 'to']);
    for (const w of body.answer.toLowerCase().split(/\s+/)) expect(question).toContain(w);
    // The only warning: no LLM is configured (the model read the span, so no load failure is reported).
    expect(body.warnings).toEqual([expect.stringMatching(/^No language model is configured/)]);
    // The /ask page hides this warning (its hint says the same) by these exact words.
    expect(body.warnings).toEqual([ASK_WARNINGS.noLlm]);
  });

  it('falls back to the learned reader with a warning when the model cannot be loaded', async () => {
    const body = await ask('test-org/no-such-reader');
    expect(body.answer_passage).toContain(body.answer);
    expect(body.answer.length).toBeGreaterThan(0);
    expect(body.warnings.join(' ')).toMatch(/READER_MODEL.*learned reader/);
  });
});

describe('a chunk that opens mid-sentence', () => {
  it('is read as the whole sentence, completed from the previous chunk of the document', () => {
    // Long sentences without paragraph breaks, cut by size: some chunk starts inside a sentence.
    const sentences = Array.from(
      { length: 40 },
      (_, i) => `Sentence number ${i + 1} speaks of the forest reserves and the wild creatures that live in them, across many states and many long seasons.`,
    );
    const doc = sentences.join(' ');
    const chunks = chunkDocument(doc, 300, 60);
    let completed = 0;
    for (let i = 1; i < chunks.length; i++) {
      const first = splitSentences(chunks[i]!.text)[0]!;
      const whole = completeFragment(chunks[i - 1]!.text, first);
      // A chunk that starts a sentence is left as it is (null); a completed one is one of the document's own sentences.
      if (whole === null) {
        expect(sentences).toContain(first);
        continue;
      }
      expect(sentences).toContain(whole);
      completed++;
    }
    expect(completed).toBeGreaterThan(0);
    expect(completeFragment('Nothing in common here.', 'of the forest reserves.')).toBeNull();
  });

  it('is completed when its first word is capitalised too, and a chunk that starts a sentence is left as it is', () => {
    // Chunks overlap: the previous one ends inside the sentence the next one opens in.
    const previous = 'Our approach would preserve choice. It would give small businesses and uninsured Americans a chance to choose an affordable health';
    expect(completeFragment(previous, 'Americans a chance to choose an affordable health care plan.')).toBe(
      'It would give small businesses and uninsured Americans a chance to choose an affordable health care plan.',
    );
    expect(completeFragment('The bill failed. Americans voted in November', 'Americans voted in November.')).toBeNull();
  });
});
