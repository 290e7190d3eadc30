// The question-answering pipeline's shared text helpers, in one place: remembered stems, fuzzy matching of names and
// word forms, the verbs that frame a question, and the words and patterns of numbers and dates. No part-of-speech
// tagger here: the event loop's thread uses these too (the tagger is loaded in the worker only, reader-task.ts).
import { distance } from 'fastest-levenshtein';
import { LRUCache } from 'lru-cache';
import { bm25Tokens } from '../../search/bm25.js';

// ---- Caches ----

/**
 * A function of a string remembered for its `max` most recently used arguments: the same words, sentences and
 * documents come back question after question. The value is boxed, so that undefined is remembered too.
 */
export function memoise<V>(max: number, fn: (key: string) => V): (key: string) => V {
  const cache = new LRUCache<string, { value: V }>({ max });
  return (key) => {
    let hit = cache.get(key);
    if (!hit) {
      hit = { value: fn(key) };
      cache.set(key, hit);
    }
    return hit.value;
  };
}

// ---- Stems ----

/** The stem of one word as BM25 sees it (undefined for a stop word); the stemmer is the costly part. */
export const wordStem: (word: string) => string | undefined = memoise(20_000, (w) => bm25Tokens(w)[0]);

/** BM25's stems of a sentence (shared: not to be changed by the caller). */
export const sentenceStems: (sentence: string) => string[] = memoise(20_000, bm25Tokens);

// ---- Fuzzy matching of names and word forms ----

export const withoutAccents = (w: string) => w.normalize('NFD').replace(/\p{M}/gu, '');

/** A person's last name, lower case, without a possessive ("Lyndon B. Johnson" -> johnson, "Roosevelt's" -> roosevelt). */
export const lastName = (name: string) =>
  name
    .replace(/['’]s$/, '')
    .split(/\s+/)
    .at(-1)!
    .toLowerCase();

/**
 * Two lower-case names are the same as typed: equal, or from five letters with the same first letter and one slip
 * (a letter missing, added, changed, or two swapped: "lincon", "linclon" for Lincoln). Shorter names are too close to
 * other names (Bush, Rush).
 */
export function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.min(a.length, b.length) < 5 || a[0] !== b[0]) return false;
  if (distance(a, b) <= 1) return true;
  if (a.length !== b.length) return false;
  const differ = [...a].flatMap((c, i) => (c === b[i] ? [] : [i]));
  return differ.length === 2 && differ[1] === differ[0]! + 1 && a[differ[0]!] === b[differ[1]] && a[differ[1]] === b[differ[0]!];
}

/** Whether two names share their last name ("Johnson", "Lyndon Johnson" and "Lyndon B. Johnson"). */
export const sameLastName = (a: string, b: string) => sameName(lastName(a), lastName(b));

/**
 * A name of a question typed with one slip against a passage's word ("Melanchhon" for Melanchthon, "Milennium"), two
 * from nine letters: same first letter, from six letters (shorter names are too close to other names: Obama, Osama).
 * Looser than sameName for long names (two slips) and stricter for short ones (six letters): the support check reads
 * every word of a passage with it, where sameName compares a question's word with a catalogue's authors only.
 */
export function misspeltName(name: string, word: string): boolean {
  if (name.length < 6 || word[0] !== name[0]) return false;
  const max = name.length >= 9 ? 2 : 1;
  return Math.abs(word.length - name.length) <= max && distance(name, word) <= max;
}

/** Endings that make another form of a word (with the stem's last letter at most given back: sign-er, sign-ed). */
const ENDINGS = new Set([
  // No ending at all: "Norman" is a form of "Normans".
  '',
  ...(
    's es ed d ing er ers r or ors ion ions ation al ally ly ment ments ity ive ian ians an ans a e ic ism ist ists dom ' +
    'y ies ied ship ness ful ous ize ise ized ised ance ence ant ent ary ory ery ure ures n ese ien iens ish i ite ites'
  ).split(' '),
]);

/**
 * A word's other forms change a short ending (Luther, Lutheran; martyrdom, martyred; signer, signed; Canada,
 * Canadian): a question word matches a passage word that shares its first five letters or more, and all but at most
 * three of the longer one's, when what differs is an ending on both sides: "internet" is not "interest".
 */
export function sameWordStem(a: string, b: string): boolean {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  if (common < 5 || common < Math.max(a.length, b.length) - 3) return false;
  return [common, common - 1].some((k) => ENDINGS.has(a.slice(k)) && ENDINGS.has(b.slice(k)));
}

