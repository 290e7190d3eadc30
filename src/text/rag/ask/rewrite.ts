// Query rewriting: abbreviations expanded from a dictionary, typos (words no vocabulary knows) fixed against the indexed
// vocabulary. The question's entities come from the tagger (question-nlp.ts).
import { distance } from 'fastest-levenshtein';
import type { Lexicon } from './lexicon.js';

export interface Change {
  from: string;
  to: string;
  kind: 'abbreviation' | 'typo' | 'llm';
}

export interface Entities {
  people: string[];
  places: string[];
  organizations: string[];
  dates: string[];
  numbers: string[];
}

/** Word frequencies of the indexed text (lower case, letters only): what "a word the corpus knows" means. */
export function vocabulary(texts: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of texts) for (const w of t.toLowerCase().match(/\p{L}+/gu) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/**
 * A known word, or an inflection of one of the 40,000 most frequent ("devolutions", "vetoed"): the vocabulary lists
 * mostly base forms, and its rarer half is mostly surnames, which do not inflect ("shipps" is not "Shipp" plural).
 */
const knownForm = (w: string, known: (w: string) => boolean, rank: (w: string) => number | undefined) =>
  known(w) ||
  [/s$/, /es$/, /ed$/, /d$/, /ing$/, /ly$/].some((suffix) => {
    const r = suffix.test(w) ? rank(w.replace(suffix, '')) : undefined;
    return r !== undefined && r < 40_000;
  });

export interface TypoOptions {
  /** A general vocabulary (lower case): its words, and inflections of its frequent words, are never changed. */
  lexicon?: Lexicon;
  /** Proper nouns of the question (from entity extraction): never changed either. */
  properNouns?: Iterable<string>;
  /** Corpus words rarer than this are not offered as corrections. */
  minFrequency?: number;
}

/**
 * Typo fixing is for words nobody knows: a word the corpus or the general vocabulary knows stays, and so does a proper
 * noun of the question (one the entity extractor found, or a capitalised word after the first). Any other word of 4+
 * letters becomes the most frequent corpus word within edit distance 1 (2 for 8+ letters), if there is one.
 */
export function fixTypos(question: string, vocab: Map<string, number>, opts: TypoOptions = {}): { text: string; changes: Change[] } {
  const { lexicon, minFrequency = 2 } = opts;
  const known = (w: string) => lexicon?.has(w) ?? false;
  const rank = (w: string) => lexicon?.rank(w);
  const proper = new Set([...(opts.properNouns ?? [])].flatMap((n) => n.toLowerCase().match(/\p{L}+/gu) ?? []));
  const changes: Change[] = [];
  let first = true;
  const text = question.replace(/\p{L}+/gu, (word) => {
    const w = word.toLowerCase();
    const capitalisedLater = !first && word[0] !== w[0];
    first = false;
    if (w.length < 4 || vocab.has(w) || knownForm(w, known, rank) || proper.has(w) || capitalisedLater) return word;
    const maxDistance = w.length >= 8 ? 2 : 1;
    let best: [string, number] | null = null;
    for (const [candidate, freq] of vocab) {
      if (freq < minFrequency || Math.abs(candidate.length - w.length) > maxDistance) continue;
      if (distance(w, candidate) <= maxDistance && (!best || freq > best[1])) best = [candidate, freq];
    }
    if (!best) return word;
    const fixed = word[0] === word[0]!.toUpperCase() ? best[0][0]!.toUpperCase() + best[0].slice(1) : best[0];
    changes.push({ from: word, to: fixed, kind: 'typo' });
    return fixed;
  });
  return { text, changes };
}

export function expandAbbreviations(question: string, dictionary: Record<string, string>): { text: string; changes: Change[] } {
  const changes: Change[] = [];
  let text = question;
  for (const [abbr, full] of Object.entries(dictionary)) {
    const escaped = abbr.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = new RegExp(`(?<![\\p{L}.])${escaped}(?![\\p{L}])`, 'gu');
    if (re.test(text)) {
      text = text.replace(re, full);
      changes.push({ from: abbr, to: full, kind: 'abbreviation' });
    }
  }
  return { text, changes };
}

export const DEFAULT_ABBREVIATIONS: Record<string, string> = {
  'U.S.': 'United States',
  US: 'United States',
  USA: 'United States of America',
  'U.S.A.': 'United States of America',
  UK: 'United Kingdom',
  UN: 'United Nations',
  WWI: 'World War I',
  WWII: 'World War II',
  GDP: 'gross domestic product',
  govt: 'government',
  dept: 'department',
  intl: 'international',
  econ: 'economy',
  NATO: 'North Atlantic Treaty Organization',
};
