import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerFromCatalogue,
  documentQuestion,
  formatDate,
  outdatedFor,
  saidTopic,
  speakerMissing,
  speakerWords,
} from '../../src/text/rag/ask/document-question.js';
import { type DocumentMeta, documentCatalogue } from '../../src/text/rag/documents.js';
import { entityCoverage, entityStatistics } from '../../src/text/rag/ask/pipeline.js';
import type { SearchHit } from '../../src/text/rag/service.js';
import { makeApp, tempDir } from '../helpers/app.js';

// A catalogue of speeches (documents.json declares what they are and who gives them), as the sample collection's.
const SPEECHES = new Map<string, DocumentMeta>([
  ['a.txt', { author: 'Abraham Lincoln', date: '1862-12-01', kind: ['address', 'speech', 'message'], role: 'president' }],
]);

describe('questions about the documents themselves', () => {
  it.each([
    ['Who gave the 1941 State of the Union address?', 'author'],
    ['Which president proposed a Job Corps?', 'author'],
    ['What president talked about the Interstate highways?', 'author'],
    ['Who was president in 1983?', 'author'],
    ['Who first proposed a canal across the isthmus?', 'author'],
    ['Whose address mentions the four freedoms?', 'author'],
    ['In what year did Monroe deliver his address?', 'date'],
    ['When was the Clinton address given?', 'date'],
    ['When did Lincoln send his message to Congress?', 'date'],
    ["When was Reagan's address?", 'date'],
    ['Who gave the oldest address in the collection?', 'author'],
    ['When was the most recent address given?', 'date'],
    ['Which addresses did Franklin Roosevelt give?', 'documents'],
    ['What speeches did Lincoln deliver?', 'documents'],
    ['Which speech is the most recent?', 'documents'],
    ['How many addresses did Franklin Roosevelt give?', 'count'],
    ['How many addresses in the collection were given by Franklin Roosevelt?', 'count'],
    ['How many documents are in the collection?', 'count'],
  ])('"%s" asks for the document\'s %s', (q, fact) => {
    expect(documentQuestion(q, SPEECHES)).toBe(fact);
  });

  it.each([
    'Who shot President McKinley?',
    'Who made incursions on the frontier settlements?',
    'Who did Edward make archbishop of Canterbury?',
    'What did Obama say about health insurance?',
    'When did the economy pass the half-trillion dollar mark?',
    'Which road did Monroe say money had been applied to?',
    'When was the Department of Agriculture organized?',
    'When was the report of the Secretary of the Navy published?',
  ])('"%s" asks about what the documents say, not about a document', (q) => {
    expect(documentQuestion(q, SPEECHES)).toBeNull();
  });

  it.each([
    ['Which president talked about civil rights?', 'talked about civil rights?'],
    ['Who proposed a Job Corps?', 'proposed a Job Corps?'],
    ['Whose address mentions the Interstate highways?', 'mentions the Interstate highways?'],
    ['What president warned about the military-industrial complex?', 'warned about the military-industrial complex?'],
    ['Who was president during the Civil War?', 'during the Civil War?'],
  ])('"%s" looks for the sentence that says "%s" (not one that names a president)', (q, topic) => {
    expect(saidTopic(q, SPEECHES)).toBe(topic);
  });

  // A manual's catalogue: authors, dates and titles, and no role: nothing of speeches or presidents applies to it.
  const MANUAL = new Map<string, DocumentMeta>([
    ['charger-manual.txt', { author: 'Acme Power Ltd', date: '2024-03-01', title: 'Wallbox charger manual', kind: 'manual' }],
    ['hr-memo.txt', { author: 'Jane Smith', date: '2019-05-02', title: 'Leave policy' }],
  ]);

  it.each([
    'Who is the leader of the project?',
    'What is the maximum charging current?',
    'How do I install the latest firmware?',
    'Who said the office closes early on Fridays?',
    'Who proposed the new leave policy?',
  ])('"%s" is read from the text of a catalogue without roles', (q) => {
    expect(documentQuestion(q, MANUAL)).toBeNull();
    expect(outdatedFor(q, MANUAL, new Date('2026-11-25T12:00:00Z'))).toBeNull();
  });

  it("answers a manual's questions about its documents in its own words", () => {
    expect(documentQuestion('Who wrote the charger manual?', MANUAL)).toBe('author');
    expect(documentQuestion('How many manuals are there?', MANUAL)).toBe('count');
    expect(documentQuestion('Who is the author of the leave policy?', MANUAL)).toBe('author');
    // "What did X say": a person the memo quotes is read from the text, not refused for being nobody's author.
    expect(speakerMissing('What did Tom Baker say about annual leave?', ['Tom Baker'], MANUAL)).toBeNull();
  });
});

