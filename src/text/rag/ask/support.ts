// Guardrail 2b, support: an answer is given only when a kept passage contains the question's key content. Every name
// and number of the question (and any word no general vocabulary knows) must occur in it (or in its file name), and
// half of its other terms, content words weighted by how rare they are in general English: by stem, as another form
// of the word (the same first letters, another short ending), or as a word whose vector is close (a name met only by
// the file name picks the document and is not counted). Names and numbers count in that share too (weight 1), so a
// question of several names and one unmatched verb is not refused for the verb; a name the collection holds nearly
// everywhere ("United States" in addresses to Congress) is counted but not required. Rare nouns are required like
// names, and so is one of the nouns of Y in "what did X say about Y" (the question's topic), and one of the question's
// common nouns (what is asked about its names: "the capital of France" needs "capital"). The noun that "what",
// "which" or "how many" asks for ("What profession...") is the kind of the answer: counted, never required. Numbers
// are found as passages write them (ordinals, centuries and decades as years, one number of a range); a common word
// with one letter wrong ("framd") weighs as that word, not as a name. The pipeline also applies the check to each
// candidate sentence with its neighbours, without the share: the key content must come together near the answer.
// A refusal for missing words only (no name, number or topic missing) is reconsidered by the support gate
// (support-gate.ts).
import { distance } from 'fastest-levenshtein';
import { bm25Tokens, titleWords } from '../../search/bm25.js';
import type { Lexicon } from './lexicon.js';
import type { QuestionNlp } from './question-nlp.js';
import { DISCOURSE } from './question-words.js';

export interface SupportSettings {
  /** Share of the terms' weight (names and numbers 1, content words their rarity) that a passage must cover. */
  minCoverage: number;
  /** Cosine similarity at which a passage word counts as a close equivalent of a question word. */
  minSimilarity: number;
  /**
   * Rarity from which a noun must be covered like a name (0.9: beyond the 7,000 most frequent English words,
   * such as "iPhone", "tariff", "isthmus"): a question about a rare thing the passage never mentions, even in other
   * words, is not answered from a passage that only shares its common words or its person.
   */
  rareWord: number;
}

/** Chosen on SQuAD's odd-numbered articles (scripts/eval-support.ts; docs/text.md). */
export const DEFAULT_SUPPORT: SupportSettings = { minCoverage: 0.5, minSimilarity: 0.6, rareWord: 0.9 };

export interface SupportTerm {
  text: string;
  kind: 'name' | 'number' | 'word';
  weight: number;
  /** A noun of the question (a thing asked about), as opposed to a verb or an adjective: only rare nouns are required. */
  noun?: boolean;
  /** A noun of the topic of "what did X say about Y" (Y): a passage must hold one of them (or a close word). */
  topic?: boolean;
  /**
   * The noun the question's "what", "which" or "how many" asks for ("What profession...", "Which successor...", "How
   * many kgs..."): the kind of the answer, which a passage names by giving one ("lawyer"), so it counts in the
   * coverage but is never required.
   */
  answerKind?: boolean;
  /** Numbers of one range or list ("2001-2006", "1646 through 1647", "the 1600s and 1700s"): one of them is enough. */
  group?: number;
  /** An ordinal before "century" ("16th century"): a year of that century counts as found. */
  century?: boolean;
  /** Found as such (same stem, or the same name or number). */
  found: boolean;
  /**
   * Found only in the passage's file name ("Obama" in 2010_barack_obama_d.txt): it picks the document, and is left out
   * of the coverage, so that the rest of the question ("about the iPhone") must be found in the text by itself.
   */
  inTitleOnly?: boolean;
  /** The closest passage word, for a word not found as such (when word vectors are available). */
  similar?: { word: string; similarity: number };
}

