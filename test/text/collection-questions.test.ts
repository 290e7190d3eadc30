import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASK_WARNINGS } from '../../src/text/rag/ask-schema.js';
import { LISTED, collectionAnswer, collectionQuestion } from '../../src/text/rag/ask/collection-question.js';
import type { DocumentMeta } from '../../src/text/rag/documents.js';
import { makeApp, tempDir } from '../helpers/app.js';

describe('questions about the whole collection', () => {
  it.each([
    ['How many documents are in the collection?', 'count'],
    ['how many files are there', 'count'],
    ['How many documents do you have?', 'count'],
    ['How many texts does this folder contain?', 'count'],
    ['How big is the collection?', 'count'],
    ['how many documents are indexed?', 'count'],
    ['Which documents are in the collection?', 'list'],
    ['What files do you have?', 'list'],
    ['What documents are there?', 'list'],
    ['What does the collection contain?', 'list'],
    ["What's in the folder?", 'list'],
    ['List the documents.', 'list'],
    ['Show me all the files in the index', 'list'],
    ['How many documents are in this folder, and which topics do they cover?', 'count'],
    ['Which files are there and what are they about?', 'list'],
  ])('"%s" asks for the collection\'s %s', (question, fact) => {
    expect(collectionQuestion(question)).toBe(fact);
  });

  it.each([
    'How many files mention the proxy?',
    'How many documents did Franklin Roosevelt give?',
    'Which documents describe the installation?',
    'What does the collection say about licences?',
    'How many texts of the author are about war?',
    'What file does the daemon read its settings from?',
    'How many addresses are in the collection?',
    'How many files are there and the proxy settings?',
  ])('"%s" asks what the documents say (or is the catalogue\'s), not about the collection', (question) => {
    expect(collectionQuestion(question)).toBeNull();
  });

  it('counts every document and names them in name order, with the catalogue title where there is one', () => {
    const catalogue = new Map<string, DocumentMeta>([['b.txt', { title: 'The second one' }]]);
    expect(collectionAnswer(['c.txt', 'a.txt', 'b.txt'], catalogue)).toBe('3 documents: a.txt; b.txt (The second one); c.txt');
    expect(collectionAnswer(['only.txt'], null)).toBe('1 document: only.txt');
    expect(collectionAnswer([], null)).toBe('The collection holds no documents yet.');
  });

  it('counts a large collection and names only its first documents', () => {
    const names = Array.from({ length: LISTED + 5 }, (_, i) => `doc-${String(i).padStart(2, '0')}.txt`);
    const answer = collectionAnswer(names, null);
    expect(answer.startsWith(`${LISTED + 5} documents: doc-00.txt; doc-01.txt;`)).toBe(true);
    expect(answer.endsWith(`doc-${String(LISTED - 1).padStart(2, '0')}.txt; and 5 more`)).toBe(true);
  });
});

describe('POST /rag/ask about the collection, without a catalogue', () => {
  const docs = tempDir('collection-docs-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  const ask = async (question: string) => (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question } })).json();

  beforeAll(async () => {
    writeFileSync(join(docs, 'faq.txt'), 'Frequently asked questions. The relay forwards data between two channels. It reads its settings at start-up.');
    writeFileSync(join(docs, 'install.txt'), 'Installation. Unpack the archive, run the configure script, then make and make install.');
    writeFileSync(join(docs, 'changes.txt'), 'Changes. Version 1.8 added support for abstract sockets. Version 1.7 fixed a crash on exit.');
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(async () => {
    await app.close();
  });

  it('counts and names the indexed documents, from the index and not from a passage', async () => {
    const body = await ask('How many documents are in the collection?');
    expect(body.answer).toBe('3 documents: changes.txt; faq.txt; install.txt');
    expect(body.guardrails.catalogue).toMatchObject({ fact: 'collection', passed: true, documents: 3 });
    expect(body.answer_passage).toBeNull();
    expect(body.context).toEqual([]);
    // The documents it names are its sources.
    expect(body.sources).toEqual(['changes.txt', 'faq.txt', 'install.txt']);
    // A fact of the index, not a reading: as sure as the catalogue's facts.
    expect(body).toMatchObject({ confidence: 'high', confidence_score: 1 });
    expect(body.warnings.join(' ')).toMatch(/list of indexed documents/);
    // In the exact words by which the /ask page recognises it.
    expect(body.warnings).toContain(ASK_WARNINGS.fromIndex);
  });

  it('lists them for "which files are there?"', async () => {
    const body = await ask('Which files are there?');
    expect(body.answer).toBe('3 documents: changes.txt; faq.txt; install.txt');
  });

  it('says on the ask page that the answer comes from the list of indexed documents', async () => {
    const res = await app.inject({ url: `/ask?question=${encodeURIComponent('How many files are there?')}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('3 documents: changes.txt; faq.txt; install.txt');
    expect(res.body).toContain('From the list of indexed documents, not from their text.');
    expect(res.body).toContain('counted and named from the index');
    expect(res.body).not.toContain('0 passages used');
    // Said once, in the hint under the answer, not again as a warning.
    expect(res.body.match(/list of indexed documents/g)).toHaveLength(1);
    expect(res.body).not.toContain('documents.json');
    // No passage is shown: none was the answer's.
    expect(res.body).not.toContain('The passage it comes from');
  });

  it('still reads the text for a question about what the documents say', async () => {
    const body = await ask('Which version added support for abstract sockets?');
    expect(body.guardrails.catalogue).toBeUndefined();
    expect(`${body.answer} ${body.answer_passage}`).toMatch(/1\.8/);
  });
});

describe('POST /rag/ask about the collection, with a catalogue of every document', () => {
  const docs = tempDir('collection-catalogue-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  const ask = async (question: string) => (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question } })).json();

  beforeAll(async () => {
    writeFileSync(join(docs, 'guide.txt'), 'The setup guide. Unpack the archive, run the configure script, then make and make install.');
    writeFileSync(join(docs, 'notes.txt'), 'Release notes. Version 1.8 added support for abstract sockets.');
    writeFileSync(
      join(docs, 'documents.json'),
      JSON.stringify({
        'guide.txt': { title: 'Setup guide', author: 'Ada Example', date: '2021-03-01' },
        'notes.txt': { title: 'Release notes', author: 'Ben Example', date: '2022-05-01' },
      }),
    );
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(async () => {
    await app.close();
  });

  it('lists the documents for a question the catalogue does not read, with their titles', async () => {
    for (const question of ['Which files do you have?', 'Which documents do you have?', 'What is in the folder?', 'list the files']) {
      const body = await ask(question);
      expect(body.answer).toBe('2 documents: guide.txt (Setup guide); notes.txt (Release notes)');
      expect(body.guardrails.catalogue).toMatchObject({ fact: 'collection', passed: true, documents: 2 });
    }
  });

  it('leaves a count to the catalogue, which answers with authors and dates', async () => {
    const body = await ask('How many documents are there?');
    expect(body.answer).toMatch(/^2\b/);
    expect(body.answer).toMatch(/Ada Example/);
    // Its sources are the documents it counts, not only those of the passages retrieved for its words.
    expect([...body.sources].sort()).toEqual(['guide.txt', 'notes.txt']);
  });
});
