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
  // An option's letter after its dash ("-i", "-a") is no stop word, whatever its letter.
  if (!t.stem) return ['Value', 'Acronym'].some((tag) => t.tags.has(tag)) || /(?:^|\s)--?$/.test(t.pre);
  if (!q.stems.has(t.stem)) return true;
  return /[\p{L}\p{N}][./_\\-][\p{L}\p{N}]/u.test(t.text) && bm25Tokens(t.text).some((s) => !q.stems.has(s));
}

/** Longest heading, in words, that opens a sentence before a colon. */
const HEADING_WORDS = 10;

/**
 * The end (exclusive) of the heading that opens a sentence, else 0: two to HEADING_WORDS words before the sentence's
 * first colon, with no stop, semicolon or verb of a clause among them and no list marker before them ("BUG REPORTS AND
 * FIXES (Un*x systems): Please send ...", or a Markdown heading as readable.ts joins it to its paragraph, "Usage
 * (promise API): Node v10+ is required."). A heading names the section's subject; it answers nothing, and a span inside
 * it ("Un*x systems") is no answer. A list item's or a table cell's key ("- 25672: distribution port", "uid: 64001") is
 * one word and may be the answer: it stays.
 */
function headingEnd(terms: Term[]): number {
  const colon = terms.findIndex((t) => t.post.includes(':'));
  if (colon < 1 || colon >= HEADING_WORDS || /[-*+•\d]/u.test(terms[0]!.pre)) return 0;
  const lead = terms.slice(0, colon + 1);
  return lead.some((t, i) => (i < colon && /[.;!?]/.test(t.post)) || clauseWord(t)) ? 0 : colon + 1;
}

/** Tags of a word that makes a clause: a verb with a tense, a modal or an auxiliary, an imperative, a pronoun. */
const CLAUSE_TAGS = ['PastTense', 'Copula', 'Modal', 'Auxiliary', 'Imperative', 'Pronoun'];

/**
 * A word that makes a clause of the words before a colon ("The three largest cities are:", "You can also disable
 * support for some compression libraries:", "Please note the following:"): they are prose, not a heading. A gerund or
 * an infinitive heads a heading ("Using udev with LDAP:", "How to install local CA certificates:"), and a word in
 * capitals is a heading's ("BUG REPORTS AND FIXES", where the tagger reads "FIXES" as a verb).
 */
const clauseWord = (t: Term) =>
  t.text !== t.text.toUpperCase() &&
  (CLAUSE_TAGS.some((tag) => t.tags.has(tag)) || (t.tags.has('PresentTense') && !t.tags.has('Gerund') && !t.tags.has('Infinitive')));

/** Longest Texinfo cross-reference read, in words. */
const REFERENCE_WORDS = 8;

/**
 * Words of Texinfo cross-references ("(*note Optional Features::)", "*Note Invoking::"): the name of a manual's node,
 * markup that points elsewhere and answers nothing, though it reads like a name.
 */
function inReferences(terms: Term[]): boolean[] {
  const out = terms.map(() => false);
  terms.forEach((t, i) => {
    if (!/^note$/i.test(t.text) || !t.pre.endsWith('*')) return;
    const end = terms.slice(i, i + REFERENCE_WORDS).findIndex((u) => u.post.includes('::'));
    if (end >= 0) out.fill(true, i, i + end + 1);
  });
  return out;
}

/**
 * Candidate answer spans of a sentence: word runs of at most MAX_SPAN words that do not start or end with a
 * determiner, preposition, conjunction or punctuation, do not cross ; : ( ) or quotes, and are not only question words
 * and stop words. A clause's first word (the sentence's, or the one after a colon) alone is no answer when it is a
 * gerund: it heads the clause that is the sentence's subject ("Allocator: Selecting a non-default memory allocator ...
 * is done by setting MALLOC"), and said alone it names nothing. No span starts in the sentence's heading (headingEnd),
 * none holds a word of a cross-reference (inReferences), none starts inside a hyphenated word, and none ends inside
 * a path cut at a hyphen.
 */
export function spanCandidates(terms: Term[], q: QuestionInfo): SpanCandidate[] {
  const out: SpanCandidate[] = [];
  const adds = terms.map((t) => addsToQuestion(t, q));
  const edge = (t: Term) => !isPunct(t) && !t.tags.has('Determiner') && !t.tags.has('Preposition') && !t.tags.has('Conjunction') && !capitalisedFunctionWord(t);
  // A clause starts at the sentence's first word and after a colon (a heading is read as "Heading: sentence").
  const first = terms.findIndex((t) => !isPunct(t));
  const startsClause = (i: number) => i === first || (i > 0 && terms[i - 1]!.post.includes(':'));
  const loneGerund = (from: number, to: number) => to === from + 1 && startsClause(from) && isGerund(terms[from]!);
  const reference = inReferences(terms);
  // The tokenizer cuts a word at its hyphens ("perl" + "base", "/usr/share/iso" + "codes/json"). No span starts after
  // such a cut: the end of a compound ("base" of "perl-base") names nothing alone. A span may end before one ("Paris"
  // of "Paris-based"), but not inside a path.
  const hyphenBefore = (i: number) => terms[i - 1]?.post === '-';
  const cutPath = (i: number) => terms[i]?.post === '-' && (terms[i].text.includes('/') || terms[i + 1]?.text.includes('/') === true);
  for (let from = headingEnd(terms); from < terms.length; from++) {
    if (!edge(terms[from]!) || reference[from] || hyphenBefore(from)) continue;
    let onlyQuestion = true;
    for (let to = from + 1; to <= Math.min(terms.length, from + MAX_SPAN); to++) {
      const last = terms[to - 1]!;
      if (reference[to - 1]) break;
      if (adds[to - 1]) onlyQuestion = false;
      if (edge(last) && !onlyQuestion && !loneGerund(from, to) && !cutPath(to - 1)) out.push({ from, to, text: render(terms, { from, to }) });
      if (HARD_BREAK.test(last.post) || HARD_BREAK.test(terms[to]?.pre ?? '')) break;
    }
  }
  return out;
}