describe('questions about the present, of a collection whose newest document is old', () => {
  const old = new Map<string, DocumentMeta>([
    ['a.txt', { author: 'Abraham Lincoln', date: '1862-12-01', role: 'president' }],
    ['b.txt', { author: 'Barack Obama', date: '2010-01-27' }],
  ]);
  const now = new Date('2026-11-25T12:00:00Z');

  it.each(['Who is the current president of the United States?', 'Who is president today?'])(
    '"%s" gets the newest date (the documents cannot say who holds the role now)',
    (q) => expect(outdatedFor(q, old, now)).toBe('2010-01-27'),
  );

  it('leaves alone questions about the past, what an author said of "the current" anything, and recent or undated collections', () => {
    expect(outdatedFor('Who was president in 1862?', old, now)).toBeNull();
    expect(outdatedFor('What did Obama say about the current crisis?', old, now)).toBeNull();
    expect(outdatedFor('What is the current interest rate?', new Map([['r.txt', { date: '2026-10-01' }]]), now)).toBeNull();
    expect(outdatedFor('What is the current interest rate?', new Map([['r.txt', { author: 'Treasury' }]]), now)).toBeNull();
    // Questions about the present that name no role are read from the documents.
    expect(outdatedFor('What will the weather be like tomorrow?', old, now)).toBeNull();
    expect(outdatedFor('How do I install the latest firmware?', old, now)).toBeNull();
  });
});

