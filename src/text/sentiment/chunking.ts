// Splits a text into chunks of at most 510 model tokens, on token boundaries, preferably at sentence ends.

import { splitSentences } from '../sentences.js';

export const MAX_CHUNK_TOKENS = 510;

/**
 * Greedy packing of sentences; a sentence over the limit is packed word by word, and a "word" over the limit
 * (a long string without spaces) is cut by characters, never inside a surrogate pair.
 * `count` gives a piece's token count without special tokens; pieces joined by a space keep their tokens because
 * the tokenizers split on whitespace first.
 */
export function chunkText(text: string, count: (s: string) => number, max = MAX_CHUNK_TOKENS): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let used = 0;
  const flush = () => {
    if (current.length) chunks.push(current.join(' '));
    current = [];
    used = 0;
  };
  const push = (piece: string, n: number) => {
    if (used + n > max) flush();
    current.push(piece);
    used += n;
  };
  for (const sentence of splitSentences(text)) {
    const n = count(sentence);
    if (n <= max) {
      push(sentence, n);
      continue;
    }
    for (const word of sentence.split(/\s+/).filter(Boolean)) {
      const w = count(word);
      if (w <= max) {
        push(word, w);
        continue;
      }
      for (const piece of splitLongWord(word, count, max)) push(piece, count(piece));
    }
  }
  flush();
  return chunks;
}

function splitLongWord(word: string, count: (s: string) => number, max: number): string[] {
  const chars = Array.from(word); // code points: a surrogate pair is never split
  const pieces: string[] = [];
  let start = 0;
  while (start < chars.length) {
    // Largest slice that fits, by binary search over its length.
    let lo = 1;
    let hi = chars.length - start;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (count(chars.slice(start, start + mid).join('')) <= max) lo = mid;
      else hi = mid - 1;
    }
    pieces.push(chars.slice(start, start + lo).join(''));
    start += lo;
  }
  return pieces;
}
