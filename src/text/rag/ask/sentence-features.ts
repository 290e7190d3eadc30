// The sentence ranker's features (reader-features.ts): how well each candidate sentence of the retrieved chunks fits
// the question, each computed under its name (the model's own list of names orders them, features.ts). Several are
// relative to the other candidates of the same question.
import { LRUCache } from 'lru-cache';
import { oneHot, prefixed } from './features.js';
import { MONTH_NAMES, NUMBER_WORDS, YEAR_IN_TEXT, sentenceStems, wordStem } from './lexical.js';
import { HEAD_KIND_NAMES, type QuestionInfo, QUESTION_TYPES } from './reader-question.js';
import { type WordTable, loadWordTable } from './word-vectors.js';

export interface SentenceCandidate {
  text: string;
  /** Rank of the chunk it comes from among the retrieved chunks (0 = best). */
  chunkRank: number;
  /** The chunk's BM25 score over the best BM25 score of the retrieved chunks (0 to 1; 1 when none has one). */
  chunkBm25: number;
  /** Index of the sentence within its chunk. */
  position: number;
  /**
   * Stems of its document's name ("1964_lyndon_b_johnson_d.txt": 1964, lyndon, johnson). A question word the name
   * holds is met by the whole document, so every sentence of it counts as holding that word: "What did Johnson say
   * about X" then looks for X in Johnson's speech, not for the one sentence that happens to mention "Mrs. Johnson".
   */
  titleStems?: ReadonlySet<string>;
  /** The heading of the section it stands in (sections.ts); null or absent when none is known. */
  section?: string | null;
}

export const SENTENCE_FEATURES = [
  'idf_overlap',
  'word_overlap',
  'bigram_overlap',
  'bm25',
  'bm25_relative',
  'idf_relative',
  'idf_rank',
  'chunk_bm25_relative',
  'position',
  'length',
  'proximity',
  'has_year',
  'has_number',
  'capitalised_new',
  'type_present',
  'neighbour_idf',
  'question_words',
  ...QUESTION_TYPES.map((t) => `question_${t}` as const),
  'open_question',
  'soft_overlap',
  'head_similarity',
  ...HEAD_KIND_NAMES.map((k) => `head_${k}` as const),
  'subject_question',
  // Rarity among the candidates themselves: a word in every retrieved sentence ("Luther" in a collection about Luther)
  // tells them apart less than one in a few.
  'local_idf_overlap',
  'local_idf_relative',
  'local_idf_rank',
  'type_near_match',
] as const;

export type SentenceFeature = (typeof SENTENCE_FEATURES)[number];
/** A candidate sentence's features by name. */
export type SentenceFeatures = Record<SentenceFeature, number>;

const YEAR = YEAR_IN_TEXT;
const MONTH = new RegExp(`\\b(${[...MONTH_NAMES, 'century', 'centuries'].join('|')})\\b`);
const NUMBER = new RegExp(
  `\\d|\\b(${[...NUMBER_WORDS.slice(1, 13), ...'twenty thirty forty fifty hundred hundreds thousand thousands million millions billion percent dozen half'.split(' ')].join('|')})\\b`,
  'i',
);

/** Capitalised words after the first word of the sentence whose stem the question does not contain. */
function capitalisedNew(sentence: string, q: QuestionInfo): number {
  let n = 0;
  const words = sentence.split(/\s+/);
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
    if (!/^\p{Lu}/u.test(w)) continue;
    const stem = wordStem(w);
    if (stem && !q.stems.has(stem)) n++;
  }
  return n;
}

/**
 * Whether a word of the expected answer type (a year or month for "when", a number for "how many", a capitalised word
 * the question does not contain for "who" / "where") stands within 5 words of a word of the question: the sentence
 * does not only mention the question's subject, it says something of the kind asked next to it. 0.5 for other
 * questions.
 */
function typeNearMatch(sentence: string, q: QuestionInfo): number {
  if (q.type === 'other') return 0.5;
  const words = sentence.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
  const stems = words.map((w) => (w ? wordStem(w.toLowerCase()) : undefined));
  const typed = words.map((w, i) => {
    if (!w) return false;
    if (q.type === 'date') return YEAR.test(w) || MONTH.test(w);
    if (q.type === 'number') return NUMBER.test(w);
    return i > 0 && /^\p{Lu}/u.test(w) && !(stems[i] && q.stems.has(stems[i]));
  });
  for (let i = 0; i < words.length; i++) {
    if (!typed[i]) continue;
    for (let j = Math.max(0, i - 5); j <= Math.min(words.length - 1, i + 5); j++) if (j !== i && stems[j] && q.stems.has(stems[j]!)) return 1;
  }
  return 0;
}

