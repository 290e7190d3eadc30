// Light helpers over retrieved passages (no part-of-speech tagger): chunks cut mid-sentence, and a document's title
// words. The event loop's thread uses them; the tagger-based steps run in the worker (question-nlp.ts, reader-task.ts).
import { bm25Tokens, titleWords } from '../../search/bm25.js';
import { memoise } from './lexical.js';

/**
 * The whole sentence of a fragment that opens a chunk, from the previous chunk of the same document (chunks overlap,
 * so the fragment's start is in it): the text from that sentence's start up to the fragment, then the fragment. Null
 * when the previous chunk does not hold the fragment's start.
 */
export function completeFragment(previous: string, fragment: string): string | null {
  const probe = fragment.slice(0, Math.min(40, fragment.length));
  const at = previous.lastIndexOf(probe);
  if (at <= 0) return null;
  let start = 0;
  for (const m of previous.slice(0, at).matchAll(/[.!?…]["'”’)\]]*\s+|\n\s*\n/gu)) start = m.index + m[0].length;
  const head = previous.slice(start, at);
  return head.trim() ? `${head}${fragment}`.trim() : null;
}

/** The stems of a document's path without its extension (titleWords), remembered per document. */
export const titleStems: (source: string) => ReadonlySet<string> = memoise(10_000, (source) => new Set(bm25Tokens(titleWords(source))));
