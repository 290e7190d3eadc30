// A tiny cross-encoder for tests (see scripts/lib/text/exact-match-cross-encoder.ts), in a temporary folder.
import { writeExactMatchCrossEncoder } from '../../scripts/lib/text/exact-match-cross-encoder.js';
import { tempDir } from './app.js';

export function exactMatchCrossEncoder(words: string[]): string {
  return writeExactMatchCrossEncoder(tempDir('cross-encoder-'), words);
}