/** Smallest window of content words holding every matched question word, as (matched words / window length). */
function proximity(tokens: string[], q: QuestionInfo): number {
  const matched = new Set(tokens.filter((t) => q.stems.has(t)));
  if (!matched.size) return 0;
  let best = Infinity;
  const count = new Map<string, number>();
  let have = 0;
  let left = 0;
  for (let right = 0; right < tokens.length; right++) {
    const t = tokens[right]!;
    if (matched.has(t)) {
      count.set(t, (count.get(t) ?? 0) + 1);
      if (count.get(t) === 1) have++;
    }
    while (have === matched.size) {
      best = Math.min(best, right - left + 1);
      const l = tokens[left++]!;
      if (matched.has(l)) {
        count.set(l, count.get(l)! - 1);
        if (count.get(l) === 0) have--;
      }
    }
  }
  return matched.size / best;
}

/** Rows below this are the most frequent English words (the, of, was...): no evidence of a close equivalent. */
export const COMMON_ROWS = 150;

/** Word-vector rows of a sentence's content words, remembered like its stems. */
const sentenceRows = new LRUCache<string, Int32Array>({ max: 20_000 });
function rowsOf(sentence: string, table: WordTable): Int32Array {
  let r = sentenceRows.get(sentence);
  if (!r) {
    const words = sentence.toLowerCase().match(/[\p{L}][\p{L}'-]*/gu) ?? [];
    r = Int32Array.from(new Set(words.map((w) => table.row(w)).filter((x) => x >= COMMON_ROWS)));
    sentenceRows.set(sentence, r);
  }
  return r;
}

/** Remembers a sentence's word-vector rows ahead of its questions (read-ahead.ts). */
export const rememberRows = (sentence: string): void => void rowsOf(sentence, loadWordTable());

/** The best similarity of a row to any of `rows` (0 when none is positive). */
function bestSimilarity(row: number, rows: ArrayLike<number>, table: WordTable): number {
  if (row < 0) return 0;
  let best = 0;
  for (let i = 0; i < rows.length; i++) best = Math.max(best, table.similarity(row, rows[i]!));
  return best;
}

/**
 * The question's rarity-weighted words that the sentence lacks as such but has a close equivalent of ("network" for
 * "channel"): the sum of their weight times the best similarity, over the question's total weight.
 */
function softOverlap(q: QuestionInfo, tokens: Set<string>, rows: Int32Array, table: WordTable): number {
  let sum = 0;
  for (const w of q.words) if (!tokens.has(w.stem)) sum += w.weight * bestSimilarity(w.row, rows, table);
  return sum / q.totalWeight;
}

/** Rarity among the candidates: each one's share of the question's stems weighted by their local IDF, its share of the best, and its rank. */
function localOverlaps(q: QuestionInfo, candidates: SentenceCandidate[], tokens: string[][]) {
  // Document frequency of each question stem among the candidates (a file name's stems count for each of its sentences).
  const localDf = new Map<string, number>();
  tokens.forEach((toks, i) => {
    const set = new Set(toks);
    for (const st of q.stems) if (set.has(st) || candidates[i]!.titleStems?.has(st)) localDf.set(st, (localDf.get(st) ?? 0) + 1);
  });
  const localIdf = (st: string) => Math.log(1 + candidates.length / (1 + (localDf.get(st) ?? 0)));
  const localTotal = [...q.stems].reduce((a, st) => a + localIdf(st), 0) || 1;
  const local = tokens.map((toks, i) => {
    const set = new Set(toks);
    let sum = 0;
    for (const st of q.stems) if (set.has(st) || candidates[i]!.titleStems?.has(st)) sum += localIdf(st);
    return sum / localTotal;
  });
  const maxLocal = Math.max(1e-9, ...local);
  const localRank = new Array<number>(candidates.length);
  local
    .map((x, i) => [x, i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .forEach(([, i], r) => (localRank[i] = r));
  return { local, maxLocal, localRank };
}

/** A sentence's overlap with the question: rarity-weighted share of its stems, share of its words and bigrams, BM25. */
function overlaps(q: QuestionInfo, c: SentenceCandidate, toks: string[], avgLen: number) {
  const set = new Set(toks);
  const title = c.titleStems;
  let idf = 0;
  let words = 0;
  for (const s of q.stems)
    if (set.has(s) || title?.has(s)) {
      idf += q.weight.get(s)!;
      words++;
    }
  let bigrams = 0;
  for (let k = 1; k < toks.length; k++) if (q.bigrams.has(`${toks[k - 1]} ${toks[k]}`)) bigrams++;
  // BM25 (k1 = 1.2, b = 0.75) of the sentence for the question, with the collection's rarity as IDF.
  let bm25 = 0;
  for (const s of q.stems) {
    const tf = toks.filter((t) => t === s).length || (title?.has(s) ? 1 : 0);
    if (tf) bm25 += (q.weight.get(s)! * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * toks.length) / avgLen));
  }
  return { idf: idf / q.totalWeight, words: q.stems.size ? words / q.stems.size : 0, bigrams: q.bigrams.size ? bigrams / q.bigrams.size : 0, bm25 };
}

/** Whether the sentence holds a year or month, a number, and capitalised words the question lacks, and so something of the type asked. */
function typeSignals(text: string, q: QuestionInfo) {
  const year = YEAR.test(text) || MONTH.test(text);
  const number = NUMBER.test(text);
  const caps = capitalisedNew(text, q);
  const present = q.type === 'date' ? Number(year) : q.type === 'number' ? Number(number) : q.type === 'person' || q.type === 'place' ? Number(caps > 0) : 1;
  return { year, number, caps, present };
}

/** Features of every candidate sentence, by name (some are relative to the other candidates of the same question). */
export function sentenceFeatures(q: QuestionInfo, candidates: SentenceCandidate[], table: WordTable = loadWordTable()): SentenceFeatures[] {
  const tokens = candidates.map((c) => sentenceStems(c.text));
  const avgLen = tokens.reduce((s, t) => s + t.length, 0) / Math.max(1, tokens.length) || 1;
  const { local, maxLocal, localRank } = localOverlaps(q, candidates, tokens);
  const base = candidates.map((c, i) => overlaps(q, c, tokens[i]!, avgLen));
  const maxBm25 = Math.max(1e-9, ...base.map((b) => b.bm25));
  const maxIdf = Math.max(1e-9, ...base.map((b) => b.idf));
  const order = base.map((b, i) => [b.idf, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const rank = new Array<number>(candidates.length);
  order.forEach(([, i], r) => (rank[i] = r));
  // Neighbours: the sentences before and after in the same chunk (an answer often follows the sentence that names it).
  const byPlace = new Map(candidates.map((c, i) => [`${c.chunkRank}:${c.position}`, i]));
  return candidates.map((c, i) => {
    const b = base[i]!;
    const { year, number, caps, present } = typeSignals(c.text, q);
    const prev = byPlace.get(`${c.chunkRank}:${c.position - 1}`);
    const next = byPlace.get(`${c.chunkRank}:${c.position + 1}`);
    const neighbour = Math.max(prev === undefined ? 0 : base[prev]!.idf, next === undefined ? 0 : base[next]!.idf);
    return {
      idf_overlap: b.idf,
      word_overlap: b.words,
      bigram_overlap: b.bigrams,
      bm25: b.bm25,
      bm25_relative: b.bm25 / maxBm25,
      idf_relative: b.idf / maxIdf,
      idf_rank: Math.min(rank[i]!, 30),
      chunk_bm25_relative: c.chunkBm25,
      position: Math.min(c.position, 50),
      length: Math.min(tokens[i]!.length, 80),
      proximity: proximity(tokens[i]!, q),
      has_year: Number(year),
      has_number: Number(number),
      capitalised_new: Math.min(caps, 10),
      type_present: present,
      neighbour_idf: neighbour,
      question_words: q.stems.size,
      ...oneHot('question_', QUESTION_TYPES, q.type),
      open_question: Number(q.answerType === 'open'),
      soft_overlap: softOverlap(q, new Set(tokens[i]), rowsOf(c.text, table), table),
      head_similarity: q.head && new Set(tokens[i]).has(q.head) ? 1 : bestSimilarity(q.headRow, rowsOf(c.text, table), table),
      ...prefixed('head_', q.headKinds, HEAD_KIND_NAMES),
      subject_question: Number(q.subject),
      local_idf_overlap: local[i]!,
      local_idf_relative: local[i]! / maxLocal,
      local_idf_rank: Math.min(localRank[i]!, 30),
      type_near_match: typeNearMatch(c.text, q),
    };
  });
}