describe('answers from the catalogue', () => {
  const catalogue = new Map<string, DocumentMeta>([
    ['a.txt', { author: 'Abraham Lincoln', date: '1862-12-01', kind: ['address', 'speech', 'message'], role: 'president' }],
    ['b.txt', { author: 'Franklin D. Roosevelt', date: '1934-01-03', title: 'State of the Union address' }],
    ['c.txt', { author: 'Franklin D. Roosevelt', date: '1941-01-06', title: 'State of the Union address' }],
    ['d.txt', { date: '1999' }],
  ]);

  it("picks the entry of the question's year, whatever was retrieved", () => {
    expect(answerFromCatalogue('Who gave the 1941 address?', 'author', catalogue, ['a.txt'])).toMatchObject({
      source: 'c.txt',
      answer: 'Franklin D. Roosevelt',
      by: 'year',
    });
  });

  it("picks the entry of a date question's name, and among several by that name the one retrieved first", () => {
    expect(answerFromCatalogue('When did Lincoln deliver his address?', 'date', catalogue, [])).toMatchObject({
      source: 'a.txt',
      answer: 'December 1, 1862',
      by: 'name',
    });
    expect(answerFromCatalogue('In what year did Roosevelt deliver the address?', 'date', catalogue, ['a.txt', 'c.txt', 'b.txt'])).toMatchObject({
      source: 'c.txt',
      answer: '1941',
    });
  });

  it('says which year or name no entry has, rather than answering from another document', () => {
    expect(answerFromCatalogue('Who was president in 1950?', 'author', catalogue, ['a.txt'])).toEqual({ missing: ['1950'] });
    expect(answerFromCatalogue('When did Kennedy give his address?', 'date', catalogue, ['a.txt'])).toEqual({ missing: ['Kennedy'] });
    // A title's words are not names.
    expect(answerFromCatalogue('When was the State of the Union address given by Lincoln?', 'date', catalogue, [])).toMatchObject({ source: 'a.txt' });
  });

  it('otherwise answers from the first retrieved document that has the fact', () => {
    expect(answerFromCatalogue('Which president talked about slavery?', 'author', catalogue, ['d.txt', 'a.txt'])).toMatchObject({
      source: 'a.txt',
      by: 'retrieval',
    });
    expect(answerFromCatalogue('Which president talked about slavery?', 'author', catalogue, ['x.txt'])).toBeNull();
    expect(answerFromCatalogue('Which president talked about slavery?', 'author', new Map(), ['a.txt'])).toBeNull();
    // A catalogue without authors does not answer (or refuse) author questions.
    expect(answerFromCatalogue('Who was president in 1950?', 'author', new Map([['d.txt', { date: '1999' }]]), ['d.txt'])).toBeNull();
  });

  it('answers "how many" with the count of one author\'s documents, or of all, listed in date order', () => {
    expect(answerFromCatalogue('How many addresses did Franklin Roosevelt give?', 'count', catalogue, ['a.txt'])).toMatchObject({
      answer: '2: State of the Union address, Franklin D. Roosevelt, 1934; State of the Union address, Franklin D. Roosevelt, 1941',
      by: 'name',
      sources: ['b.txt', 'c.txt'],
    });
    expect(answerFromCatalogue('How many documents are in the collection?', 'count', catalogue, [])).toMatchObject({
      answer:
        '4: a.txt, Abraham Lincoln, 1862; State of the Union address, Franklin D. Roosevelt, 1934; State of the Union address, Franklin D. Roosevelt, 1941; d.txt, 1999',
      by: 'count',
    });
    expect(answerFromCatalogue('How many addresses did Kennedy give?', 'count', catalogue, [])).toEqual({ missing: ['Kennedy'] });
    // A large catalogue is counted and its first 20 listed.
    const large = new Map<string, DocumentMeta>(Array.from({ length: 25 }, (_, i) => [`${i}.txt`, { author: `Author ${i}`, date: String(1900 + i) }]));
    const many = answerFromCatalogue('How many documents are in the collection?', 'count', large, []) as { answer: string };
    expect(many.answer).toMatch(/^25: 0\.txt, Author 0, 1900; .*; 19\.txt, Author 19, 1919; and 5 more$/);
  });

  it('counts the documents of each author for "which president gave two addresses" or "the most", whatever was retrieved', () => {
    expect(answerFromCatalogue('Which president gave two addresses?', 'author', catalogue, ['a.txt'])).toMatchObject({
      source: 'b.txt',
      answer: 'Franklin D. Roosevelt',
      by: 'count',
      sources: ['b.txt', 'c.txt'],
    });
    expect(answerFromCatalogue('Who gave the most speeches?', 'author', catalogue, ['a.txt'])).toMatchObject({ answer: 'Franklin D. Roosevelt' });
    expect(answerFromCatalogue('Which president gave more than one address?', 'author', catalogue, [])).toMatchObject({ answer: 'Franklin D. Roosevelt' });
    expect(answerFromCatalogue('Which president gave one address?', 'author', catalogue, [])).toMatchObject({ answer: 'Abraham Lincoln' });
    expect(answerFromCatalogue('Which president gave three addresses?', 'author', catalogue, ['a.txt'])).toEqual({
      missing: ['3 documents by one author'],
    });
  });

  it('picks the first or last document in time for "the oldest" or "the most recent" address, whatever was retrieved', () => {
    expect(answerFromCatalogue('Who gave the oldest address in the collection?', 'author', catalogue, ['c.txt'])).toMatchObject({
      source: 'a.txt',
      answer: 'Abraham Lincoln',
      by: 'order',
    });
    expect(answerFromCatalogue('Who gave the most recent address?', 'author', catalogue, ['a.txt'])).toMatchObject({ source: 'c.txt', by: 'order' });
    expect(answerFromCatalogue('When was the latest speech given?', 'date', catalogue, [])).toMatchObject({ source: 'd.txt', answer: '1999' });
    // "first" as an adverb is not the first address.
    expect(answerFromCatalogue('Who first proposed a canal?', 'author', catalogue, ['c.txt'])).toMatchObject({ source: 'c.txt', by: 'retrieval' });
  });

  it('names the document for "which address is the oldest / the most recent", by title, author and date', () => {
    expect(answerFromCatalogue('Which speech is the most recent?', 'documents', catalogue, ['a.txt'])).toMatchObject({
      source: 'c.txt',
      answer: 'State of the Union address, Franklin D. Roosevelt, January 6, 1941',
      by: 'order',
    });
    expect(answerFromCatalogue('Which address was the first one in the collection?', 'documents', catalogue, [])).toMatchObject({
      source: 'a.txt',
      answer: 'a.txt, Abraham Lincoln, December 1, 1862',
    });
  });

  it('lists the documents one person gave, in date order, and tells two people of one last name apart', () => {
    const found = answerFromCatalogue('Which addresses did Franklin Roosevelt give?', 'documents', catalogue, []);
    expect(found).toMatchObject({
      answer: 'State of the Union address, January 3, 1934; State of the Union address, January 6, 1941',
      sources: ['b.txt', 'c.txt'],
    });
    const twoRoosevelts = new Map([...catalogue, ['e.txt', { author: 'Theodore Roosevelt', date: '1901-12-03' }]]);
    expect(answerFromCatalogue('Which addresses did Franklin Roosevelt give?', 'documents', twoRoosevelts, [])).toMatchObject({ sources: ['b.txt', 'c.txt'] });
    expect(answerFromCatalogue('Which addresses did Roosevelt give?', 'documents', twoRoosevelts, [])).toMatchObject({ sources: ['e.txt', 'b.txt', 'c.txt'] });
    expect(answerFromCatalogue('Which speeches did Kennedy give?', 'documents', catalogue, [])).toEqual({ missing: ['Kennedy'] });
    // A question typed in lower case names an author by their exact last name.
    expect(answerFromCatalogue('which addresses did roosevelt give', 'documents', catalogue, [])).toMatchObject({ sources: ['b.txt', 'c.txt'] });
    // A last name with one slip is the author's.
    expect(answerFromCatalogue('Which addresses did Franklin Rosevelt give?', 'documents', catalogue, [])).toMatchObject({ sources: ['b.txt', 'c.txt'] });
  });

  it("names the person a 'what did X say' question asks about when no document of the catalogue is theirs", () => {
    expect(speakerMissing('What did John F. Kennedy say about the economy?', ['John F. Kennedy'], catalogue)).toBe('John F. Kennedy');
    expect(speakerMissing('What did Lincoln propose about slavery?', ['Lincoln'], catalogue)).toBeNull();
    expect(speakerMissing("What did Roosevelt's address say?", ["Roosevelt's"], catalogue)).toBeNull();
    // A capitalised subject the tagger missed is a name; a plural one is not a person.
    expect(speakerMissing('What did Bush say about Iraq?', [], catalogue)).toBe('Bush');
    expect(speakerMissing('What did George W. Bush say about Iraq?', [], catalogue)).toBe('George W. Bush');
    expect(speakerMissing('What did Americans want in 1941?', [], catalogue)).toBeNull();
    expect(speakerWords('What did Bill Clinton say about big government?')).toEqual(['bill', 'clinton']);
    expect(speakerWords('Who was shot in 1901?')).toEqual([]);
    // A speaker's name typed with one slip is still that speaker; a short name must be exact.
    expect(speakerMissing('What did Lincon say about slavery?', ['Lincon'], catalogue)).toBeNull();
    expect(speakerMissing('What did Linclon say about slavery?', ['Linclon'], catalogue)).toBeNull();
    // Not that kind of question, no person named, or a catalogue without authors: nothing to say.
    expect(speakerMissing('Who shot President McKinley?', ['McKinley'], catalogue)).toBeNull();
    expect(speakerMissing('What did the president say about taxes?', [], catalogue)).toBeNull();
    expect(speakerMissing('What did Kennedy say?', ['Kennedy'], new Map([['d.txt', { date: '1999' }]]))).toBeNull();
  });

  it('writes a date as people read it, or only its year when the question asks for a year', () => {
    expect(formatDate('1823-12-02', false)).toBe('December 2, 1823');
    expect(formatDate('1823-12', false)).toBe('December 1823');
    expect(formatDate('1823-12-02', true)).toBe('1823');
    expect(formatDate('1999', false)).toBe('1999');
  });
});

