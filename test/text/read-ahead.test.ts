import { describe, expect, it } from 'vitest';
import { termsOf } from '../../src/text/rag/ask/extractive.js';
import { READ_AHEAD_MAX, readAhead } from '../../src/text/rag/ask/read-ahead.js';
import { readAhead as readAheadTask } from '../../src/text/rag/ask/reader-task.js';
import { ownWordsQuestion } from '../../src/text/rag/plugin.js';

const passages = ['The canal opened in 1825. It carried grain to the city.', 'The bridge was painted red. Tolls paid for it.', 'A ferry ran at night.'];

describe('reading the collection ahead of its questions', () => {
  it('sends the passages to the worker a few at a time until the sentence limit', async () => {
    const batches: { texts: string[]; max: number }[] = [];
    const tagInWorker = async (texts: string[], max: number) => (batches.push({ texts, max }), Math.min(max, texts.length * 2));
    const many = Array.from({ length: 40 }, (_, i) => `Passage ${i}. It has two sentences.`);
    expect(await readAhead(passages, tagInWorker, 100, 60_000)).toMatchObject({ passages: 3, sentences: 6, cut: false });
    expect(batches).toEqual([{ texts: passages, max: 100 }]);
    batches.length = 0;
    // 16 passages a task; the third task is not sent, the limit being reached.
    expect(await readAhead(many, tagInWorker, 40, 60_000)).toMatchObject({ passages: 32, sentences: 40 });
    expect(batches.map((b) => [b.texts.length, b.max])).toEqual([
      [16, 40],
      [16, 8],
    ]);
  });

  it('reads nothing when turned off, never beyond what the tag cache holds, and stops when its time is up', async () => {
    const maxes: number[] = [];
    const tagInWorker = async (_texts: string[], max: number) => (maxes.push(max), 1);
    expect(await readAhead(passages, tagInWorker, 0, 60_000)).toMatchObject({ sentences: 0, passages: 0 });
    expect(maxes).toEqual([]);
    await readAhead(passages, tagInWorker, READ_AHEAD_MAX * 10, 60_000);
    expect(maxes).toEqual([READ_AHEAD_MAX]);
    const many = Array.from({ length: 100 }, (_, i) => `Passage ${i}.`);
    const slow = async () => (await new Promise((r) => setTimeout(r, 30)), 1);
    const r = await readAhead(many, slow, 1000, 50);
    expect(r.cut).toBe(true);
    expect(r.passages).toBeLessThan(100);
  });

  it('in the worker, tags each sentence of the passages (remembered for the reader) up to the limit', () => {
    expect(readAheadTask({ texts: passages, max: 3 })).toBe(3);
    expect(readAheadTask({ texts: passages, max: 100 })).toBe(5);
    // The remembered terms are the tagger's: the year is a date, the words keep their spacing.
    const terms = termsOf('The canal opened in 1825.');
    expect(terms.map((t) => t.text)).toEqual(['The', 'canal', 'opened', 'in', '1825']);
    expect(terms[4]!.tags.has('Year')).toBe(true);
    expect(terms.map((t) => t.text + t.post).join('')).toBe('The canal opened in 1825.');
    // Terms with the same tags share one set: memory per sentence stays small.
    expect(termsOf('A ferry ran at night.')[1]!.tags).toBe(termsOf('The bridge was painted red.')[1]!.tags);
  });
});

describe("the warm-up's question in the collection's own words", () => {
  it('asks about the passage’s three longest words, the same ones whatever their order in it', () => {
    const text = 'The harbour pilots guided every steamship through the narrow channel at night.';
    expect(ownWordsQuestion(text)).toBe('What is said about steamship, channel and harbour?');
    expect(ownWordsQuestion('night channel harbour steamship pilots guided narrow the')).toBe('What is said about steamship, channel and harbour?');
  });

  it('asks nothing of a passage with fewer than three words of five letters or more', () => {
    expect(ownWordsQuestion('A cat sat on the mat, twice.')).toBeNull();
    expect(ownWordsQuestion('')).toBeNull();
  });
});