/** Every string one deletion, substitution, insertion or transposition of a letter away (a-z). */
export function oneEditAway(word: string): Set<string> {
  const out = new Set<string>();
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i <= word.length; i++) {
    const a = word.slice(0, i);
    const b = word.slice(i);
    if (b) out.add(a + b.slice(1));
    if (b.length > 1) out.add(a + b[1] + b[0] + b.slice(2));
    for (const c of letters) {
      if (b) out.add(a + c + b.slice(1));
      out.add(a + c + b);
    }
  }
  out.delete(word);
  return out;
}

// ---- Verbs that frame a question ----

/** Verbs of saying, thinking and proposing in their forms (a regular-expression alternation): what someone said about something is an open question. */
export const DISCOURSE =
  'say|said|says|saying|think|thought|thinks|propose|proposed|proposes|warn|warned|warns|argue|argued|argues|believe|believed|believes|' +
  'claim|claimed|claims|mean|meant|means|suggest|suggested|suggests|promise|promised|promises|urge|urged|urges|describe|described|describes|' +
  'explain|explained|explains|talk|talked|talks|speak|spoke|speaks|feel|felt|feels|write|wrote|writes|ask|asked|asks|recommend|recommended|' +
  'advocate|advocated|criticize|criticized|criticise|criticised|announce|announced|envision|envisioned|hope|hoped|fear|feared|insist|insisted|' +
  'emphasize|emphasized|emphasise|emphasised|stress|stressed|call for|called for|calls for|plan|planned|want|wanted|intend|intended|report|reported|reports';

/**
 * Verbs of saying (words): they frame a question ("What did Wilson say about the war?") rather than say what it is
 * about. The reader leaves them out of a question's words; the support check's frame words include them.
 */
export const SAYING_WORDS = 'say said says tell told describe described mention mentioned talk talked speak spoke discuss discussed';

/** Verbs a question about who said something in a document uses after "who" ("Who proposed ...?"), past tense. */
export const DELIVERED =
  'gave|delivered|wrote|said|says|spoke|talked|mentioned|proposed|asked|called|announced|promised|warned|urged|recommended|declared|addressed|praised|criticized|criticised|discussed|described|pledged|vowed|argued|noted|reported';

/** Verbs of giving a document, in their forms ("When did Monroe deliver his address?"). */
export const GIVING = 'give|gave|given|deliver|delivered|write|wrote|written|make|made|send|sent|present|presented|publish|published|issue|issued';

/** Verbs of saying or meaning after "What did X ...?" (base forms): the question asks for X's own words. */
export const SAYING_BASE =
  'say|tell|propose|promise|warn|urge|recommend|declare|announce|write|think|believe|want|mean|argue|describe|discuss|call|ask|talk|speak|mention|report|plan|pledge|suggest|predict|claim|praise|criticize|criticise';

/** Auxiliaries and copulas by their words (compromise tags "did" in "What did Johnson declare" as a plain verb). */
export const AUXILIARIES = 'do does did is are was were be been am has have had will would shall should can could may might must'.split(' ');

// ---- Numbers and dates ----

/** Numbers as words, zero to twenty (the index is the value). */
export const NUMBER_WORDS =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(' ');

/** Ordinals as words, first to thirty-first (the index is the value less one). */
export const ORDINAL_WORDS = (
  'first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth ' +
  'seventeenth eighteenth nineteenth twentieth twenty-first twenty-second twenty-third twenty-fourth twenty-fifth twenty-sixth ' +
  'twenty-seventh twenty-eighth twenty-ninth thirtieth thirty-first'
).split(' ');

export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Month abbreviations as questions write them ("Feb 2010", "Sept 1760"), lower case, with the month they stand for. */
export const MONTH_ABBREVIATIONS: Record<string, string> = {
  jan: 'january',
  feb: 'february',
  mar: 'march',
  apr: 'april',
  jun: 'june',
  jul: 'july',
  aug: 'august',
  sep: 'september',
  sept: 'september',
  oct: 'october',
  nov: 'november',
  dec: 'december',
};

/** A year as digits, 1000 to 2099 (a pattern's source, to build the patterns below from). */
const YEAR = '1\\d{3}|20\\d\\d';

/** A year or a decade of years somewhere in a text ("1862", "1960s"). */
export const YEAR_IN_TEXT = new RegExp(`\\b(${YEAR})s?\\b`);

/** A word that is a year or a decade ("1862", "1960s", "60s"). */
export const YEAR_WORD = new RegExp(`^(${YEAR})s?$|^\\d0s$`);

/** Every year of a text, for matchAll (the year is group 1). */
export const YEARS = new RegExp(`\\b(${YEAR})\\b`, 'g');

/**
 * Every year from 1500 of a text, for match: the years the question's entities list as dates (a narrower range than
 * YEARS': "1066" stays a number there).
 */
export const MODERN_YEARS = /\b(1[5-9]\d\d|20\d\d)\b/g;
