// Reading the collection ahead of its questions. A question pays for every passage no earlier question has read,
// most of all for the part-of-speech tags of its sentences (the reader, in the worker); asked again, the same question
// takes about half the time. The sentences of the whole collection are tagged before /ready, up to what the tag cache
// holds and a time budget, so that the first questions are not the slow ones. The word vectors of the support check
// are not read ahead: all of a collection's words held about 15 MB, for about 10 ms on a question's first reading.
/**
 * Sentences whose tags are remembered (termsOf, extractive.ts), and so the most read ahead: a collection of a few
 * hundred pages. About 2 MB per thousand sentences of a novel's length (with the tagger's own share): the terms are
 * kept packed (term-store.ts).
 */
export const READ_AHEAD_MAX = 8_000;

/** Tags the sentences of these passages in the reader's worker, up to `max` sentences; answers how many it tagged. */
export type TagAhead = (texts: string[], max: number) => Promise<number>;

export interface ReadAhead {
  passages: number;
  sentences: number;
  ms: number;
  /** The time budget ran out before the whole collection was read. */
  cut: boolean;
}

/** Passages sent to the worker per task: a task stays short (a few hundred ms), so a user's question never waits long. */
const PER_TASK = 16;

/**
 * Reads `texts` (the collection's passages, in order) ahead: the tags of their sentences, up to `maxSentences` (at
 * most READ_AHEAD_MAX) and until `budgetMs` has passed.
 */
export async function readAhead(texts: string[], tagInWorker: TagAhead, maxSentences: number, budgetMs: number): Promise<ReadAhead> {
  const t0 = performance.now();
  const out: ReadAhead = { passages: 0, sentences: 0, ms: 0, cut: false };
  const max = Math.min(maxSentences, READ_AHEAD_MAX);
  for (let i = 0; i < texts.length && out.sentences < max; i += PER_TASK) {
    if (performance.now() - t0 > budgetMs) {
      out.cut = true;
      break;
    }
    const batch = texts.slice(i, i + PER_TASK);
    out.sentences += await tagInWorker(batch, max - out.sentences);
    out.passages += batch.length;
  }
  out.ms = Math.round(performance.now() - t0);
  return out;
}
