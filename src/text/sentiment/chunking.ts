// Splits a text into chunks of at most 510 model tokens, on token boundaries, preferably at sentence ends.

import { splitSentences } from '../sentences.js';

export const MAX_CHUNK_TOKENS = 510;

/**
 * Greedy packing of sentences; a sentence over the limit is packed word by word, and a "word" over the limit
 * (a long string without spaces) is cut by characters, never inside a surrogate pair, in time linear in its length.
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
      for (const piece of splitLongWord(word, count, max)) push(piece.text, piece.tokens);
    }
  }
  flush();
  return chunks;
}

/**
 * Cuts a "word" over the limit in linear time: slices of `max` code points (a token covers at least one code point
 * for the shipped WordPiece tokenizers, so such a slice fits), each counted once; a slice that still has too many
 * tokens (a byte-level tokenizer) is halved until it fits. Every character is counted a bounded number of times,
 * instead of re-tokenising long slices at every step of a search.
 */
export function splitLongWord(word: string, count: (s: string) => number, max: number): { text: string; tokens: number }[] {
  const chars = Array.from(word); // code points: a surrogate pair is never split
  const pieces: { text: string; tokens: number }[] = [];
  const cut = (from: number, to: number): void => {
    const text = chars.slice(from, to).join('');
    const tokens = count(text);
    if (tokens <= max || to - from <= 1) {
      pieces.push({ text, tokens: Math.min(tokens, max) });
      return;
    }
    const mid = from + Math.ceil((to - from) / 2);
    cut(from, mid);
    cut(mid, to);
  };
  for (let start = 0; start < chars.length; start += max) cut(start, Math.min(chars.length, start + max));
  return pieces;
}
