// A name the span ranker cut short: the capitalised words of the same name on either side of a span; a quote the span
// opens and its sentence closes right after it.
import { wordStem } from './lexical.js';

/** A capitalised word, possibly with inner hyphens, digits or apostrophes ("Mozilla", "Rolls-Royce", "O'Neil"). */
const CAPITALISED = /^\p{Lu}[\p{L}\p{N}'’-]*$/u;

/**
 * The span with the capitalised words right before it that the question names, when the span starts with a
 * capitalised word: they belong to the same name ("Mozilla Foundation" for "who is the license steward of the mozilla
 * public license?"), though the span ranker, which learned that an answer seldom repeats the question's words, left
 * them out. At most three words are added, and only words the question holds. A span that ends with a capitalised
 * word likewise takes the rest of the name after it (nameAfter).
 */
export function wholeName(sentence: string, span: string, questionStems: ReadonlySet<string>): string {
  const at = sentence.indexOf(span);
  if (at < 0) return span;
  const whole = `${span}${nameAfter(sentence.slice(at + span.length), span)}`;
  if (!CAPITALISED.test(span.split(' ')[0] ?? '') || at === 0) return whole;
  const before = sentence.slice(0, at);
  if (!/\S $/.test(before)) return whole;
  const words = before.slice(0, -1).split(' ');
  const added: string[] = [];
  while (added.length < 3 && words.length) {
    const w = words[words.length - 1]!;
    const stem = wordStem(w.toLowerCase());
    if (!CAPITALISED.test(w) || !stem || !questionStems.has(stem)) break;
    added.unshift(words.pop()!);
  }
  return added.length ? `${added.join(' ')} ${whole}` : whole;
}

/** An initial of a name ("A." in "Philip A. Nelson"). */
const INITIAL = /^\p{Lu}\.$/u;

/**
 * The rest of a name that the span cuts short on the right ("Philip" in "written by Philip A. Nelson."): the
 * capitalised words and initials right after a span that ends with a capitalised word, up to three and not across
 * punctuation, ending with a word rather than an initial. Empty when there is none.
 */
function nameAfter(rest: string, span: string): string {
  if (!CAPITALISED.test(span.split(' ').pop() ?? '') || !/^ \S/.test(rest)) return '';
  // Not past the end of its line: "Author: Philip A. Nelson" over "E-mail: ..." ends the name at "Nelson".
  const words = rest.slice(1).split('\n')[0]!.split(' ');
  const added: string[] = [];
  let lastWord = 0;
  for (const w of words.slice(0, 3)) {
    if (INITIAL.test(w)) {
      added.push(w);
      continue;
    }
    const bare = w.replace(/[.,;:!?)]+$/, '');
    if (!CAPITALISED.test(bare)) break;
    added.push(bare);
    lastWord = added.length;
    if (bare !== w) break;
  }
  return lastWord ? ` ${added.slice(0, lastWord).join(' ')}` : '';
}

/** Opening quotes and the quote that closes each. */
const CLOSING: Record<string, string> = { "'": "'", '"': '"', '\u2018': '\u2019', '\u201c': '\u201d', '`': '`' };

/**
 * The span with the quote it opens closed, when its sentence closes it right after the span ("re-run
 * 'update-ca-certificates" in "... and re-run 'update-ca-certificates'."): shown unclosed, the answer reads as cut
 * off. A quote opens where it follows a space or the span's start; an apostrophe inside a word ("don't") opens none.
 */
export function closeQuote(sentence: string, span: string): string {
  const at = sentence.indexOf(span);
  if (at < 0) return span;
  let open: string | null = null;
  for (let i = 0; i < span.length; i++) {
    const c = span[i]!;
    if (open !== null && c === CLOSING[open]) open = null;
    else if (open === null && c in CLOSING && (i === 0 || /\s/.test(span[i - 1]!))) open = c;
  }
  return open !== null && sentence[at + span.length] === CLOSING[open] ? `${span}${CLOSING[open]}` : span;
}
