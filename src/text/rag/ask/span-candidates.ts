// Candidate answer spans of a sentence for the span ranker (span-features.ts): word runs that could be an answer.
import { bm25Tokens } from '../../search/bm25.js';
import { type Span, type Term, render, termsOf } from './extractive.js';
import type { QuestionInfo } from './reader-question.js';

/** Longest answer span considered, in words (95% of SQuAD answers are at most 10 words). */
export const MAX_SPAN = 10;

export interface SpanCandidate extends Span {
  text: string;
}

const isPunct = (t: Term) => !/[\p{L}\p{N}]/u.test(t.text);
const HARD_BREAK = /[;:()"[\]]/;

/**
 * A function word (one with no stem: "If", "The", "Him") that the tagger read as a name for its capital letter, as
 * after a heading's colon ("Using different state files: If a dependency solver bug is reported..."): no answer starts
 * or ends with it.
 */
const capitalisedFunctionWord = (t: Term) => !t.stem && t.tags.has('ProperNoun') && !t.tags.has('Value') && !t.tags.has('Acronym');

/**
 * Whether a word is a gerund, or would be out of context: after a colon the tagger reads a capitalised "Selecting" as
 * a name, so such a word is tagged again alone, in lower case (termsOf remembers it).
 */
const isGerund = (t: Term) => t.tags.has('Gerund') || (/^\p{Lu}\p{Ll}+ing$/u.test(t.text) && termsOf(t.text.toLowerCase())[0]?.tags.has('Gerund') === true);

/**
 * Whether a word adds to the question's own words. Stop words ("is", "of") add nothing ("Monroe Doctrine is"); a
 * number or a name does; a word of several parts (a file name, a path: "build.sh", "/etc/wgetrc") adds when any of
 * its parts is not the question's, so that "build.sh" answers "What script do I use to build it?".
 */
function addsToQuestion(t: Term, q: QuestionInfo): boolean {
  if (!t.stem) return ['Value', 'Acronym'].some((tag) => t.tags.has(tag));
  if (!q.stems.has(t.stem)) return true;
  return /[\p{L}\p{N}][./_\\-][\p{L}\p{N}]/u.test(t.text) && bm25Tokens(t.text).some((s) => !q.stems.has(s));
}

/**
 * Candidate answer spans of a sentence: word runs of at most MAX_SPAN words that do not start or end with a
 * determiner, preposition, conjunction or punctuation, do not cross ; : ( ) or quotes, and are not only question words
 * and stop words. A clause's first word (the sentence's, or the one after a colon) alone is no answer when it is a
 * gerund: it heads the clause that is the sentence's subject ("Allocator: Selecting a non-default memory allocator ...
 * is done by setting MALLOC"), and said alone it names nothing.
 */
export function spanCandidates(terms: Term[], q: QuestionInfo): SpanCandidate[] {
  const out: SpanCandidate[] = [];
  const adds = terms.map((t) => addsToQuestion(t, q));
  const edge = (t: Term) => !isPunct(t) && !t.tags.has('Determiner') && !t.tags.has('Preposition') && !t.tags.has('Conjunction') && !capitalisedFunctionWord(t);
  // A clause starts at the sentence's first word and after a colon (a heading is read as "Heading: sentence").
  const first = terms.findIndex((t) => !isPunct(t));
  const startsClause = (i: number) => i === first || (i > 0 && terms[i - 1]!.post.includes(':'));
  const loneGerund = (from: number, to: number) => to === from + 1 && startsClause(from) && isGerund(terms[from]!);
  for (let from = 0; from < terms.length; from++) {
    if (!edge(terms[from]!)) continue;
    let onlyQuestion = true;
    for (let to = from + 1; to <= Math.min(terms.length, from + MAX_SPAN); to++) {
      const last = terms[to - 1]!;
      if (adds[to - 1]) onlyQuestion = false;
      if (edge(last) && !onlyQuestion && !loneGerund(from, to)) out.push({ from, to, text: render(terms, { from, to }) });
      if (HARD_BREAK.test(last.post) || HARD_BREAK.test(terms[to]?.pre ?? '')) break;
    }
  }
  return out;
}