export interface SupportVerdict {
  passed: boolean;
  /** Names and numbers absent from the passages, then the content words not covered. */
  missing: string[];
  /** Covered share of the weight of the question's terms (names and numbers weigh 1; 1 without terms). */
  coverage: number;
  terms: SupportTerm[];
  /** Whether each passage, on its own, supports the question (the verdict is that of the best one). */
  supporting: boolean[];
  /** What the best passage lacks, by kind (the support gate's inputs, support-gate.ts). */
  lacks: SupportLacks;
}

export interface SupportLacks {
  /** Names and numbers of the question absent from the passage (required; a name found everywhere is not). */
  names: number;
  /** "What did X say about Y": none of Y's nouns (nor a close word) is there. */
  topic: boolean;
  /** None of the question's common nouns (what is asked about its names) is there. */
  nothingAsked: boolean;
  /** Rare nouns (beyond the most frequent English words) not covered. */
  rareNouns: number;
  /** Weight of the content words not covered (each weighs its rarity). */
  missingWeight: number;
}

/** Vectors of single words (unit length; a word the model does not know may get a zero vector). */
export type WordVectors = (words: string[]) => Promise<number[][]>;

/** Words that frame a question rather than say what it is about. */
const FRAME = new Set(
  bm25Tokens(
    'say said says tell told describe described explain explained mention mentioned name named call called mean meant ' +
      'happen happened think thought talk talked speak spoke address addressed discuss discussed according kind type example ' +
      // "the best way to lose weight": the way is how the question asks, weight what it asks about.
      'way ways ' +
      // "how many", "how much": the question word, not a thing asked about; "what does the acronym X stand for".
      'many much acronym abbreviation',
  ),
);

const WH_HEAD_STOP = new Set(
  'do does did is are was were be been has have had will would shall should can could may might must of in on at for to from by with'.split(' '),
);

/**
 * The word position of the noun a "what", "which" or "how many/much" asks for: the first noun within the next four
 * words, before any auxiliary or preposition, skipping frame words ("what type of..." asks for the noun after "of").
 */
function answerKindAt(tokens: string[], nouns: Set<string>): number {
  for (const [i, token] of tokens.entries()) {
    const w = token.toLowerCase();
    const asks = w === 'what' || w === 'which' || ((w === 'many' || w === 'much') && tokens[i - 1]?.toLowerCase() === 'how');
    if (!asks) continue;
    for (let j = i + 1; j < Math.min(tokens.length, i + 5); j++) {
      const next = tokens[j]!.toLowerCase();
      if (bm25Tokens(next).some((st) => FRAME.has(st)) && tokens[j + 1]?.toLowerCase() === 'of') {
        j++;
        continue;
      }
      if (WH_HEAD_STOP.has(next)) break;
      if (nouns.has(next)) return j;
    }
  }
  return -1;
}

/** Ordinals as words, first to thirty-first, and numbers as words up to twenty: "the 10th series" is the "tenth series". */
const ORDINAL_WORDS = (
  'first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth ' +
  'seventeenth eighteenth nineteenth twentieth twenty-first twenty-second twenty-third twenty-fourth twenty-fifth twenty-sixth ' +
  'twenty-seventh twenty-eighth twenty-ninth thirtieth thirty-first'
).split(' ');
const NUMBER_WORDS =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(' ');

/** Word positions of numbers that form one range or list with the number before them ("2008-2009", "1755, 56, 57", "1646 through 1647"). */
function numberGroups(question: string): number[][] {
  const groups: number[][] = [];
  const words = [...question.matchAll(WORD)];
  let current: number[] = [];
  words.forEach((m, i) => {
    if (!/^\d/.test(m[0])) return;
    const prev = current[current.length - 1];
    const between = prev === undefined ? '' : question.slice(words[prev]!.index + words[prev]![0].length, m.index);
    if (prev !== undefined && /^\s*(?:[-–,]|to|through|and|or|until|till)\s*$/i.test(between)) current.push(i);
    else {
      if (current.length > 1) groups.push(current);
      current = [i];
    }
  });
  if (current.length > 1) groups.push(current);
  return groups;
}