describe('entity coverage of the confidence score', () => {
  const hit = (source: string, text: string) => ({ source, text }) as SearchHit;
  const hits = [hit('1964.txt', 'I declare war on poverty.'), hit('1983.txt', 'Johnson once said so.'), hit('1790.txt', 'The militia.')];

  it('counts a chunk of an address as naming its speaker when the catalogue says who gave it', () => {
    const author = (source: string) => ({ '1964.txt': 'Lyndon B. Johnson', '1790.txt': 'George Washington' })[source];
    expect(entityCoverage(['Lyndon Johnson'], hits)).toBe(0);
    expect(entityCoverage(['Johnson'], hits)).toBeCloseTo(1 / 3);
    expect(entityCoverage(['Lyndon Johnson'], hits, author)).toBeCloseTo(1 / 3);
    expect(entityCoverage(['Johnson'], hits, author)).toBeCloseTo(2 / 3);
    expect(entityCoverage([], hits, author)).toBe(1);
  });

  it('counts the same chunks in entity_statistics as in the coverage: an answer from his address names him', () => {
    const author = (source: string) => ({ '1964.txt': 'Lyndon B. Johnson' })[source];
    expect(entityStatistics(['Lyndon Johnson'], hits, author)).toEqual({ 'Lyndon Johnson': { chunks: 1, sources: ['1964.txt'] } });
    expect(entityStatistics(['Johnson'], hits, author)).toEqual({ Johnson: { chunks: 2, sources: ['1964.txt', '1983.txt'] } });
    expect(entityStatistics(['Lyndon Johnson'], hits)).toEqual({ 'Lyndon Johnson': { chunks: 0, sources: [] } });
  });
});

