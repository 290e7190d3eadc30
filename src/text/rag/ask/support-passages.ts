// The support check's reading of passages (support.ts): a passage's words, stems and initials (remembered: the same
// chunks and sentence windows come back question after question), and whether a question's term is found in them:
// as such, as another form of the word, as a number written another way, or as a name typed with one slip.
import { LRUCache } from 'lru-cache';
import { bm25Tokens } from '../../search/bm25.js';
import type { Lexicon } from './lexicon.js';
import { MONTH_ABBREVIATIONS, NUMBER_WORDS, ORDINAL_WORDS, memoise, misspeltName, sameWordStem, withoutAccents } from './lexical.js';
import type { SupportTerm } from './support.js';
import { WORD, isAcronym } from './support-terms.js';

/**
 * A number as passages write it: "15" matches "15th", "41000" matches "41,000"; a decade matches with or without its
 * century and apostrophe ("70's" and "1970s", "1970").
 */
const numberForms = (n: string) => {
  const decade = /^(\d\d|\d{4})['’]?s$/.exec(n)?.[1];
  if (decade) return decade.length === 2 ? [`${decade}s`, `19${decade}s`, `19${decade}`] : [`${decade}s`, decade];
  // "10th" is also "10" and "tenth".
  const ordinal = /^(\d+)(?:st|nd|rd|th)$/.exec(n)?.[1];
  const plain = ordinal ?? n.replace(/,/g, '');
  const value = Number(plain);
  return [
    plain,
    `${plain}th`,
    `${plain}st`,
    `${plain}nd`,
    `${plain}rd`,
    value.toLocaleString('en-US'),
    ...(ordinal && ORDINAL_WORDS[value - 1] ? [ORDINAL_WORDS[value - 1]!] : []),
    ...(!ordinal && NUMBER_WORDS[value] && /^\d{1,2}$/.test(plain) ? [NUMBER_WORDS[value]] : []),
  ];
};

/**
 * Years a number stands for: a century's ("16th century": 1500 to 1599) or a decade's ("1700s": 1700 to 1799, "1970s":
 * 1970 to 1979); a passage that gives one of those years mentions the time asked about.
 */
function yearsOf(t: Pick<SupportTerm, 'text' | 'century'>): { from: number; to: number } | null {
  const n = t.text.toLowerCase();
  const century = t.century ? /^(\d{1,2})(?:st|nd|rd|th)$/.exec(n)?.[1] : undefined;
  if (century) return { from: (Number(century) - 1) * 100, to: Number(century) * 100 - 1 };
  const decade = /^(\d{4})['’]?s$/.exec(n)?.[1];
  if (!decade) return null;
  const start = Number(decade);
  return start % 100 === 0 ? { from: start, to: start + 99 } : { from: start, to: start + 9 };
}

export interface PassageWords {
  stems: Set<string>;
  /** Lower case, possessives dropped, each also without its accents ("céleron" and "celeron"). */
  words: Set<string>;
  /** Initials of runs of capitalised words, lower case ("Scottish Parliament" -> sp, "Franklin D. Roosevelt" -> fdr). */
  initials: Set<string>;
  byPrefix: Map<string, string[]>;
  /** The words that may stand for a question's word (general-vocabulary words, not stop words), per vocabulary. */
  vectorWords?: { lexicon: Lexicon; words: string[] };
}

export function vectorWords(p: PassageWords, lexicon: Lexicon): string[] {
  if (p.vectorWords?.lexicon !== lexicon)
    p.vectorWords = { lexicon, words: [...p.words].filter((w) => lexicon.has(w) && /^\p{L}+$/u.test(w) && bm25Tokens(w).length) };
  return p.vectorWords.words;
}

/** Words of recent passages (the same chunks come back question after question), bounded. */
const PASSAGE_CACHE_MAX = 512;
export const passageWords: (text: string) => PassageWords = memoise(PASSAGE_CACHE_MAX, wordsOf);

/** Unions of recent windows (a sentence and its neighbours), bounded like the passages'. */
const unionCache = new LRUCache<string, PassageWords>({ max: PASSAGE_CACHE_MAX });

/**
 * The words of a passage made of parts (a sentence and its neighbours), from each part's cached words. Remembered
 * (the same windows come back question after question), and its vocabulary words are the union of its parts'.
 */
export function unionOf(parts: string[], lexicon: Lexicon): PassageWords {
  if (parts.length === 1) return passageWords(parts[0]!);
  const key = parts.join('\u0000');
  const cached = unionCache.get(key);
  if (cached) return cached;
  const each = parts.map(passageWords);
  const byPrefix = new Map<string, Set<string>>();
  for (const p of each)
    for (const [prefix, words] of p.byPrefix) {
      const set = byPrefix.get(prefix) ?? new Set<string>();
      for (const w of words) set.add(w);
      byPrefix.set(prefix, set);
    }
  const union: PassageWords = {
    stems: new Set(each.flatMap((p) => [...p.stems])),
    words: new Set(each.flatMap((p) => [...p.words])),
    initials: new Set(each.flatMap((p) => [...p.initials])),
    byPrefix: new Map([...byPrefix].map(([prefix, words]) => [prefix, [...words]])),
    vectorWords: { lexicon, words: [...new Set(each.flatMap((p) => vectorWords(p, lexicon)))] },
  };
  unionCache.set(key, union);
  return union;
}

function wordsOf(text: string): PassageWords {
  // A compound is also its parts: "60,000-word" holds 60,000, "UK-wide" holds UK.
  const words = new Set(
    (text.toLowerCase().match(WORD) ?? [])
      .flatMap((w) => (w.includes('-') ? [w, ...w.split('-')] : [w]))
      .flatMap((w) => [w.replace(/['’]s$/, ''), withoutAccents(w.replace(/['’]s$/, ''))]),
  );
  const byPrefix = new Map<string, string[]>();
  for (const w of words) if (w.length >= 5) byPrefix.set(w.slice(0, 5), [...(byPrefix.get(w.slice(0, 5)) ?? []), w]);
  const initials = new Set<string>();
  for (const m of text.matchAll(/\p{Lu}[\p{L}'’.-]*(?:[\s/]+\p{Lu}[\p{L}'’.-]*)+/gu))
    addInitials(
      m[0].split(/[\s/]+/).map((w) => w[0]!.toLowerCase()),
      initials,
    );
  return { stems: new Set(bm25Tokens(text)), words, byPrefix, initials };
}

