import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, tempDir } from '../helpers/app.js';

describe('questions the collection cannot answer, and words the embedder does not know', () => {
  const docs = tempDir('unknown-docs-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });

  beforeAll(async () => {
    writeFileSync(
      join(docs, 'navy.txt'),
      'The Secretary of the Navy reported that the navy built three new ironclad ships in 1862 at the Boston yard. The ships cost four million dollars.',
    );
    writeFileSync(join(docs, 'schools.txt'), 'Horace Mann founded the first normal school in Massachusetts in 1839. Teachers asked Congress for better pay.');
    // "Zorblaxian" is in no general vocabulary: the embedder gives it no direction, BM25 still finds it.
    writeFileSync(join(docs, 'farms.txt'), 'Farmers in Kansas harvested record wheat crops. The Zorblaxian plough was sent to every state.');
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await post('/rag/index', {});
  });
  afterAll(async () => {
    await app.close();
  });

  it('searches a query of unknown words without the vector store: no results, not a 503', async () => {
    const res = await post('/rag/search', { query: 'Kubernetes blockchain' });
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toEqual([]);
  });

  it('finds a word only BM25 knows, with no semantic score', async () => {
    const res = await post('/rag/search', { query: 'Zorblaxian' });
    expect(res.statusCode).toBe(200);
    const [first] = res.json().results;
    expect(first).toMatchObject({ source: 'farms.txt', semantic_score: 0 });
    expect(first.bm25_score).toBeGreaterThan(0);
  });

  it('answers a question of unknown words with "not in the collection", low confidence', async () => {
    const res = await post('/rag/ask', { question: 'Kubernetes blockchain' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ answer: expect.stringMatching(/^No answer to this question was found/), confidence: 'low', answer_passage: null });
  });

  it('says "not in the collection" for an out-of-scope question, naming what the passages lack', async () => {
    const body = (await post('/rag/ask', { question: 'What is the capital of France?' })).json();
    expect(body.answer).toMatch(/^No answer to this question was found/);
    expect(body.confidence).toBe('low');
    if (body.guardrails.support) expect(body.guardrails.support).toMatchObject({ passed: false, missing: expect.arrayContaining(['France']) });
    else expect(body.guardrails.relevance.passed).toBe(false);
  });

  it('answers a question the passages support, and warns that without an LLM the answer is extractive', async () => {
    const body = (await post('/rag/ask', { question: 'Who founded the first normal school?' })).json();
    expect(body.answer).toBe('Horace Mann');
    expect(body.guardrails.support).toMatchObject({ passed: true, missing: [] });
    expect(body.warnings).toContainEqual(expect.stringMatching(/No language model is configured.*extracted from the documents/));
  });
});

describe('a factoid whose span the reader doubts', () => {
  const docs = tempDir('doubt-docs-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    writeFileSync(join(docs, 'schools.txt'), 'Horace Mann founded the first normal school in Massachusetts in 1839. Teachers asked Congress for better pay.');
    writeFileSync(join(docs, 'farms.txt'), 'Farmers in Kansas harvested record wheat crops in 1902.');
    writeFileSync(join(docs, 'navy.txt'), 'The navy built three new ironclad ships in 1862.');
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(async () => {
    await app.close();
  });

  it('is answered with the sentence holding it, and answer_type says so', async () => {
    const asker = await app.rag.ask();
    const ask = async () => (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: 'Who founded the first normal school?' } })).json();
    // No decision in the way: every reading is answered.
    asker.useAnswerability(null);
    asker.useSpanDoubt(0);
    const span = await ask();
    expect(span).toMatchObject({ answer_type: 'factoid', answer: 'Horace Mann' });
    // Every span in doubt (an expected token F1 can never reach 1.01).
    asker.useSpanDoubt(1.01);
    const sentence = await ask();
    expect(sentence.answer_type).toBe('sentence');
    expect(sentence.answer).toBe('Horace Mann founded the first normal school in Massachusetts in 1839.');
    expect(sentence.answer_passage).toBe(sentence.answer);
  });
});

describe('sentences and files of no known word', () => {
  const docs = tempDir('directionless-docs-');
  let app: Awaited<ReturnType<typeof makeApp>>;

  beforeAll(async () => {
    // A heading the embedder knows no word of ("RELICENSING", as in the GNU FDL) as a sentence of its own, and a file
    // holding nothing else: their mean-pooled, normalised vectors are 0/0 (NaN), which the vector store's server
    // cannot take (its connection dropped and indexing failed).
    writeFileSync(
      join(docs, 'licence.txt'),
      'Terms of use.\n\nRELICENSING\n\nThe purpose of this licence is to make a manual free.\n\nXQZRT\n\nThis licence applies to any manual.',
    );
    writeFileSync(join(docs, 'heading.txt'), 'RELICENSING');
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
  });
  afterAll(async () => {
    await app.close();
  });

  it('indexes them without error, and the rest of the file is found', async () => {
    const index = await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
    expect(index.statusCode).toBe(200);
    expect(index.json()).toMatchObject({ documents: 2, errors: [] });
    const res = await app.inject({ method: 'POST', url: '/rag/search', payload: { query: 'purpose of this licence' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().results[0]).toMatchObject({ source: 'licence.txt' });
  });
});