describe('documents.json', () => {
  it('is an empty catalogue when absent or invalid (with the reason), and is read again when it changes', () => {
    const dir = tempDir('catalogue-');
    const problems: string[] = [];
    const read = documentCatalogue(dir, (m) => problems.push(m));
    expect(read().size).toBe(0);
    writeFileSync(join(dir, 'documents.json'), JSON.stringify({ 'a.txt': { author: 'Abraham Lincoln', date: 'last week' } }));
    expect(read().size).toBe(0);
    expect(problems[0]).toMatch(/documents\.json is ignored: a\.txt\.date/);
    writeFileSync(join(dir, 'documents.json'), JSON.stringify({ 'a.txt': { author: 'Abraham Lincoln', date: '1862-12-01' }, 'b.txt': { date: '1901' } }));
    expect([...read().keys()]).toEqual(['a.txt', 'b.txt']);
    writeFileSync(join(dir, 'documents.json'), '{ not json');
    expect(read().size).toBe(0);
    expect(problems).toHaveLength(2);
  });
});

describe('POST /rag/ask with a catalogue of the documents', () => {
  const docs = tempDir('catalogue-docs-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  const ask = async (question: string) => (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question } })).json();

  beforeAll(async () => {
    writeFileSync(
      join(docs, '1862_lincoln.txt'),
      'Fellow-citizens of the Senate and House of Representatives: the Department of Agriculture has been organized. Slavery divides the sections of the country.',
    );
    writeFileSync(
      join(docs, '1964_johnson.txt'),
      'This administration today declares unconditional war on poverty in America. I propose a Job Corps for the young who are out of work.',
    );
    writeFileSync(
      join(docs, 'documents.json'),
      JSON.stringify({
        '1862_lincoln.txt': {
          author: 'Abraham Lincoln',
          date: '1862-12-01',
          title: 'Annual message to Congress',
          kind: ['address', 'message'],
          role: 'president',
        },
        '1964_johnson.txt': { author: 'Lyndon B. Johnson', date: '1964-01-08', title: 'State of the Union address', kind: 'address', role: 'president' },
      }),
    );
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(async () => {
    await app.close();
  });

  it("answers 'not in the collection' for the words of a person who gave none of the documents", async () => {
    const body = await ask('What did John F. Kennedy say about poverty?');
    expect(body.answer).toBe('No answer to this question was found in the document collection.');
    expect(body.guardrails.catalogue).toMatchObject({ passed: false, missing: ['John F. Kennedy'] });
    // Johnson gave one of them: the question goes on to the passages.
    expect((await ask('What did Johnson say about poverty?')).guardrails.catalogue).toBeUndefined();
  });

  it('lists the addresses a person gave, and answers who gave the oldest one, from the catalogue', async () => {
    const list = await ask('Which addresses did Johnson give?');
    expect(list.answer).toBe('State of the Union address, January 8, 1964');
    expect(list.guardrails.catalogue).toMatchObject({ fact: 'documents', passed: true });
    const oldest = await ask('Who gave the oldest address in the collection?');
    expect(oldest.answer).toBe('Abraham Lincoln');
    expect(oldest.guardrails.catalogue).toMatchObject({ fact: 'author', matched_by: 'order' });
  });

  it('answers who gave the address of a year with its author, shows a passage of it, and says where the answer comes from', async () => {
    const body = await ask('Who gave the 1862 address?');
    expect(body.answer).toBe('Abraham Lincoln');
    expect(body.answer_type).toBe('factoid');
    expect(body.answer_source.source).toBe('1862_lincoln.txt');
    expect(body.guardrails.catalogue).toEqual({ fact: 'author', passed: true, source: '1862_lincoln.txt', matched_by: 'year' });
    expect(body.warnings.join(' ')).toMatch(/catalogue of documents \(documents\.json.*1862_lincoln\.txt \(Annual message to Congress\)/);
  });

  it('answers when a named speaker gave an address, and which speaker said something, from the passage that says it', async () => {
    expect((await ask('When did Johnson deliver his address?')).answer).toBe('January 8, 1964');
    const body = await ask('Which president proposed a Job Corps?');
    expect(body.answer).toBe('Lyndon B. Johnson');
    expect(body.answer_passage).toMatch(/Job Corps/);
    expect(body.guardrails.catalogue.matched_by).toBe('retrieval');
  });

  it('answers "not in the collection" for a year or a speaker the catalogue lacks, and for a topic no passage holds', async () => {
    const year = await ask('Who was president in 1950?');
    expect(year.answer).toMatch(/^No answer to this question was found/);
    expect(year.guardrails.catalogue).toEqual({ fact: 'author', passed: false, missing: ['1950'] });
    expect((await ask('When did Kennedy deliver his address?')).answer).toMatch(/^No answer to this question was found/);
    expect((await ask('Which president talked about the iPhone?')).answer).toMatch(/^No answer to this question was found/);
  });

  it('shows on the ask page that the answer comes from the catalogue, with a passage of the document', async () => {
    const res = await app.inject({ url: `/ask?question=${encodeURIComponent('Who gave the 1964 address?')}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Lyndon B. Johnson');
    expect(res.body).toContain('From the catalogue of the documents (documents.json), not from their text.');
    // Found by its year, the document's passage is shown as such, not as the source of the answer.
    expect(res.body).toMatch(/A passage of that document \(the catalogue gives the answer\): <em id="answer-sentence">[^<]*(poverty|Job Corps)/);

    // Passages are labelled with their catalogue entry's author and date, then the file name.
    const passages = await app.inject({ url: `/ask?question=${encodeURIComponent('What did Johnson propose for the young?')}` });
    expect(passages.body).toContain('<strong>Lyndon B. Johnson, January 8, 1964</strong> (1964_johnson.txt), part 1');
  });

  it('shows a refused question on the ask page as unanswered, without claiming an extracted answer', async () => {
    const res = await app.inject({ url: `/ask?question=${encodeURIComponent('Who was president in 1950?')}` });
    // The year is in no passage (nor in the catalogue): the page says what the passages lack.
    expect(res.body).toMatch(/<p id="not-found-reason">The passages retrieved do not mention [^<]*“1950”\.<\/p>/);
    // The passages retrieved are folded away: their relevance is no sign of an answer.
    expect(res.body).toMatch(/<details id="retrieved"><summary>The \d+ passages? retrieved/);
    expect(res.body).not.toContain('Extracted from the passages below');
  });

  it('leaves questions about what the documents say to the reader', async () => {
    const body = await ask('What divides the sections of the country?');
    expect(body.answer).toMatch(/Slavery/);
    expect(body.guardrails.catalogue).toBeUndefined();
  });
});

describe('POST /rag/ask of a manual with a catalogue and no roles', () => {
  const docs = tempDir('manual-docs-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  const ask = async (question: string) => (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question } })).json();

  beforeAll(async () => {
    writeFileSync(
      join(docs, 'wallbox-manual.txt'),
      'Wallbox home charger. The maximum charging current is 32 amperes on a three-phase supply. ' +
        'To install the latest firmware, open the companion app and press Update while the charger is idle. ' +
        'The charger restarts by itself when the update is complete.',
    );
    writeFileSync(
      join(docs, 'project-charter.txt'),
      'Project charter. Maria Lopez is the leader of the project and approves every release. The team meets on Tuesdays.',
    );
    writeFileSync(
      join(docs, 'documents.json'),
      JSON.stringify({
        'wallbox-manual.txt': { author: 'Acme Power Ltd', date: '2019-03-01', title: 'Wallbox manual' },
        'project-charter.txt': { author: 'Acme Power Ltd', date: '2018-01-10', title: 'Project charter' },
      }),
    );
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(async () => {
    await app.close();
  });

  it.each([
    ['Who is the leader of the project?', /Maria Lopez/],
    ['What is the maximum charging current?', /32 amperes/],
    ['How do I install the latest firmware?', /companion app/],
  ])('"%s" is answered from the text, not from the catalogue or as a question about the present', async (question, expected) => {
    const body = await ask(question);
    expect(body.guardrails.catalogue).toBeUndefined();
    expect(`${body.answer} ${body.answer_passage}`).toMatch(expected);
  });
});
