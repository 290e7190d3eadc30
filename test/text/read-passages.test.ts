// The passage reader's check that some sentence's window supports the question before anything is read: windows are
// judged chunk by chunk, best-ranked first, and the check stops at the first chunk with a supported window.
import { describe, expect, it } from 'vitest';
import type { CorpusVocabulary } from '../../src/text/rag/ask/corpus.js';
import { PassageReader, type WindowSupport } from '../../src/text/rag/ask/read-passages.js';
import type { ReadArgs } from '../../src/text/rag/ask/reader-task.js';
import { hit } from './ask-steps/fakes.js';

const reader = () =>
  new PassageReader({ chunk: () => undefined }, { rarity: () => () => 1 } as unknown as CorpusVocabulary, {
    // No reading in this test: the reader answers with the best passage's start when the worker finds nothing.
    readInWorker: async () => null,
    spanDoubt: () => 0.5,
  });

const kept = [
  hit('The mill was old. It stood by the river. Nobody used it.', { source: 'a.txt' }),
  hit('The bridge was built in 1820. Its stones came from the hill.', { source: 'b.txt' }),
  hit('The church has a tower. Its bell rings at noon.', { source: 'c.txt' }),
];

/** A window check that supports the windows holding `word`, and records the windows of each call. */
function spy(word: string) {
  const calls: string[][] = [];
  const check: WindowSupport = async (windows) => {
    calls.push(windows.map((w) => w.source));
    return windows.map((w) => w.text.includes(word));
  };
  return { check, calls };
}

describe('the window check before reading', () => {
  it('stops at the first chunk with a supported window, having judged each chunk on its own', async () => {
    const { check, calls } = spy('built');
    const read = await reader().read('When was the bridge built?', 'factoid', kept, check);
    expect(read).not.toBeNull();
    // One call per chunk, with a window for each of its sentences; the third chunk is never judged.
    expect(calls).toEqual([
      ['a.txt', 'a.txt', 'a.txt'],
      ['b.txt', 'b.txt'],
    ]);
  });

  it('judges every chunk, and reads nothing, when no window is supported', async () => {
    const { check, calls } = spy('castle');
    expect(await reader().read('When was the castle built?', 'factoid', kept, check)).toBeNull();
    expect(calls.map((c) => c[0])).toEqual(['a.txt', 'b.txt', 'c.txt']);
  });
});

describe('the answer of a hard-wrapped passage', () => {
  it('reads as one line of prose, while the passage keeps the file as it is', async () => {
    const wrapped = 'The bridge was built\n    in 1820 by the town.';
    const read = await reader().read('When was the bridge built?', 'factoid', [hit(wrapped)]);
    expect(read?.answer).toBe('The bridge was built in 1820 by the town.');
    expect(read?.passage?.text).toBe(wrapped);
  });
});

describe('the candidates sent to the reader', () => {
  it('carry their section heading among their words', async () => {
    let sent: ReadArgs | null = null;
    const capture = new PassageReader({ chunk: () => undefined }, { rarity: () => () => 1 } as unknown as CorpusVocabulary, {
      readInWorker: async (args) => {
        sent = args;
        return null;
      },
      spanDoubt: () => 0.5,
    });
    const text = 'Setup.\n\nidle_period\n    How long a connection may stay unused.\n    Default value is 30 seconds.\n\nThe end is near.';
    await capture.read('What is the default of idle_period?', 'open', [hit(text)]);
    const candidates = (sent as ReadArgs | null)!.candidates;
    const of = (start: string) => candidates.find((c) => c.text.startsWith(start))!;
    expect(of('Default value').titleStems).toContain('idle_period');
    expect(of('Setup').titleStems ?? []).not.toContain('idle_period');
  });
});

describe("an answer from a manual's description of an option", () => {
  const page = 'OPTIONS\n       -w, --wait seconds\n              Fail if the lock cannot be acquired within seconds.\n              Fractions are allowed.\n';
  /** A reader that picks the candidate starting with `start`, as an open answer or as a doubtful span's sentence. */
  const picking = (start: string, answerType: 'open' | 'factoid', spanScore: number | null) =>
    new PassageReader({ chunk: () => undefined }, { rarity: () => () => 1 } as unknown as CorpusVocabulary, {
      readInWorker: async (args) => {
        const candidate = args.candidates.findIndex((c) => c.text.startsWith(start));
        const sentence = args.candidates[candidate]!.text;
        const answer = answerType === 'open' ? sentence : 'lock';
        return { answerType, answer, sentence, candidate, sentenceProbability: 0.9, spanScore, support: 0.9 };
      },
      spanDoubt: () => 0.5,
    });

  it('is led by the term the description is under, while the learned decision judges the sentence alone', async () => {
    const read = await picking('Fractions', 'open', null).read('Can the wait be a fraction of a second?', 'open', [hit(page)]);
    expect(read?.answer).toBe('-w, --wait seconds: Fractions are allowed.');
    expect(read?.core).toBe('Fractions are allowed.');
    const doubtful = await picking('Fractions', 'factoid', 0.1).read('How exact is the wait?', 'factoid', [hit(page)]);
    expect(doubtful?.answer).toBe('-w, --wait seconds: Fractions are allowed.');
    expect(doubtful?.answerType).toBe('sentence');
  });

  it('keeps a span as it is, and a sentence outside any description', async () => {
    const span = await picking('Fractions', 'factoid', 0.9).read('What is allowed?', 'factoid', [hit(page)]);
    expect(span?.answer).toBe('lock');
    const prose = await picking('OPTIONS', 'open', null).read('What are the options?', 'open', [hit(page)]);
    expect(prose?.answer.startsWith('-w')).toBe(false);
    // A sentence that opens with its own term (of two lines) is not led by it again.
    const twoLines = 'OPTIONS\n\n       -w\n       --wait seconds\n              Fail after that many seconds.\n';
    const own = await picking('-w', 'open', null).read('How long does it wait?', 'open', [hit(twoLines)]);
    expect(own?.answer).toBe('-w --wait seconds Fail after that many seconds.');
  });
});
