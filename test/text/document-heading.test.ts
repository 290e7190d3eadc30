import { describe, expect, it } from 'vitest';
import { CorpusVocabulary, documentHeading } from '../../src/text/rag/ask/corpus.js';

describe('documentHeading', () => {
  it('reads a short first line of words as the title, without the marks and full stop around it', () => {
    expect(documentHeading('                    GNU GENERAL PUBLIC LICENSE\n       Version 2, June 1991\n\nCopyright...')).toBe('GNU GENERAL PUBLIC LICENSE');
    expect(documentHeading('Reporting Bugs in the GNU Compiler Collection for Debian.\n\nBefore reporting a bug, please:')).toBe(
      'Reporting Bugs in the GNU Compiler Collection for Debian',
    );
    expect(documentHeading('# pino\n\nVery low overhead logger.')).toBe('pino');
    expect(documentHeading('\n\nChapter 2\n\n\nMr Shepherd, a civil, cautious lawyer...')).toBe('Chapter 2');
  });

  it('takes what comes before the colon that joins a Markdown heading to its first paragraph', () => {
    expect(documentHeading('adduser in Debian: The adduser package includes the adduser and deluser commands.')).toBe('adduser in Debian');
  });

  it('finds none when the document starts with prose or markup', () => {
    expect(documentHeading('These are the GNU core utilities.  This package is the union of\nthe GNU fileutils.')).toBeNull();
    expect(documentHeading('Copyright (c) The Regents of the University of California.\nAll rights reserved.')).toBeNull();
    expect(documentHeading('The Normans were the people who in the 10th and 11th centuries gave their name to Normandy, a region in France.')).toBeNull();
    expect(documentHeading('<p align="center">\n\n<img src="logo.png">')).toBeNull();
    expect(documentHeading('\n \n')).toBeNull();
  });

  it("gives each document's heading from its first chunk", () => {
    const chunk = (source: string, chunk_index: number, text: string) => ({ id: `${source}:${chunk_index}`, source, chunk_index, text });
    const chunks = [
      chunk('gpl.txt', 1, 'Terms and conditions.'),
      chunk('gpl.txt', 0, 'GNU GENERAL PUBLIC LICENSE\n\nPreamble.'),
      chunk('a.txt', 0, 'Plain prose starts here, and it goes on\nfor a while.'),
    ];
    const corpus = new CorpusVocabulary({ generation: 1, chunks: () => chunks } as never);
    expect(corpus.heading('gpl.txt')).toBe('GNU GENERAL PUBLIC LICENSE');
    expect(corpus.heading('a.txt')).toBeUndefined();
  });
});
