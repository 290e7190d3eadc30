// The heading each sentence stands under (sections.ts): found by the text's shape, and counted as words the sentence
// holds when the reader ranks sentences.
import { describe, expect, it } from 'vitest';
import { analyseQuestion, loadLearnedReader } from '../../src/text/rag/ask/reader.js';
import { contextStems, headingBefore, headingsOf, sectionHeadings, sectionTerms } from '../../src/text/rag/ask/sections.js';
import { sentenceSpans } from '../../src/text/sentences.js';

const reference = [
  'Introduction.',
  '',
  'retry_limit',
  '    How often a failed request is sent again before the',
  '    client gives up. Default value is 4.',
  '',
  'idle_period',
  '    How long a connection may stay unused before it is closed.',
  '    Default value is 30 seconds.',
].join('\n');

const plain = [
  'Building on old systems',
  '',
  'Some compilers do not support the new syntax, and the build stops early.',
  'Passing LEGACY_OK=yes to configure lets it go on.',
  '',
  '  make -k check',
  '',
  'Reporting problems: Send a report with the full log.',
].join('\n');

describe('headings', () => {
  it('finds terms over indented descriptions, lone title lines and the words a paragraph opens with before a colon', () => {
    expect(headingsOf(reference, true).map((h) => h.text)).toEqual(['retry_limit', 'idle_period']);
    expect(headingsOf(plain, true).map((h) => h.text)).toEqual(['Building on old systems', 'Reporting problems']);
  });

  it("finds a manual page's indented terms, an option's one or more lines, but no table row or code", () => {
    const manual = [
      'OPTIONS',
      '       -q',
      '       --quiet',
      '              Print nothing but errors.',
      '',
      '       --retries=count',
      '              How often a failed copy is tried again.',
      '',
      '       mode     What the copy does with links; one of',
      '                follow, skip or copy.',
      '',
      '       run(job) {',
      '           return job.start();',
      '       }',
    ].join('\n');
    expect(headingsOf(manual, true).map((h) => h.text)).toEqual(['OPTIONS', '-q --quiet', '--retries=count']);
  });

  it("holds a term only over its description, and takes a term's bracketed second line", () => {
    const manual = [
      '       list [<options>]',
      '           List the entries.',
      '',
      '       show [-u|--untracked]',
      '       [<entry>]',
      '           Show the changes of an entry.',
      '',
      "       A paragraph at the terms' indent.",
      '       It goes on here.',
    ].join('\n');
    expect(headingsOf(manual, true).map((h) => h.text)).toEqual(['list [<options>]', 'show [-u|--untracked] [<entry>]']);
    const spans = sentenceSpans(manual);
    const terms = sectionTerms(manual, spans, true);
    const of = (start: string) => terms[spans.findIndex((s) => s.text.includes(start))];
    expect(of('Show the changes')).toBe('show [-u|--untracked] [<entry>]');
    expect(of('A paragraph')).toBeNull();
    expect(sectionHeadings(manual, spans, 'COMMANDS', true)[spans.findIndex((s) => s.text.includes('A paragraph'))]).toBe('COMMANDS');
  });

  it('takes no line of code, no sentence and no FAQ marker for a heading', () => {
    const text = ['Intro text here.', '', '  npm install thing --save', '', 'const x = f(y);', '', 'Q: Why?', '', 'It is done.', ''].join('\n');
    expect(headingsOf(text, true)).toEqual([]);
  });

  it("does not trust a later chunk's first line, which may be the middle of a paragraph", () => {
    const chunk = 'the rest of a wrapped line\n    indented continuation of it.';
    expect(headingsOf(chunk, false)).toEqual([]);
    expect(headingsOf(chunk, true).map((h) => h.text)).toEqual(['the rest of a wrapped line']);
  });

  it("gives each sentence its section's heading, and a chunk's first sentences the heading of the chunk before", () => {
    const spans = sentenceSpans(reference);
    const headings = sectionHeadings(reference, spans, 'Overview', true);
    const of = (start: string) => headings[spans.findIndex((s) => s.text.startsWith(start))];
    expect(of('Introduction')).toBe('Overview');
    // The term and the first sentence of its description read as one sentence, which holds the term itself.
    expect(of('retry_limit')).toBe('retry_limit');
    expect(of('Default value is 4')).toBe('retry_limit');
    expect(of('Default value is 30 seconds')).toBe('idle_period');
  });

  it('finds the heading a chunk starts under in the chunk before it, but not one in their overlap', () => {
    const previous = `${reference}\n\nmax_size\n    The largest message accepted.`;
    expect(headingBefore(previous, 'Default value is 30 seconds.\n\nmax_size\n    The largest message accepted.', true)).toBe('idle_period');
    expect(headingBefore(previous, 'unrelated text', true)).toBe('max_size');
  });

  it('takes the signature that opens an API section for its heading, and gives no heading to lines of code', () => {
    const api = [
      'create(filename, options): Create a header value for the file.',
      '',
      "res.setHeader('X', create('a.pdf'));",
      '',
      'The name is optional.',
    ].join('\n');
    const spans = sentenceSpans(api);
    expect(sectionHeadings(api, spans, null, true)).toEqual(['create(filename, options)', null, 'create(filename, options)']);
  });

  it("adds the heading's stems to the document name's", () => {
    const title = new Set(['client']);
    expect([...contextStems(title, 'idle_period')].sort()).toEqual(['client', 'idle_period']);
    expect(contextStems(title, null)).toBe(title);
  });
});

describe('the reader with headings', () => {
  it('ranks the sentence that gives the value under the heading that names it first', () => {
    const reader = loadLearnedReader();
    const q = analyseQuestion('what is the default of idle_period?', () => 1);
    const sentences = ['How long a connection may stay unused before it is closed.', 'Default value is 30 seconds.', 'Default value is 4.'];
    const candidates = (headings: (string | null)[]) =>
      sentences.map((text, position) => ({ text, chunkRank: 0, chunkBm25: 1, position, titleStems: contextStems(new Set(), headings[position]!) }));
    const best = (p: number[]) => sentences[p.indexOf(Math.max(...p))];
    // Neither "Default value" sentence names its setting: the heading decides which one speaks of idle_period.
    expect(best(reader.rankSentences(q, candidates(['idle_period', 'idle_period', 'retry_limit'])))).toBe(sentences[1]);
    expect(best(reader.rankSentences(q, candidates(['retry_limit', 'retry_limit', 'idle_period'])))).toBe(sentences[2]);
  });
});
