// The support check's reading of a question (support.ts): its names, numbers and content words, each with its weight
// (names and numbers 1, content words their rarity in general English) and its role (a noun asked about, the topic of
// "what did X say about Y", the kind of answer "what X" asks for, one number of a range).
import { bm25Tokens } from '../../search/bm25.js';
import type { Lexicon } from './lexicon.js';
import { AUXILIARIES, DISCOURSE, SAYING_WORDS, oneEditAway } from './lexical.js';
import type { QuestionNlp } from './question-nlp.js';
import type { SupportTerm } from './support.js';

/** Words that frame a question rather than say what it is about: the verbs of saying, and words that ask. */
const FRAME = new Set(
  bm25Tokens(
    `${SAYING_WORDS} explain explained name named call called mean meant happen happened think thought address addressed according kind type example ` +
      // "the best way to lose weight": the way is how the question asks, weight what it asks about.
      'way ways ' +
      // "how many", "how much": the question word, not a thing asked about; "what does the acronym X stand for".
      'many much acronym abbreviation ' +
      // A negation ("if I don't pass one") says how, not what about: the passage that answers need not say it.
      'not',
  ),
);

/** Where the noun a "what" asks for is no longer looked for: an auxiliary (but "am") or a preposition. */
const WH_HEAD_STOP = new Set([...AUXILIARIES.filter((w) => w !== 'am'), ...'of in on at for to from by with'.split(' ')]);

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
export const WORD = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+|(?<=\d),\d{3}(?!\d))*/gu;

/**
 * A capitalised word that is not one of the entity extractor's names is a name only when it is rare in general English
 * (beyond about the 10,000 most frequent words: "Huguenot", "Fritschel") or an acronym ("GSCE", "NASA"); a frequent
 * word capitalised as part of a title or a phrase ("the Fourth Doctor", "Revolutionary War", "British children") is a
 * content word like any other, weighted by its rarity.
 */
const NAME_RANK = 10_000;
export const isAcronym = (token: string) => /^\p{Lu}{2,}$/u.test(token);

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
      terms.push(meant ? { text: token, kind: 'word', weight: rarity(meant, lexicon), means: meant } : { text: token, kind: 'name', weight: 1 });
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

/**
 * The frequent general word that an unknown lower-case word misspells, if there is one: one edit away ("framd" ->
 * frame), or the same letters with a letter doubled or undoubled ("reccomend" -> recommend, "occured" -> occurred),
 * the commonest slip of English spelling, which may take two edits.
 */
function misspeltWord(word: string, lexicon: Lexicon): string | undefined {
  let best: { word: string; rank: number } | undefined;
  for (const candidate of oneEditAway(word)) {
    const rank = lexicon.rank(candidate);
    if (rank !== undefined && rank < MISSPELT_RANK && (!best || rank < best.rank)) best = { word: candidate, rank };
  }
  return best?.word ?? (word.length >= 6 ? doublingsOf(lexicon).get(undoubled(word)) : undefined);
}

/** A word with every run of a repeated letter written once ("recommend" -> "recomend"). */
const undoubled = (word: string) => word.replace(/(\p{L})\1+/gu, '$1');

const doublings = new WeakMap<Lexicon, Map<string, string>>();

/** The frequent words by their undoubled form, the most frequent first to claim each (built once per lexicon). */
function doublingsOf(lexicon: Lexicon): Map<string, string> {
  let map = doublings.get(lexicon);
  if (!map) {
    map = new Map();
    for (const w of lexicon.frequent(MISSPELT_RANK)) if (!map.has(undoubled(w))) map.set(undoubled(w), w);
    doublings.set(lexicon, map);
  }
  return map;
}