/** The initials of every run of 2 to 5 of these words (their first letters, in order). */
function addInitials(letters: string[], into: Set<string>): void {
  for (let from = 0; from < letters.length; from++)
    for (let to = from + 2; to <= Math.min(letters.length, from + 5); to++) into.add(letters.slice(from, to).join(''));
}

/**
 * A file name's words are lower case, so its initials are those of every run of words ("1941_franklin_d_roosevelt_d"
 * -> fdr): "FDR" in a question is found in that document's name.
 */
export function withTitleInitials(p: PassageWords, title: string): PassageWords {
  if (p.initials.size) return p;
  addInitials(
    title
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => /^\p{L}/u.test(w))
      .map((w) => w[0]!),
    p.initials,
  );
  return p;
}

export function foundIn(
  t: Omit<SupportTerm, 'found' | 'similar'>,
  p: PassageWords,
  expanded: Record<string, string>,
  /** With it, a long word of the question is also found misspelt in the passage (a word the vocabulary lacks). */
  lexicon?: Lexicon,
): boolean {
  if (t.kind === 'number') {
    if (numberForms(t.text.toLowerCase()).some((f) => p.words.has(f.toLowerCase()))) return true;
    const years = yearsOf(t);
    return !!years && [...p.words].some((w) => /^\d{4}s?$/.test(w) && Number(w.slice(0, 4)) >= years.from && Number(w.slice(0, 4)) <= years.to);
  }
  const lower = withoutAccents(t.text.toLowerCase().replace(/['’]s$/, ''));
  // A compound of the question is there when each of its parts is ("Who-related", "Kingdom-wide" of "UK-wide").
  if (lower.includes('-') && !p.words.has(lower))
    return t.text.split('-').every((part) => !bm25Tokens(part).length || foundIn({ ...t, text: part }, p, expanded, lexicon));
  if (MONTH_ABBREVIATIONS[lower] && p.words.has(MONTH_ABBREVIATIONS[lower])) return true;
  // An acronym the passage spells out ("SP" for the Scottish Parliament).
  if (t.kind === 'name' && isAcronym(t.text) && t.text.length <= 5 && p.initials.has(lower)) return true;
  if (p.words.has(lower) || bm25Tokens(t.text).every((s) => p.stems.has(s))) return true;
  if (t.means && bm25Tokens(t.means).every((s) => p.stems.has(s))) return true;
  // An expansion's word is found when the passage uses the abbreviation ("United Kingdom" for "UK").
  if (Object.entries(expanded).some(([full, abbr]) => full.toLowerCase().split(/\s+/).includes(lower) && p.words.has(abbr.toLowerCase().replace(/\.$/, ''))))
    return true;
  if (t.text === lower && lexicon && !lexicon.has(lower) && clippedIn(lower, p, lexicon)) return true;
  if (lower.length < 5) return false;
  // Another form of the word ("martyrdom" and "martyred", "Canada" and "Canadian", "signer" and "signed").
  if ((p.byPrefix.get(lower.slice(0, 5)) ?? []).some((w) => sameWordStem(lower, w))) return true;
  const name = t.kind === 'name';
  // A word of the question (7 letters or more) is found where the passage misspells it: one slip, to a word the
  // vocabulary lacks ("protocol" in "AMQP protcol"; "quitter" is another word, not "quieter" misspelt).
  if (!name && (!lexicon || lower.length < 7)) return false;
  const slip = (w: string) => misspeltName(lower, w) && (name || !lexicon!.has(w));
  // A name typed in lower case (a word no general English vocabulary knows: a program's or a library's) is also found
  // with a short beginning added ("gcrypt" in "libgcrypt"); not a capitalised name, which such a beginning makes another
  // (Russia, Prussia). The looks go over the passage's words once.
  const typedLower = name && t.text === lower;
  const prefixed = (w: string) => typedLower && w.length - lower.length >= 2 && w.length - lower.length <= 3 && w.endsWith(lower);
  for (const w of p.words) if (prefixed(w) || slip(w)) return true;
  return false;
}

/**
 * A word typed in lower case that no general English vocabulary knows is found as the clipped form of a vocabulary word
 * the passage holds ("env" of "environment", "auth" of "authentication", "config" of "configuration"): three letters or
 * more, and at least three fewer than the word.
 */
function clippedIn(lower: string, p: PassageWords, lexicon: Lexicon): boolean {
  if (lower.length < 3) return false;
  for (const w of p.words) if (w.length - lower.length >= 3 && w.startsWith(lower) && lexicon.has(w)) return true;
  return false;
}
