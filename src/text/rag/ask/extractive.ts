// Building blocks of the extractive reader (reader.ts): the question's expected answer type, compromise's tagged
// words of a sentence, runs of noun-phrase words (tagged by compromise) that the question does not already say, and
// how well a word fits the expected type (who -> a person or organisation, when -> a date, how many -> a number,
// where -> a place, or a path or an address on a computer or the web).
import nlp from 'compromise';
import { bm25Tokens } from '../../search/bm25.js';
import { YEAR_WORD, memoise } from './lexical.js';
import { READ_AHEAD_MAX } from './read-ahead.js';
import { pack, tagSetId, unpack } from './term-store.js';

export type QuestionType = 'person' | 'date' | 'number' | 'place' | 'other';

export function questionType(question: string): QuestionType {
  const q = question.toLowerCase();
  if (
    /\b(how (many|much|long|far|old|large|big|tall|high|fast|often)|what (percentage|percent|number|amount|proportion|fraction|size|population)|how much)\b/.test(
      q,
    )
  )
    return 'number';
  if (/\b(what|which) (is|was|were|are) the (cost|price|population|number|amount|percentage|size|length|value)\b/.test(q)) return 'number';
  // A network port is a number ("what's the default port ...", "which port does ... use").
  if (/\b(?:what|which)(?:'s| is| was| are)?(?: the)?(?: \w+)? ports?\b/.test(q)) return 'number';
  if (/\b(when|what year|which year|what date|what century|what decade|what day|what month|what time|what period|what season)\b/.test(q)) return 'date';
  if (/\b(who|whom|whose)\b/.test(q)) return 'person';
  if (
    /\b(which|what) (person|people|man|woman|player|team|group|band|company|firm|brand|manufacturer|organi[sz]ation|institution|agency|party|network|station|newspaper|magazine|club|church|dynasty|tribe|family|artist|singer|musician|performer|actor|actress|poet|painter|composer|architect|engineer|inventor|philosopher|scientist|writer|author|politician|minister|official|king|queen|leader|general|emperor|pope|coach|university|school|court|committee)\b/.test(
      q,
    )
  )
    return 'person';
  if (/\b(where|(what|which) (country|city|state|place|region|continent|river|town|area|location|nation|island|county|province))\b/.test(q)) return 'place';
  return 'other';
}

export { titleWords } from '../../search/bm25.js';

export interface Term {
  text: string;
  pre: string;
  post: string;
  tags: ReadonlySet<string>;
  stem: string;
}

// Words that can be part of an answer phrase.
const NOMINAL = ['Noun', 'ProperNoun', 'Adjective', 'Value', 'Acronym', 'Possessive', 'Date', 'Money', 'Percent', 'Unit', 'Month', 'Year'];
// How well a word fits the expected answer type: the specific tags fully, a generic proper noun partly.
export const TYPED: Record<Exclude<QuestionType, 'other'>, Record<string, number>> = {
  person: { Person: 1, Organization: 1, ProperNoun: 0.6, Acronym: 0.5 },
  date: { Date: 1, Month: 1, Year: 1, WeekDay: 1, Ordinal: 0.6 },
  number: { Value: 1, Money: 1, Percent: 1, Cardinal: 1 },
  place: { Place: 1, Country: 1, City: 1, Region: 1, Path: 1, ProperNoun: 0.6 },
};

export const fit = (t: Term, wanted: Record<string, number>) => Math.max(0, ...[...t.tags].map((tag) => wanted[tag] ?? 0));

/**
 * A sentence's words with their part-of-speech tags, remembered (packed, term-store.ts) for the sentences read most
 * recently, up to a whole collection read ahead: the same passages come back question after question, and tagging is
 * the costly part of reading one. Each call answers new term objects.
 */
const packedTerms = memoise(READ_AHEAD_MAX, (sentence) => pack(tagTerms(sentence)));
export const termsOf = (sentence: string): Term[] => unpack(packedTerms(sentence));

function tagTerms(sentence: string) {
  const json = nlp(sentence).json({ terms: { tags: true } }) as { terms: { text: string; pre: string; post: string; tags: string[] }[] }[];
  const terms: { text: string; pre: string; post: string; tags: string[] }[] = [];
  const all = json.flatMap((s) => s.terms);
  // A lead-in waiting for the word it touches (see below).
  let lead = '';
  for (const [i, t] of all.entries()) {
    // compromise expands some words into extra terms without text ("they're" -> they + are, "24–10"): they are not
    // words of the sentence, but the space after the word is theirs ("they're ready" would render "they'reready").
    if (t.text === '') {
      const last = terms[terms.length - 1];
      if (last) terms[terms.length - 1] = { ...last, post: last.post + t.pre + t.post };
      // It also makes a term of a quote or backtick followed by one hyphen ("'-r'", "`-r`", "\"-H\"" give "'-" and
      // "r"): a term without a letter or digit that touches the next word is that word's lead-in, as "--" of
      // "'--restricted'" is, so that an option is a span with its hyphen ("-r", not "r").
    } else if (t.post === '' && i < all.length - 1 && !/[\p{L}\p{N}]/u.test(t.text)) lead += t.pre + t.text;
    else {
      terms.push(lead ? { ...t, pre: lead + t.pre } : t);
      lead = '';
    }
  }
  return terms.map((t) => {
    const tags = [...t.tags];
    // compromise tags a year as a plain number in most contexts ("since 1963"); years and decades are dates here.
    if (YEAR_WORD.test(t.text)) tags.push('Year');
    if (/^(century|centuries|decade|BC|BCE|AD|CE)$/i.test(t.text)) tags.push('Date');
    // A file's path ("/usr/local/etc/wgetrc", "~/.sh_history", "./configure": the tokenizer leaves the leading "/" in
    // front of the word) or a web address is where something is: the answer to a "where" question in a manual.
    if (tags.includes('Url') || (/(?:^|[\s("'`])(?:~|\.{1,2})?\/\.?$/.test(t.pre) && /^[\p{L}\p{N}_]/u.test(t.text))) tags.push('Path');
    return { text: t.text, pre: t.pre, post: t.post, tagId: tagSetId(tags), stem: bm25Tokens(t.text)[0] ?? '' };
  });
}

export const isNominal = (t: Term) => NOMINAL.some((tag) => t.tags.has(tag)) && !t.tags.has('Pronoun');

export interface Span {
  from: number;
  to: number; // exclusive
}

/**
 * Maximal runs of nominal words (not crossing punctuation), trimmed of determiners and of the question's own words
 * at both ends; a run made only of the question's words is no answer.
 */
export function spansOf(terms: Term[], question: Set<string>): Span[] {
  const runs: Span[] = [];
  let from = -1;
  const close = (i: number) => {
    if (from >= 0) runs.push({ from, to: i });
    from = -1;
  };
  terms.forEach((t, i) => {
    if (!isNominal(t)) return close(i);
    if (from < 0) from = i;
    if (/[,;:()"]/.test(t.post)) close(i + 1);
  });
  close(terms.length);
  const known = (t: Term) => t.tags.has('Determiner') || (t.stem !== '' && question.has(t.stem)) || (t.stem === '' && !t.tags.has('Value'));
  const out: Span[] = [];
  for (let { from, to } of runs) {
    while (from < to && known(terms[from]!)) from++;
    while (to > from && known(terms[to - 1]!)) to--;
    if (to > from) out.push({ from, to });
  }
  return out;
}

/**
 * The span's words as the text has them. The first word keeps the symbols the tokenizer split off its front when they
 * belong to it (the "/" of a path, the "-" or "--" of an option, the "~/." of a dotfile), not quotes, brackets,
 * emphasis or dashes; a bracket the span opens keeps its closing bracket ("<file>", "apt-secure(8)"), and a call its "()".
 */
export function render(terms: Term[], s: Span): string {
  let out = (terms[s.from]?.pre ?? '').replace(/^.*[\s"'([{*`_\u2013\u2014\u2018\u201c]/su, '');
  for (let i = s.from; i < s.to; i++) out += (i > s.from ? terms[i]!.pre : '') + terms[i]!.text + (i < s.to - 1 ? terms[i]!.post : '');
  out = trimEnd(out.replace(/^[\s"'([]+/, ''));
  const post = terms[s.to - 1]?.post ?? '';
  if (/^\(\)/.test(post)) return `${out}()`.replace(/\s+/g, ' ');
  for (const [open, close] of PAIRS) if (count(out, open) > count(out, close) && post.startsWith(close)) out += close;
  return out.replace(/\s+/g, ' ');
}

/** Brackets a span closes when it opened them: an option's "<...>", a man page's "(8)", a list's "[...]". */
const PAIRS = [
  ['<', '>'],
  ['(', ')'],
  ['[', ']'],
] as const;
const count = (s: string, ch: string) => s.split(ch).length - 1;

/** The span without the punctuation after its last word; a bracket stays when it closes one the span opened. */
function trimEnd(s: string): string {
  let out = s;
  for (;;) {
    const last = out.at(-1);
    if (last === undefined || !/[\s"',.;:)\]]/.test(last)) return out;
    const pair = PAIRS.find(([, close]) => close === last);
    if (pair && count(out, pair[0]) >= count(out, pair[1])) return out;
    out = out.slice(0, -1);
  }
}

/** The terms of the (up to three) words after the question's "what"/"which", or none. */
export function whPhrase(question: string): Term[] {
  const m = /\b(?:what|which)\s+((?:[\w'-]+\s+){0,2}[\w'-]+)/i.exec(question);
  return m ? termsOf(m[1]!) : [];
}

/** The stem of the first noun after "what"/"which" in the question, if any. */
export function headNoun(question: string): string | null {
  for (const t of whPhrase(question)) {
    if (t.tags.has('Verb') || t.tags.has('Copula')) return null;
    if (t.tags.has('Noun') && t.stem) return t.stem;
  }
  return null;
}

export { completeFragment } from './passages.js';
