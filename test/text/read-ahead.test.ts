import { describe, expect, it } from 'vitest';
import { termsOf } from '../../src/text/rag/ask/extractive.js';
import { lexiconOf } from '../../src/text/rag/ask/lexicon.js';
import { READ_AHEAD_MAX, readAhead } from '../../src/text/rag/ask/read-ahead.js';
import { readAhead as readAheadTask } from '../../src/text/rag/ask/reader-task.js';
import { WordVectorCache } from '../../src/text/rag/ask/support.js';

const passages = ['The canal opened in 1825. It carried grain to the city.', 'The bridge was painted red. Tolls paid for it.', 'A ferry ran at night.'];

describe('reading the collection ahead of its questions', () => {
  it("fetches the vectors of the passages' words once, then sends the passages to the worker until the sentence limit", async () => {
    const asked: string[][] = [];
    const vectors = new WordVectorCache(async (words) => (asked.push(words), words.map(() => [1, 0])));
    const batches: { texts: string[]; max: number }[] = [];
    const tagInWorker = async (texts: string[], max: number) => (batches.push({ texts, max }), Math.min(max, texts.length * 2));
    const lexicon = lexiconOf(['canal', 'grain', 'city', 'bridge', 'painted', 'red', 'ferry', 'night', 'tolls']);
    const r = await readAhead(passages, { lexicon, vectors, tagInWorker }, 100, 60_000);
    expect(asked).toHaveLength(1);
    expect(new Set(asked[0])).toEqual(new Set(['canal', 'grain', 'city', 'bridge', 'painted', 'red', 'ferry', 'night', 'tolls']));
    expect(r).toMatchObject({ passages: 3, words: 9, sentences: 6, cut: false });
    expect(batches).toEqual([{ texts: passages, max: 100 }]);
    // Already remembered: a second reading fetches nothing.
    await readAhead(passages, { lexicon, vectors }, 100, 60_000);
    expect(asked).toHaveLength(1);
  });

  it('reads nothing when turned off, never beyond what the tag cache holds, and stops when its time is up', async () => {
    const maxes: number[] = [];
    const tagInWorker = async (texts: string[], max: number) => (maxes.push(max), 1);
    const lexicon = lexiconOf([]);
    expect(await readAhead(passages, { lexicon, tagInWorker }, 0, 60_000)).toMatchObject({ sentences: 0, passages: 0 });
    expect(maxes).toEqual([]);
    await readAhead(passages, { lexicon, tagInWorker }, READ_AHEAD_MAX * 10, 60_000);
    expect(maxes).toEqual([READ_AHEAD_MAX]);
    const many = Array.from({ length: 100 }, (_, i) => `Passage ${i}.`);
    const slow = async () => (await new Promise((r) => setTimeout(r, 30)), 1);
    const r = await readAhead(many, { lexicon, tagInWorker: slow }, 1000, 50);
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
