import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaqSentence, faqAnswer, inFaqQuestions } from '../../src/text/rag/ask/faq.js';
import { splitSentences } from '../../src/text/sentences.js';
import { makeApp, tempDir } from '../helpers/app.js';

/** The sentences of each chunk as the reader gets them, with their chunk's text. */
const sentencesOf = (...chunks: string[]): FaqSentence[] =>
  chunks.flatMap((chunk, chunkRank) => splitSentences(chunk).map((text, position) => ({ text, chunkRank, position, chunk })));

const texts = (s: FaqSentence[], at: number[]) => at.map((i) => s[i]!.text);

const MARKED = `Q: What do the letters XY mean?

A: Nothing. They are two letters from the file suffix.

Q: Which compression level is the default?

A: Level six is the default.`;

const NUMBERED = ` 1. Is the library thread-safe?

    Yes. It keeps no global state.

 2. Where can I get a Windows build?

    The sources compile without change on Windows.`;

describe('questions a FAQ asks itself', () => {
  it('answers with the sentences under the FAQ question that asks what the user asks, up to its next question', () => {
    const s = sentencesOf(MARKED);
    const found = faqAnswer('whta do the letters xy mean?', s);
    expect(found).not.toBeNull();
    expect(s[found!.question]!.text).toBe('Q: What do the letters XY mean?');
    expect(texts(s, found!.answer)).toEqual(['A: Nothing.', 'They are two letters from the file suffix.']);
    expect(found!.overlap).toBeCloseTo(3 / 4, 6); // whta, letter, xy, mean against letter, xy, mean
  });

  it('reads numbered entries, and ends the answer where the next entry begins', () => {
    const s = sentencesOf(NUMBERED);
    const found = faqAnswer('is the library thread safe', s);
    expect(texts(s, found!.answer)).toEqual(['Yes.', 'It keeps no global state.']);
    expect(texts(s, faqAnswer('where do I get a windows build?', s)!.answer)).toEqual(['The sources compile without change on Windows.']);
  });

  it('reads an entry that asks in two questions on one line as one question', () => {
    const s = sentencesOf(' 7. Is the tool subject to export rules?  What is its control number?\n\n    It is classed as EAR99.\n\n 8. Next?\n\n    Yes.');
    const found = faqAnswer('what export control number does the tool have', s);
    expect(found).not.toBeNull();
    expect(texts(s, found!.answer)).toEqual(['It is classed as EAR99.']);
    // Two questions with a blank line between them are two entries.
    const apart = sentencesOf('Is the tool subject to export rules?\n\nWhat is its control number?\n\n    It is classed as EAR99.');
    expect(faqAnswer('what export control number does the tool have', apart)).toBeNull();
  });

  it('reads a FAQ question after the heading the document reading put before it', () => {
    const s = sentencesOf(`Tool FAQ: Q: What do the letters XY mean?\n\nA: Nothing at all.`);
    expect(texts(s, faqAnswer('what do the letters xy mean', s)!.answer)).toEqual(['A: Nothing at all.']);
  });

  it('counts every sentence of a FAQ question that runs up to its answer marker as asking, and no other', () => {
    const s = sentencesOf(
      'Q: When I join two addresses with "!!" the shell complains. Quoting the marks does not help.\n\nA: Turn history expansion off. It is on by default.',
      'Q: Can I use a pipe? The manual says little.\n\nNothing more is known.',
    );
    expect(
      texts(
        s,
        [...inFaqQuestions(s)].sort((a, b) => a - b),
      ),
    ).toEqual(['Q: When I join two addresses with "!!"', 'the shell complains.', 'Quoting the marks does not help.']);
  });

  it('matches a FAQ question of several sentences that holds what the user asks, and answers from its answer marker', () => {
    const long =
      'Q: When I specify a dual address linked with "!!" on the command line, I get some message "event not found", and my shell history has the line truncated. Not even quoting the marks helps.\n\nA: The shell expands history. Say "set +H".';
    const s = sentencesOf(long);
    // Every one of the user's words is in the FAQ's question, which says much more (Jaccard well below 0.6).
    const found = faqAnswer('I get the message event not found when I specify a dual address', s);
    expect(found).not.toBeNull();
    expect(found!.overlap).toBe(1);
    expect(texts(s, found!.answer)).toEqual(['A: The shell expands history.', 'Say "set +H".']);
    // Four of the user's seven words (below three quarters) are not enough, nor are two words however matched.
    expect(faqAnswer('why does bash print event not found for every address', s)).toBeNull();
    expect(faqAnswer('event found?', s)).toBeNull();
  });

  it('leaves questions asked inside prose or dialogue, and FAQ questions about something else, to the reader', () => {
    const dialogue = sentencesOf('"Is the library thread-safe?" asked Anne, and nobody answered her. Then they left.');
    expect(faqAnswer('is the library thread safe?', dialogue)).toBeNull();
    expect(faqAnswer('which letters does the suffix use?', sentencesOf(MARKED))).toBeNull();
    expect(faqAnswer('xy?', sentencesOf(MARKED))).toBeNull();
  });
});

describe('POST /rag/ask over a FAQ', () => {
  const docs = tempDir('faq-docs-');
  let app: Awaited<ReturnType<typeof makeApp>>;

  beforeAll(async () => {
    writeFileSync(join(docs, 'xy-faq.txt'), `${MARKED}\n\nQ: Can I recover a damaged file?\n\nA: Only the blocks before the damage can be recovered.\n`);
    writeFileSync(join(docs, 'manual.txt'), 'The tool compresses files with the XY format. Each file keeps its name and its date.');
    writeFileSync(
      join(docs, 'release-faq.txt'),
      'Release FAQ\n===========\n\nQ. I upgraded to the testing branch and the banner now says "alpha/beta".\nShould it not say "testing"?\n\n' +
        'A. Packages reach testing from the development branch, so one banner has to be valid for both.\n\n' +
        'Q. How do I find out which branch I am running?\n\nA. Look at the sources list of the package manager.\n',
    );
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(async () => {
    await app.close();
  });

  it("answers with the FAQ's own answer, without its marker, and cites the FAQ's question with it", async () => {
    const body = (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: 'whta do the letters xy mean?' } })).json();
    expect(body.answer).toBe('Nothing. They are two letters from the file suffix.');
    expect(body.answer_type).toBe('sentence');
    expect(body.answer_passage).toMatch(/^Q: What do the letters XY mean\? Nothing\./);
    expect(body.answer_source).toEqual({ source: 'xy-faq.txt', chunk_index: 0 });
  });

  it('reads a FAQ whose questions and answers are marked "Q." and "A.": the answer without its marker or the next question', async () => {
    const body = (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: 'how do i find out which branch im running' } })).json();
    expect(body.answer).toBe('Look at the sources list of the package manager.');
    expect(body.answer_source).toEqual({ source: 'release-faq.txt', chunk_index: 0 });
  });
});
