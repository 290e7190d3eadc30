// Reading the collection ahead of its questions. A question pays for every passage no earlier question has read: the
// word vectors of its words (the support check, here) and the part-of-speech tags of its sentences (the reader, in the
// worker); asked again, the same question takes about half the time. Done for the whole collection before /ready, up
// to what the caches hold and a time budget, so that the first questions are not the slow ones.
import type { Lexicon } from './lexicon.js';
import { passageWords, vectorWords } from './support-passages.js';
import type { WordVectorCache } from './support.js';

/**
 * Sentences whose tags are remembered (termsOf, extractive.ts), and so the most read ahead: a collection of a few
 * hundred pages. About 3.5 MB per thousand sentences of a novel's length: a term keeps only what is read of it, and
 * shares its set of tags.
 */
export const READ_AHEAD_MAX = 8_000;

export interface ReadAheadParts {
  lexicon: Lexicon;
  vectors?: WordVectorCache;
  /** Tags the sentences of these passages in the worker, up to `max` sentences; answers how many it tagged. */
  tagInWorker?: (texts: string[], max: number) => Promise<number>;
}

export interface ReadAhead {
  passages: number;
  words: number;
  sentences: number;
  ms: number;
  /** The time budget ran out before the whole collection was read. */
  cut: boolean;
}

/** Passages sent to the worker per task: a task stays short (a few hundred ms), so a user's question never waits long. */
const PER_TASK = 16;

/**
 * Reads `texts` (the collection's passages, in order) ahead: the word vectors of their words, then the tags of their
 * sentences, up to `maxSentences` (at most READ_AHEAD_MAX) and until `budgetMs` has passed.
 */
export async function readAhead(texts: string[], parts: ReadAheadParts, maxSentences: number, budgetMs: number): Promise<ReadAhead> {
  const t0 = performance.now();
  const out: ReadAhead = { passages: 0, words: 0, sentences: 0, ms: 0, cut: false };
  const max = Math.min(maxSentences, READ_AHEAD_MAX);
  if (!texts.length || max <= 0) return out;
  if (parts.vectors) {
    const words = [...new Set(texts.flatMap((t) => vectorWords(passageWords(t), parts.lexicon)))].slice(0, parts.vectors.limit);
    await parts.vectors.get(words);
    out.words = words.length;
  }
  for (let i = 0; parts.tagInWorker && i < texts.length && out.sentences < max; i += PER_TASK) {
    if (performance.now() - t0 > budgetMs) {
      out.cut = true;
      break;
    }
    const batch = texts.slice(i, i + PER_TASK);
    out.sentences += await parts.tagInWorker(batch, max - out.sentences);
    out.passages += batch.length;
  }
  out.ms = Math.round(performance.now() - t0);
  return out;
}