/** Rarity in general English, 0.2 to 1: log of the frequency rank against a 20,000-word scale; unknown words 1. */
export function rarity(word: string, lexicon: Lexicon): number {
  const rank = lexicon.rank(word.toLowerCase());
  if (rank === undefined) return 1;
  return Math.max(0.2, Math.min(1, Math.log(rank + 2) / Math.log(20_000)));
}

/** A word, or a number with its thousands separators ("60,000" is one number, not 60 and 000). */
const WORD = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+|(?<=\d),\d{3}(?!\d))*/gu;

/**
 * A capitalised word that is not one of the entity extractor's names is a name only when it is rare in general English
 * (beyond about the 10,000 most frequent words: "Huguenot", "Fritschel") or an acronym ("GSCE", "NASA"); a frequent
 * word capitalised as part of a title or a phrase ("the Fourth Doctor", "Revolutionary War", "British children") is a
 * content word like any other, weighted by its rarity.
 */
const NAME_RANK = 10_000;
const isAcronym = (token: string) => /^\p{Lu}{2,}$/u.test(token);

/** The question's names, numbers and content words. */
export function questionTerms(question: string, tagged: Pick<QuestionNlp, 'entities' | 'nouns'>, lexicon: Lexicon): Omit<SupportTerm, 'found' | 'similar'>[] {
  // The extractor's names, by their capitalised words ("Luther reject" is read as a name; "reject" is not one).
  const named = new Set(
    [tagged.entities.people, tagged.entities.places, tagged.entities.organizations]
      .flat()
      .flatMap((e) => e.match(WORD) ?? [])
      .filter((w) => /^\p{Lu}/u.test(w))
      .map((w) => w.toLowerCase().replace(/['’]s$/, '')),
  );
  const nouns = new Set(tagged.nouns);
  // "What did Kennedy say about the moon?": the words after "say about" are what the question is about.
  const about = new RegExp(`\\b(?:${DISCOURSE})\\s+(?:about|on|regarding|concerning)\\s+(.+)$`, 'i').exec(question)?.[1];
  const topicWords = new Set((about?.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/['’]s$/, '')).filter((w) => nouns.has(w)));
  const terms: Omit<SupportTerm, 'found' | 'similar'>[] = [];
  const seen = new Set<string>();
  // A possessive is its noun ("Aiken's" -> Aiken, "Apollo 1's" -> 1; "the 70's" is a decade), and a range of numbers is
  // its numbers ("1973-1974").
  const words = [...question.matchAll(WORD)].map((m) => m[0]);
  const groupOf = new Map<number, number>();
  numberGroups(question).forEach((g, k) => g.forEach((i) => groupOf.set(i, k)));
  const tokens = words.flatMap((w, i) =>
    (/^\d+[-–]\d+$/.test(w) ? w.split(/[-–]/) : [/^(?:\d0|\d{3}0)['’]s$/.test(w) ? w : w.replace(/(?<=[\p{L}\d])['’]s$/u, '')]).map((text, part, all) => ({
      text,
      at: i,
      // Both ends of "1973-1974" are one range, as are numbers joined by words.
      group: all.length > 1 ? 1000 + i : groupOf.get(i),
    })),
  );
  // "stand for" frames an acronym's question ("What does LEM stand for?").
  const standFor = /\bstands?\s+for\b/i.test(question);
  const kindAt = answerKindAt(words, nouns);
  for (const [i, { text: token, at, group }] of tokens.entries()) {
    const lower = token.toLowerCase();
    const stems = bm25Tokens(token);
    if (seen.has(lower)) continue;
    seen.add(lower);
    const rank = lexicon.rank(lower);
    // An acronym of general English (TV, DVDs, CEO) is a word like any other; other acronyms are names (NASA, GSCE).
    const plainAcronym = isAcronym(token.replace(/s$/, '')) && (lexicon.rank(lower.replace(/s$/, '')) ?? NAME_RANK) < NAME_RANK;
    if (/^\d/.test(token))
      terms.push({
        text: token,
        kind: 'number',
        weight: 1,
        ...(group !== undefined ? { group } : {}),
        ...(/^\d+(?:st|nd|rd|th)$/i.test(token) && /^centur/i.test(words[at + 1] ?? '') ? { century: true } : {}),
      });
    else if (!stems.length || (standFor && /^stands?$/.test(lower))) continue;
    else if (plainAcronym) terms.push({ text: token, kind: 'word', weight: rarity(lower.replace(/s$/, ''), lexicon), noun: true });
    else if (named.has(lower) || (i > 0 && /^\p{Lu}/u.test(token) && (rank === undefined || rank >= NAME_RANK || isAcronym(token))))
      terms.push({ text: token, kind: 'name', weight: 1 });
    // A word no general vocabulary knows (a product, a jargon term) is as specific as a name, unless it is a common
    // word with one letter wrong ("framd", "sould"): then it weighs as that word.
    else if (!lexicon.has(lower) && /^\p{L}+$/u.test(lower) && lower.length >= 4) {
      const meant = misspeltWord(lower, lexicon);
      terms.push(meant ? { text: token, kind: 'word', weight: rarity(meant, lexicon) } : { text: token, kind: 'name', weight: 1 });
    } else if (!stems.every((s) => FRAME.has(s)))
      terms.push({
        text: token,
        kind: 'word',
        weight: rarity(token, lexicon),
        noun: nouns.has(lower),
        ...(topicWords.has(lower) ? { topic: true } : {}),
        ...(at === kindAt ? { answerKind: true } : {}),
      });
  }
  return terms;
}

/** Most frequent words that a word unknown to the lexicon may be a misspelling of (one edit away). */
const MISSPELT_RANK = 20_000;

/** The frequent general word one edit away from an unknown lower-case word ("framd" -> frame), if there is one. */
function misspeltWord(word: string, lexicon: Lexicon): string | undefined {
  let best: { word: string; rank: number } | undefined;
  for (const candidate of neighbours(word)) {
    const rank = lexicon.rank(candidate);
    if (rank !== undefined && rank < MISSPELT_RANK && (!best || rank < best.rank)) best = { word: candidate, rank };
  }
  return best?.word;
}

/** Every string one deletion, substitution, insertion or transposition of a letter away (a-z). */
function neighbours(word: string): Set<string> {
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

/** Keeps a bounded number of word vectors across questions (the words of a collection recur). */
export class WordVectorCache {
  // Float32 rows: a JavaScript array of doubles would take four times the memory of the vector itself.
  private cache = new Map<string, Float32Array>();
  constructor(
    private readonly vectors: WordVectors,
    private readonly limit = 20_000,
  ) {}

  async get(words: string[]): Promise<Map<string, Float32Array>> {
    const missing = [...new Set(words.filter((w) => !this.cache.has(w)))];
    for (let i = 0; i < missing.length; i += 256) {
      const part = missing.slice(i, i + 256);
      const vs = await this.vectors(part);
      part.forEach((w, j) => {
        if (this.cache.size >= this.limit) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(w, Float32Array.from(vs[j]!));
      });
    }
    return new Map(words.map((w) => [w, this.cache.get(w)!]));
  }
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
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
function sameWordStem(a: string, b: string): boolean {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  if (common < 5 || common < Math.max(a.length, b.length) - 3) return false;
  return [common, common - 1].some((k) => ENDINGS.has(a.slice(k)) && ENDINGS.has(b.slice(k)));
}

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

interface PassageWords {
  stems: Set<string>;
  /** Lower case, possessives dropped, each also without its accents ("céleron" and "celeron"). */
  words: Set<string>;
  /** Initials of runs of capitalised words, lower case ("Scottish Parliament" -> sp, "Franklin D. Roosevelt" -> fdr). */
  initials: Set<string>;
  byPrefix: Map<string, string[]>;
  /** The words that may stand for a question's word (general-vocabulary words, not stop words), per vocabulary. */
  vectorWords?: { lexicon: Lexicon; words: string[] };
}

function vectorWords(p: PassageWords, lexicon: Lexicon): string[] {
  if (p.vectorWords?.lexicon !== lexicon)
    p.vectorWords = { lexicon, words: [...p.words].filter((w) => lexicon.has(w) && /^\p{L}+$/u.test(w) && bm25Tokens(w).length) };
  return p.vectorWords.words;
}

/** Words of recent passages (the same chunks come back question after question), bounded. */
const passageCache = new Map<string, PassageWords>();
const PASSAGE_CACHE_MAX = 512;

function passageWords(text: string): PassageWords {
  const cached = passageCache.get(text);
  if (cached) return cached;
  const words = wordsOf(text);
  if (passageCache.size >= PASSAGE_CACHE_MAX) passageCache.delete(passageCache.keys().next().value!);
  passageCache.set(text, words);
  return words;
}

const withoutAccents = (w: string) => w.normalize('NFD').replace(/\p{M}/gu, '');

/** Unions of recent windows (a sentence and its neighbours), bounded like the passages'. */
const unionCache = new Map<string, PassageWords>();

/**
 * The words of a passage made of parts (a sentence and its neighbours), from each part's cached words. Remembered
 * (the same windows come back question after question), and its vocabulary words are the union of its parts'.
 */
function unionOf(parts: string[], lexicon: Lexicon): PassageWords {
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
  if (unionCache.size >= PASSAGE_CACHE_MAX) unionCache.delete(unionCache.keys().next().value!);
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
function withTitleInitials(p: PassageWords, title: string): PassageWords {
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

/** Month abbreviations as questions write them ("Feb 2010", "Sept 1760"). */
const MONTHS: Record<string, string> = {
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

function foundIn(t: Omit<SupportTerm, 'found' | 'similar'>, p: PassageWords, expanded: Record<string, string>): boolean {
  if (t.kind === 'number') {
    if (numberForms(t.text.toLowerCase()).some((f) => p.words.has(f.toLowerCase()))) return true;
    const years = yearsOf(t);
    return !!years && [...p.words].some((w) => /^\d{4}s?$/.test(w) && Number(w.slice(0, 4)) >= years.from && Number(w.slice(0, 4)) <= years.to);
  }
  const lower = withoutAccents(t.text.toLowerCase().replace(/['’]s$/, ''));
  // A compound of the question is there when each of its parts is ("Who-related", "Kingdom-wide" of "UK-wide").
  if (lower.includes('-') && !p.words.has(lower))
    return t.text.split('-').every((part) => !bm25Tokens(part).length || foundIn({ ...t, text: part }, p, expanded));
  if (MONTHS[lower] && p.words.has(MONTHS[lower])) return true;
  // An acronym the passage spells out ("SP" for the Scottish Parliament).
  if (t.kind === 'name' && isAcronym(t.text) && t.text.length <= 5 && p.initials.has(lower)) return true;
  if (p.words.has(lower) || bm25Tokens(t.text).every((s) => p.stems.has(s))) return true;
  // An expansion's word is found when the passage uses the abbreviation ("United Kingdom" for "UK").
  if (Object.entries(expanded).some(([full, abbr]) => full.toLowerCase().split(/\s+/).includes(lower) && p.words.has(abbr.toLowerCase().replace(/\.$/, ''))))
    return true;
  if (lower.length < 5) return false;
  // Another form of the word ("martyrdom" and "martyred", "Canada" and "Canadian", "signer" and "signed").
  if ((p.byPrefix.get(lower.slice(0, 5)) ?? []).some((w) => sameWordStem(lower, w))) return true;
  return t.kind === 'name' && [...p.words].some((w) => misspeltName(lower, w));
}

/**
 * A name typed with one slip ("Melanchhon" for Melanchthon, "Milennium"), two from nine letters: same first letter,
 * from six letters (shorter names are too close to other names: Obama, Osama).
 */
function misspeltName(name: string, word: string): boolean {
  if (name.length < 6 || word[0] !== name[0]) return false;
  const max = name.length >= 9 ? 2 : 1;
  return Math.abs(word.length - name.length) <= max && distance(name, word) <= max;
}

/**
 * The verdict of the best single passage (a file name counts as part of its passages): the key content must come
 * together somewhere, not be scattered over several passages ("capital" in one, "France" in another).
 */
export async function checkSupport(
  question: string,
  tagged: Pick<QuestionNlp, 'entities' | 'nouns'>,
  /** With `parts`, a passage's words are those of its parts (each read once and remembered: windows share sentences). */
  passages: { text: string; source: string; parts?: string[] }[],
  lexicon: Lexicon,
  settings: SupportSettings = DEFAULT_SUPPORT,
  vectors?: WordVectorCache,
  /** Abbreviations the rewriting expanded (expansion -> abbreviation): the passages may use either. */
  expanded: Record<string, string> = {},
  /**
   * Whether the collection holds a name nearly everywhere ("United States" in addresses to Congress): such a name
   * picks out no passage, so it counts in the coverage but is not required.
   */
  everywhere: (name: string) => boolean = () => false,
): Promise<SupportVerdict> {
  const asked = questionTerms(question, tagged, lexicon);
  if (!passages.length)
    return {
      passed: false,
      missing: asked.map((t) => t.text),
      coverage: 0,
      terms: asked.map((t) => ({ ...t, found: false })),
      supporting: [],
      lacks: { names: asked.filter((t) => t.kind !== 'word').length, topic: false, nothingAsked: false, rareNouns: 0, missingWeight: 0 },
    };
  const each = passages.map((p) => (p.parts ? unionOf(p.parts, lexicon) : passageWords(p.text)));
  const titles = passages.map((p) => {
    const title = titleWords(p.source);
    return withTitleInitials(passageWords(title), title);
  });
  const found = each.map((p, i) =>
    asked.map((t): SupportTerm => {
      if (foundIn(t, p, expanded)) return { ...t, found: true };
      return foundIn(t, titles[i]!, expanded) ? { ...t, found: true, inTitleOnly: true } : { ...t, found: false };
    }),
  );
  // Close equivalents only for content words (a name's neighbours are other names: France is close to Germany).
  const openWords = [...new Set(found.flatMap((terms) => terms.filter((t) => t.kind === 'word' && !t.found).map((t) => t.text.toLowerCase())))].filter((w) =>
    lexicon.has(w),
  );
  if (vectors && openWords.length) {
    const candidates = [...new Set(each.flatMap((p) => vectorWords(p, lexicon)))];
    const table = await vectors.get([...openWords, ...candidates]);
    // Each open word's similarity to each candidate word, once: windows share most of their words.
    const similarities = new Map(
      openWords.map((o) => {
        const q = table.get(o)!;
        return [o, new Map(candidates.flatMap((w) => (table.get(w) ? [[w, dot(q, table.get(w)!)] as const] : [])))];
      }),
    );
    each.forEach((p, i) => {
      for (const t of found[i]!) {
        if (t.kind !== 'word' || t.found || !lexicon.has(t.text.toLowerCase())) continue;
        const sims = similarities.get(t.text.toLowerCase())!;
        let best = { word: '', similarity: -1 };
        for (const w of vectorWords(p, lexicon)) {
          const s = sims.get(w);
          if (s === undefined) continue;
          if (s > best.similarity) best = { word: w, similarity: Math.round(s * 1e4) / 1e4 };
        }
        if (best.word) t.similar = best;
      }
    });
  }
  const covered = (t: SupportTerm) => t.found || (t.similar?.similarity ?? -1) >= settings.minSimilarity;
  /**
   * Required terms a passage lacks: names and numbers, rare nouns, and the topic of "what did X say about Y": a
   * passage that holds none of Y's nouns ("What did Kennedy say about the moon?") is about something else, however
   * well it matches X. With them, what the passage lacks by kind (`lacks`, for the support gate).
   */
  const required = (terms: SupportTerm[]) => {
    const topic = terms.filter((t) => t.topic);
    const offTopic = topic.length > 0 && !topic.some(covered);
    // A number of a range or list is missing only when none of its range is there.
    const groupFound = (g: number) => terms.some((t) => t.group === g && t.found);
    // What is asked about the names: of the question's common nouns (not the kind of answer it asks for), a passage
    // must hold at least one ("the capital of France": a passage on France that never says "capital" or a close word).
    const things = terms.filter((t) => t.kind === 'word' && t.noun === true && !t.answerKind);
    const nothingAsked = things.length > 0 && !things.some(covered) ? things : [];
    const isName = (t: SupportTerm) =>
      t.kind !== 'word' && !t.found && !(t.kind === 'name' && everywhere(t.text)) && !(t.group !== undefined && groupFound(t.group));
    // A common noun of the question, not the kind of answer it asks for, that no passage holds or has a close word for.
    const missingNoun = (t: SupportTerm) => t.kind === 'word' && t.noun === true && !t.answerKind && !covered(t);
    const isNoun = (t: SupportTerm) => missingNoun(t) && ((offTopic && t.topic) || t.weight >= settings.rareWord) && !nothingAsked.includes(t);
    const lacks: SupportLacks = {
      names: terms.filter(isName).length,
      topic: offTopic,
      nothingAsked: nothingAsked.length > 0,
      rareNouns: terms.filter((t) => missingNoun(t) && t.weight >= settings.rareWord).length,
      missingWeight: Math.round(terms.filter((t) => t.kind === 'word' && !t.inTitleOnly && !covered(t)).reduce((s, t) => s + t.weight, 0) * 1e4) / 1e4,
    };
    return { terms: [...nothingAsked, ...terms.filter((t) => isName(t) || isNoun(t))], lacks };
  };
  // How many required terms each passage lacks (the best passage lacks the fewest).
  const lacking: number[] = [];
  const verdicts = found.map((terms): Omit<SupportVerdict, 'supporting'> => {
    const counted = terms.filter((t) => !t.inTitleOnly);
    const total = counted.reduce((s, t) => s + t.weight, 0);
    const coverage = total ? counted.filter(covered).reduce((s, t) => s + t.weight, 0) / total : 1;
    const needed = required(terms);
    const missingNames = needed.terms.map((t) => t.text);
    lacking.push(missingNames.length);
    return {
      passed: missingNames.length === 0 && coverage >= settings.minCoverage,
      missing: [...missingNames, ...terms.filter((t) => t.kind === 'word' && !covered(t) && !missingNames.includes(t.text)).map((t) => t.text)],
      coverage: Math.round(coverage * 1e4) / 1e4,
      terms,
      lacks: needed.lacks,
    };
  });
  // The best passage lacks the fewest names and numbers (the question's most specific content), then the fewest
  // required terms, then covers the most: a passage that names DFDS but not "operations" is closer to the question
  // than one that has "operations" and never names DFDS.
  const rank = (i: number) => [verdicts[i]!.lacks.names, lacking[i]!, -verdicts[i]!.coverage];
  const better = (i: number, b: number) => {
    const [x, y] = [rank(i), rank(b)];
    const k = x.findIndex((v, j) => v !== y[j]);
    return k >= 0 && x[k]! < y[k]!;
  };
  const best = verdicts.reduce((b, _, i) => (better(i, b) ? i : b), 0);
  return { ...verdicts[best]!, supporting: verdicts.map((v) => v.passed) };
}
