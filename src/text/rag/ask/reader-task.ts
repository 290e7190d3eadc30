// Worker-thread task: the learned reader over the candidate sentences of an extractive answer. Tagging every candidate
// sentence's words (compromise) and ranking its spans is the costly part of /rag/ask; in a worker it does not hold up
// the event loop that predictions and every other request wait on. The question's own tagging (entities, answer type,
// nouns) is done here too: the event loop's thread never loads the tagger.
import { splitSentences } from '../../sentences.js';
import { termsOf } from './extractive.js';
import { sentenceStems } from './lexical.js';
import { rememberRows } from './sentence-features.js';
import { type TableVectors, tableVectors as vectorsOf, loadWordTable } from './word-vectors.js';
import { type LearnedReader, type ReadResult, type SentenceCandidate, analyseQuestion, loadLearnedReader } from './reader.js';

/** What crosses to the worker: plain data (sets as arrays), and the rarity of the question's own stems. */
export interface ReadArgs {
  question: string;
  rarity: Record<string, number>;
  candidates: (Omit<SentenceCandidate, 'titleStems'> & { titleStems?: string[] })[];
}

let reader: LearnedReader | null = null;

export function read(args: ReadArgs): ReadResult | null {
  reader ??= loadLearnedReader();
  const q = analyseQuestion(args.question, (stem) => args.rarity[stem] ?? 0);
  return reader.read(
    q,
    args.candidates.map(({ titleStems, ...c }) => (titleStems ? { ...c, titleStems: new Set(titleStems) } : c)),
  );
}

/** Reads passages ahead of their questions (read-ahead.ts): their sentences' tags and stems, up to `max` sentences. */
export function readAhead({ texts, max }: { texts: string[]; max: number }): number {
  let n = 0;
  for (const text of texts) {
    for (const sentence of splitSentences(text)) {
      if (n >= max) return n;
      termsOf(sentence);
      sentenceStems(sentence);
      rememberRows(sentence);
      n++;
    }
  }
  return n;
}

/** Unit vectors of the words the shipped embedder's table holds as one entry (word-vectors.ts), read here where the table is. */
export const tableVectors = (words: string[]): TableVectors => vectorsOf(loadWordTable(), words);

export { questionNlp as tag } from './question-nlp.js';
