import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../src/text/sentences.js';
import { chunkText } from '../../src/text/sentiment/chunking.js';
import { DEFAULT_TEXT_MODELS, loadClassifier } from '../../src/text/models.js';

// A whitespace tokenizer keeps the arithmetic obvious; the last test uses the real one.
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

describe('chunking', () => {
  it('gives no chunk for no tokens and one chunk for one token', () => {
    expect(chunkText('', words)).toEqual([]);
    expect(chunkText('   \n ', words)).toEqual([]);
    expect(chunkText('Profit', words)).toEqual(['Profit']);
  });

  it('keeps exactly 510 tokens in one chunk and splits 511 into two', () => {
    const t510 = Array.from({ length: 510 }, (_, i) => `w${i}`).join(' ');
    expect(chunkText(t510, words)).toHaveLength(1);
    const t511 = `${t510} extra`;
    const chunks = chunkText(t511, words);
    expect(chunks).toHaveLength(2);
    expect(chunks.map(words)).toEqual([510, 1]);
  });

  it('cuts at sentence ends when it can', () => {
    const s = (n: number, tag: string) => `${Array.from({ length: n - 1 }, () => tag).join(' ')} end.`;
    const chunks = chunkText(`${s(300, 'a')} ${s(300, 'b')} ${s(100, 'c')}`, words);
    expect(chunks.map(words)).toEqual([300, 400]);
    expect(chunks[0]!.endsWith('end.')).toBe(true);
    expect(chunks[1]!.startsWith('b')).toBe(true);
  });

  it('handles many thousands of tokens, never over the limit and losing nothing', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `Sentence ${i} has a few words in it.`).join(' ');
    const chunks = chunkText(text, words);
    expect(chunks.every((c) => words(c) <= 510)).toBe(true);
    expect(chunks.reduce((n, c) => n + words(c), 0)).toBe(words(text));
    // 8-word sentences: a chunk leaves at most 7 tokens of room unused.
    const total = words(text);
    expect(total).toBe(24000);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(total / 510));
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(total / 503));
  });

  it('splits multibyte text on code points, never inside a character', () => {
    const emoji = '😀'.repeat(1200); // one "word" of 1,200 characters
    const perChar = (s: string) => Array.from(s).length;
    const chunks = chunkText(emoji, perChar);
    expect(chunks.map(perChar)).toEqual([510, 510, 180]);
    expect(chunks.join('')).toBe(emoji);
  });

  it('splits sentences at CJK terminators, keeps abbreviations and initials, and breaks at blank lines', () => {
    expect(splitSentences('Straße ist groß. 株価が上昇した。 Ça va?')).toEqual(['Straße ist groß.', '株価が上昇した。', 'Ça va?']);
    expect(splitSentences('株価が上昇した。利益も増えた。')).toEqual(['株価が上昇した。', '利益も増えた。']);
    expect(splitSentences('Mr. Smith met Dr. Jones in St. Louis. The U.S. economy grew 3.5 percent, e.g. in exports.')).toEqual([
      'Mr. Smith met Dr. Jones in St. Louis.',
      'The U.S. economy grew 3.5 percent, e.g. in exports.',
    ]);
    expect(splitSentences('John F. Kennedy spoke. The answer was no. See No. 5 on p. 12.')).toEqual([
      'John F. Kennedy spoke.',
      'The answer was no.',
      'See No. 5 on p. 12.',
    ]);
    // An abbreviation written with a space after each period ends no sentence either; a lone letter's period still does.
    expect(splitSentences('Put the flag into the command line (e. g. in\n    the grub file). That is, i. e. once. Pick option a. Then b.')).toEqual([
      'Put the flag into the command line (e. g. in\n    the grub file).',
      'That is, i. e. once.',
      'Pick option a.',
      'Then b.',
    ]);
    // A paragraph that ends with an abbreviation ends its sentence there.
    expect(splitSentences('Copyright (C) 2022 Free Software Foundation, Inc.\n\nPermission is granted, etc.\n  \nNext.')).toEqual([
      'Copyright (C) 2022 Free Software Foundation, Inc.',
      'Permission is granted, etc.',
      'Next.',
    ]);
    // A remark in brackets after a sentence's end that closes its line is the sentence's ("(Default: 60000)"), and the
    // next line starts the next sentence; one that goes on within the line starts the next sentence, as before.
    expect(splitSentences(' * @property timeout Destroys the socket after the timeout. (Default: `60000`)\n * @property ca A CA certificate.')).toEqual([
      '* @property timeout Destroys the socket after the timeout. (Default: `60000`)',
      '* @property ca A CA certificate.',
    ]);
    expect(splitSentences('It is fast. (see below) It is small.')).toEqual(['It is fast.', '(see below) It is small.']);
    // "v." for version and for versus ends no sentence.
    expect(splitSentences('It is subject to the Mozilla Public License, v. 2.0. Roe v. Wade was decided in 1973.')).toEqual([
      'It is subject to the Mozilla Public License, v. 2.0.',
      'Roe v. Wade was decided in 1973.',
    ]);
    expect(splitSentences('He said "Stop!" Then he left.\n\nA heading without a stop\n\nNext line.')).toEqual([
      'He said "Stop!"',
      'Then he left.',
      'A heading without a stop',
      'Next line.',
    ]);
    // A plain-text list, and a definition list (term, spaces, " : ", description): each item a sentence of its own, not
    // one run-on sentence with the line that announces it.
    const lists: [string, string[]][] = [
      [
        'It opens these ports:\n - 4369: EPMD, for lookups\n - 25672: the distribution port; a\n   shared secret\n* a bullet\n2) a step',
        ['It opens these ports:', '- 4369: EPMD, for lookups', '- 25672: the distribution port; a\n   shared secret', '* a bullet', '2) a step'],
      ],
      [
        'Exit status codes:\n  0      : success\n           (the script ran)\n  1 - 99 : reserved\n 100     : script unknown',
        ['Exit status codes:', '0      : success\n           (the script ran)', '1 - 99 : reserved', '100     : script unknown'],
      ],
    ];
    for (const [text, sentences] of lists) expect(splitSentences(text)).toEqual(sentences);
    // An indented definition list: the term is a sentence of its own, not the start of its description's first
    // sentence. A short first line of a paragraph that goes on at the same indent, or a list item's wrapped line, is not
    // a term.
    expect(splitSentences('Users:\n\n   www-data\n          Some servers run as www-data. Others do not.\n\n   backup\n          For backups.')).toEqual([
      'Users:',
      'www-data',
      'Some servers run as www-data.',
      'Others do not.',
      'backup',
      'For backups.',
    ]);
    expect(splitSentences('Intro.\n\nThe fix is\nsimple enough.\n\n - Install the\n   package first.')).toEqual([
      'Intro.',
      'The fix is\nsimple enough.',
      '- Install the\n   package first.',
    ]);
    // A line of code is no term.
    expect(splitSentences('{\n    decodeValues: true,\n}')).toEqual(['{\n    decodeValues: true,\n}']);
    // Prose with a colon, or a long lead before " : ", starts nothing.
    expect(splitSentences('The fix is simple\nNote: set the flag first\nand the second part of a long line : here')).toHaveLength(1);
    // A hyphen or a number inside a wrapped line starts nothing.
    expect(splitSentences('The cost fell\n-5 points and rose 3.5\n2.5 times.')).toEqual(['The cost fell\n-5 points and rose 3.5\n2.5 times.']);
  });

  it('tokenises each character of a 200,000-character "word" a bounded number of times (linear time)', () => {
    for (const word of ['漢'.repeat(200_000), '-'.repeat(200_000), 'x'.repeat(200_000)]) {
      let tokenised = 0;
      // One token per character, like WordPiece on CJK or punctuation; what matters is how much text gets counted.
      const perChar = (s: string) => {
        tokenised += s.length;
        return Array.from(s).length;
      };
      const chunks = chunkText(word, perChar);
      expect(chunks.join('')).toBe(word);
      expect(chunks.every((c) => perChar(c) <= 510)).toBe(true);
      // The sentence, the word and each piece once, plus the check above: about 4x. A search over slices was ~2,000x.
      expect(tokenised).toBeLessThanOrEqual(6 * word.length);
    }
  });

  it('halves a slice that a byte-level tokenizer counts over the limit', () => {
    const perByte = (s: string) => Buffer.byteLength(s); // '漢' is 3 tokens
    const chunks = chunkText('漢'.repeat(2000), perByte);
    expect(chunks.every((c) => perByte(c) <= 510)).toBe(true);
    expect(chunks.join('')).toBe('漢'.repeat(2000));
  });

  it('chunks 200,000 characters of one CJK or ASCII "word" with the real tokenizer in a few seconds', async () => {
    const clf = await loadClassifier(DEFAULT_TEXT_MODELS.sentiment);
    const count = (s: string) => clf.tokenizer.encode(s, { add_special_tokens: false }).length;
    for (const word of ['漢'.repeat(200_000), '-'.repeat(200_000)]) {
      const t0 = performance.now();
      const chunks = chunkText(word, count);
      // Generous for a loaded 2-core machine (about 1 s here); the quadratic search took 77 s on the CJK text.
      expect(performance.now() - t0).toBeLessThan(15_000);
      expect(chunks.every((c) => count(c) <= 510)).toBe(true);
    }
  }, 60_000);

  it('respects the real tokenizer count', async () => {
    const clf = await loadClassifier(DEFAULT_TEXT_MODELS.sentiment);
    const count = (s: string) => clf.tokenizer.encode(s, { add_special_tokens: false }).length;
    const text = 'Revenue grew 12%, and margins (ex-items) improved! '.repeat(300);
    const chunks = chunkText(text, count);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(count(c)).toBeLessThanOrEqual(510);
    expect(chunks.reduce((n, c) => n + count(c), 0)).toBe(count(text));
  });
});
