// Features of the extractive reader (reader.ts): what a question asks for, and how well each candidate sentence of
// the retrieved chunks, and each word span of a sentence, fits it. Training (scripts/train-reader.ts) and serving
// share this code, so the models always see the features the service computes.
import { bm25Tokens } from '../../search/bm25.js';
import { type AnswerType, answerType } from './answer-type.js';
import { type QuestionType, type Span, type Term, TYPED, fit, isNominal, questionType, render, spansOf, termsOf } from './extractive.js';
import { type WordTable, loadWordTable } from './word-vectors.js';

/** Longest answer span considered, in words (95% of SQuAD answers are at most 10 words). */
export const MAX_SPAN = 10;

const QUESTION_TYPES: QuestionType[] = ['person', 'date', 'number', 'place', 'other'];
const WH_WORDS = ['what', 'which', 'who', 'when', 'where', 'how', 'why', 'other'] as const;
type WhWord = (typeof WH_WORDS)[number];

/** The question's first wh-word (whom and whose count as who). */
export function whWord(question: string): WhWord {
  const m = /\b(what|which|who|whom|whose|when|where|how|why)\b/i.exec(question);
  if (!m) return 'other';
  const w = m[1]!.toLowerCase();
  return (w.startsWith('who') ? 'who' : w) as WhWord;
}

/** A question word with its vector row (for close equivalents) and its rarity. */
interface QuestionWord {
  stem: string;
  row: number;
  weight: number;
}

export interface QuestionInfo {
  text: string;
  /** Distinct content stems of the question (BM25's tokens). */
  stems: Set<string>;
  /** Rarity (smoothed IDF) of each question stem in the collection. */
  weight: Map<string, number>;
  totalWeight: number;
  bigrams: Set<string>;
  type: QuestionType;
  wh: WhWord;
  answerType: AnswerType;
  /** The noun the question asks about ("which NFL team", "how many touchdowns", "what was ABC's share"), stemmed. */
  head: string | null;
  /** The head noun's word-vector row (-1 without). */
  headRow: number;
  /** Similarity of the head noun to each kind of answer (HEAD_KINDS; all 0 without a head). */
  headKinds: number[];
  /** The question's main verbs, stemmed. */
  verbs: Set<string>;
  /** Word-vector rows of the main verbs. */
  verbRows: number[];
  /** The content words with their vector rows (close equivalents count in the soft overlap). */
  words: QuestionWord[];
  /** The wh-phrase is the verb's subject ("Which team won...?", "Who was named...?"): the answer comes before the verb. */
  subject: boolean;
  /**
   * The content words just before the wh-phrase and just after it, nearest first ("the directors reported to who?":
   * reported, directors): where the answer sits in a sentence that says the same, relative to those words.
   */
  leftContext: QuestionWord[];
  rightContext: QuestionWord[];
  /** The preposition right before the wh-phrase ("in what year", "from which direction"), lower case, or null. */
  whPreposition: string | null;
  /**
   * A preposition that ends the question ("What did Johnson declare war on?"), with the stem of the word before it
   * (war): the answer follows "war on" in a sentence that says it.
   */
  finalPreposition: { word: string; before: string } | null;
}

/** Context words on each side of the wh-phrase that the alignment features look for. */
const CONTEXT_WORDS = 3;

/** Heads that name no kind of thing: "what is the name of the ship" asks about a ship. */
const GENERIC_HEADS = new Set([
  'name',
  'names',
  'type',
  'types',
  'kind',
  'kinds',
  'sort',
  'form',
  'term',
  'title',
  'one',
  'ones',
  'thing',
  'things',
  'part',
  'example',
  'word',
]);

/**
 * Kinds of answer a head noun can ask for, each given by a few typical nouns; a question's head is compared with
 * each kind by word vectors ("network" is close to the organisations, "share" to the quantities).
 */
export const HEAD_KINDS: Record<string, string[]> = {
  person: ['person', 'man', 'woman', 'leader', 'player', 'minister', 'author'],
  organisation: ['organization', 'company', 'team', 'group', 'network', 'party', 'agency'],
  place: ['place', 'city', 'country', 'region', 'location', 'area', 'state'],
  time: ['year', 'date', 'time', 'day', 'century', 'month', 'period'],
  quantity: ['number', 'amount', 'percentage', 'rate', 'total', 'size', 'price'],
};
const KIND_NAMES = Object.keys(HEAD_KINDS);

const lowerWord = (t: Term) => t.text.toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, '');
const isNounTerm = (t: Term) => t.tags.has('Noun') && !t.tags.has('Pronoun') && !t.tags.has('Possessive');
/** Auxiliaries and copulas by their words too: compromise tags "did" in "What did Johnson declare" as a plain verb. */
const AUXILIARIES = new Set('do does did is are was were be been am has have had will would shall should can could may might must'.split(' '));
const isAuxiliary = (t: Term) => t.tags.has('Auxiliary') || t.tags.has('Copula') || AUXILIARIES.has(lowerWord(t));
const isMainVerb = (t: Term) => t.tags.has('Verb') && !isAuxiliary(t);

const NOMINAL_TAGS = ['Determiner', 'Adjective', 'Value', 'Noun', 'Possessive', 'Gerund'];

/**
 * The noun phrase from `from`: its first word is taken whatever its tag (compromise reads "What network assumed" as
 * two verbs), the rest while they are nominal; its head is its last noun (else its first word). `end` is the next word.
 */
function nounPhrase(terms: Term[], from: number, forceFirst: boolean): { head: number; end: number } {
  let head = -1;
  let i = from;
  const first = terms[from];
  if (!first || isAuxiliary(first) || first.tags.has('Preposition') || first.tags.has('Pronoun')) return { head, end: from };
  for (; i < terms.length; i++) {
    const t = terms[i]!;
    const nominal = NOMINAL_TAGS.some((tag) => t.tags.has(tag)) && !(isMainVerb(t) && !t.tags.has('Noun') && !t.tags.has('Gerund'));
    if (!nominal && !(i === from && forceFirst)) break;
    if (isNounTerm(t) || (i === from && !t.tags.has('Determiner') && !t.tags.has('Possessive'))) head = i;
    if (/[,;:?]/.test(t.post)) {
      i++;
      break;
    }
  }
  return { head, end: i };
}

/**
 * The question's head noun: the last noun after "what/which" ("What talk show" -> show), after "how many/much"
 * (-> fumbles), or after "what/who is/was" ("What was ABC's viewership share" -> share, "Who is the head coach" ->
 * coach); a generic head ("the name of the program") gives way to the noun after "of". Also whether the wh-phrase is
 * the subject of the verb that follows ("Which team won", "Who was named"), whose answer comes before that verb.
 */
export function questionHead(terms: Term[]): { head: Term | null; subject: boolean; wh: { at: number; end: number } | null } {
  const lower = terms.map(lowerWord);
  const wh = lower.findIndex((w) => /^(what|which|who|whom|whose|how)$/.test(w));
  if (wh < 0) {
    const at = lower.findIndex((w) => /^(when|where|why)$/.test(w));
    return { head: null, subject: false, wh: at < 0 ? null : { at, end: at + 1 } };
  }
  const word = lower[wh]!;
  const copula = !!terms[wh + 1] && (terms[wh + 1]!.tags.has('Copula') || /^(is|are|was|were)$/.test(lower[wh + 1]!));
  // "Who was named", "What was built": a passive verb, whose subject the wh-word is.
  const passive = copula && !!terms[wh + 2] && isMainVerb(terms[wh + 2]!) && terms[wh + 2]!.tags.has('PastTense');
  let np = { head: -1, end: wh + 1 };
  if (word === 'how') {
    if (lower[wh + 1] === 'many' || lower[wh + 1] === 'much') np = nounPhrase(terms, wh + 2, true);
  } else if (copula && !passive && word !== 'whom' && word !== 'whose') np = nounPhrase(terms, wh + 2, false);
  else if (word === 'what' || word === 'which') np = nounPhrase(terms, wh + 1, true);
  if (np.head >= 0 && GENERIC_HEADS.has(lower[np.head]!) && lower[np.end] === 'of') {
    const after = nounPhrase(terms, np.end + 1, false);
    if (after.head >= 0) np = after;
  }
  const head = np.head >= 0 ? terms[np.head]! : null;
  // A copula right after the wh-word links it to the head ("What was the share"): no subject question.
  const k = copula ? -1 : np.end;
  const next = terms[k];
  const then = terms[k + 1];
  const subject = passive || (!!next && (isMainVerb(next) || (isAuxiliary(next) && !!then && isMainVerb(then) && then.tags.has('PastTense'))));
  // The wh-phrase itself ("what European conflict", "how many touchdowns", "how long"); after a copula only the wh-word.
  let end = np.head >= 0 && !copula ? Math.max(np.end, wh + 1) : wh + 1;
  if (word === 'how' && terms[wh + 1] && (terms[wh + 1]!.tags.has('Adjective') || terms[wh + 1]!.tags.has('Adverb'))) end = Math.max(end, wh + 2);
  return { head, subject, wh: { at: wh, end } };
}

/**
 * Verbs of saying frame a question ("What did Wilson say about the war?") rather than say what it is about: a sentence
 * that happens to say "say" ("Let me say at once...") is no closer to the answer.
 */
const SAYING = new Set(bm25Tokens('say said says tell told describe described mention mentioned talk talked speak spoke discuss discussed'));

export function analyseQuestion(question: string, rarity: (stem: string) => number, table: WordTable = loadWordTable()): QuestionInfo {
  const tokens = bm25Tokens(question).filter((t) => !SAYING.has(t));
  const stems = new Set(tokens);
  const weight = new Map([...stems].map((s) => [s, rarity(s)]));
  const bigrams = new Set<string>();
  for (let i = 1; i < tokens.length; i++) bigrams.add(`${tokens[i - 1]} ${tokens[i]}`);
  const terms = termsOf(question);
  const { head, subject, wh } = questionHead(terms);
  const main = terms.filter((t) => isMainVerb(t) && t.stem && t !== head);
  const headRow = head ? table.row(lowerWord(head)) : -1;
  const seen = new Set<string>();
  const words: QuestionWord[] = [];
  for (const t of terms) {
    if (!t.stem || !stems.has(t.stem) || seen.has(t.stem)) continue;
    seen.add(t.stem);
    words.push({ stem: t.stem, row: table.row(lowerWord(t)), weight: weight.get(t.stem) ?? 0 });
  }
  return {
    text: question,
    stems,
    weight,
    totalWeight: [...weight.values()].reduce((a, b) => a + b, 0) || 1,
    bigrams,
    type: questionType(question),
    wh: whWord(question),
    answerType: answerType(question),
    head: head?.stem || null,
    headRow,
    headKinds: KIND_NAMES.map((k) => {
      if (headRow < 0) return 0;
      const rows = HEAD_KINDS[k]!.map((w) => table.row(w));
      return rows.reduce((s, r) => s + table.similarity(headRow, r), 0) / rows.length;
    }),
    verbs: new Set(main.map((t) => t.stem)),
    verbRows: main.map((t) => table.row(lowerWord(t))).filter((r) => r >= 0),
    words,
    subject,
    ...contexts(terms, wh, stems, weight, table),
    finalPreposition: finalPreposition(terms),
  };
}

function finalPreposition(terms: Term[]): QuestionInfo['finalPreposition'] {
  const last = terms[terms.length - 1];
  const before = terms[terms.length - 2];
  if (!last || !before || !last.tags.has('Preposition')) return null;
  return { word: lowerWord(last), before: before.stem };
}

/** The question's content words on each side of its wh-phrase (nearest first), and the preposition before it. */
function contexts(terms: Term[], wh: { at: number; end: number } | null, stems: Set<string>, weight: Map<string, number>, table: WordTable) {
  const word = (t: Term): QuestionWord => ({ stem: t.stem, row: table.row(lowerWord(t)), weight: weight.get(t.stem) ?? 0 });
  const content = (t: Term) => !!t.stem && stems.has(t.stem);
  if (!wh) return { leftContext: [], rightContext: [], whPreposition: null };
  const left = terms.slice(0, wh.at).filter(content).reverse().slice(0, CONTEXT_WORDS).map(word);
  const right = terms.slice(wh.end).filter(content).slice(0, CONTEXT_WORDS).map(word);
  const before = terms[wh.at - 1];
  return { leftContext: left, rightContext: right, whPreposition: before?.tags.has('Preposition') ? lowerWord(before) : null };
}

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
}

export { titleStems } from './passages.js';

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
  ...QUESTION_TYPES.map((t) => `question_${t}`),
  'open_question',
  'soft_overlap',
  'head_similarity',
  ...KIND_NAMES.map((k) => `head_${k}`),
  'subject_question',
  // Rarity among the candidates themselves: a word in every retrieved sentence ("Luther" in a collection about Luther)
  // tells them apart less than one in a few.
  'local_idf_overlap',
  'local_idf_relative',
  'local_idf_rank',
  'type_near_match',
] as const;

const YEAR = /\b(1\d{3}|20\d\d)s?\b/;
const MONTH = /\b(January|February|March|April|May|June|July|August|September|October|November|December|century|centuries)\b/;
const NUMBER =
  /\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|hundreds|thousand|thousands|million|millions|billion|percent|dozen|half)\b/i;

/** Stems of single capitalised words, remembered (names recur; the stemmer is the costly part). */
const wordStems = new Map<string, string | undefined>();
function wordStem(w: string): string | undefined {
  if (!wordStems.has(w)) {
    if (wordStems.size > 20_000) wordStems.clear();
    wordStems.set(w, bm25Tokens(w)[0]);
  }
  return wordStems.get(w);
}

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

/** BM25 tokens of sentences, remembered: the same chunks' sentences come back question after question. */
const sentenceTokens = new Map<string, string[]>();
function tokensOf(sentence: string): string[] {
  let t = sentenceTokens.get(sentence);
  if (!t) {
    if (sentenceTokens.size > 20_000) sentenceTokens.clear();
    t = bm25Tokens(sentence);
    sentenceTokens.set(sentence, t);
  }
  return t;
}

/** Rows below this are the most frequent English words (the, of, was...): no evidence of a close equivalent. */
const COMMON_ROWS = 150;

/** Word-vector rows of a sentence's content words, remembered like its tokens. */
const sentenceRows = new Map<string, Int32Array>();
function rowsOf(sentence: string, table: WordTable): Int32Array {
  let r = sentenceRows.get(sentence);
  if (!r) {
    if (sentenceRows.size > 20_000) sentenceRows.clear();
    const words = sentence.toLowerCase().match(/[\p{L}][\p{L}'-]*/gu) ?? [];
    r = Int32Array.from(new Set(words.map((w) => table.row(w)).filter((x) => x >= COMMON_ROWS)));
    sentenceRows.set(sentence, r);
  }
  return r;
}

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

/** Features of every candidate sentence (some are relative to the other candidates of the same question). */
export function sentenceFeatures(q: QuestionInfo, candidates: SentenceCandidate[], table: WordTable = loadWordTable()): Float32Array[] {
  const tokens = candidates.map((c) => tokensOf(c.text));
  const avgLen = tokens.reduce((s, t) => s + t.length, 0) / Math.max(1, tokens.length) || 1;
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
  const base = candidates.map((c, i) => {
    const toks = tokens[i]!;
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
  });
  const maxBm25 = Math.max(1e-9, ...base.map((b) => b.bm25));
  const maxIdf = Math.max(1e-9, ...base.map((b) => b.idf));
  const order = base.map((b, i) => [b.idf, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const rank = new Array<number>(candidates.length);
  order.forEach(([, i], r) => (rank[i] = r));
  // Neighbours: the sentences before and after in the same chunk (an answer often follows the sentence that names it).
  const byPlace = new Map(candidates.map((c, i) => [`${c.chunkRank}:${c.position}`, i]));
  return candidates.map((c, i) => {
    const b = base[i]!;
    const year = YEAR.test(c.text) || MONTH.test(c.text);
    const number = NUMBER.test(c.text);
    const caps = capitalisedNew(c.text, q);
    const present = q.type === 'date' ? Number(year) : q.type === 'number' ? Number(number) : q.type === 'person' || q.type === 'place' ? Number(caps > 0) : 1;
    const prev = byPlace.get(`${c.chunkRank}:${c.position - 1}`);
    const next = byPlace.get(`${c.chunkRank}:${c.position + 1}`);
    const neighbour = Math.max(prev === undefined ? 0 : base[prev]!.idf, next === undefined ? 0 : base[next]!.idf);
    return Float32Array.from([
      b.idf,
      b.words,
      b.bigrams,
      b.bm25,
      b.bm25 / maxBm25,
      b.idf / maxIdf,
      Math.min(rank[i]!, 30),
      c.chunkBm25,
      Math.min(c.position, 50),
      Math.min(tokens[i]!.length, 80),
      proximity(tokens[i]!, q),
      Number(year),
      Number(number),
      Math.min(caps, 10),
      present,
      neighbour,
      q.stems.size,
      ...QUESTION_TYPES.map((t) => Number(q.type === t)),
      Number(q.answerType === 'open'),
      softOverlap(q, new Set(tokens[i]), rowsOf(c.text, table), table),
      q.head && new Set(tokens[i]).has(q.head) ? 1 : bestSimilarity(q.headRow, rowsOf(c.text, table), table),
      ...q.headKinds,
      Number(q.subject),
      local[i]!,
      local[i]! / maxLocal,
      Math.min(localRank[i]!, 30),
      typeNearMatch(c.text, q),
    ]);
  });
}

/** Word classes of a span's boundary words. */
const CLASSES = ['ProperNoun', 'Noun', 'Value', 'Date', 'Adjective', 'Verb', 'Adverb', 'Determiner', 'Preposition', 'Conjunction', 'Pronoun'] as const;
function wordClass(t: Term | undefined): number {
  if (!t) return CLASSES.length + 1; // outside the sentence
  if (t.tags.has('Date') || t.tags.has('Month') || t.tags.has('Year')) return 3;
  const k = CLASSES.findIndex((c) => t.tags.has(c));
  return k < 0 ? CLASSES.length : k;
}
const oneHot = (k: number) => CLASSES.map((_, i) => Number(i === k));

export const SPAN_FEATURES = [
  'length',
  'question_word_share',
  'has_question_word',
  'type_fit_max',
  'type_fit_mean',
  'near_question_words',
  'min_distance',
  'left_distance',
  'right_distance',
  'after_question_verb',
  'next_to_head_noun',
  'start_position',
  'nominal_share',
  'proper_share',
  'value_share',
  'has_verb',
  'inner_punctuation',
  'nominal_run',
  'inside_nominal_run',
  'after_punctuation',
  'before_punctuation',
  'previous_class',
  'next_class',
  ...CLASSES.map((c) => `first_${c}`),
  ...CLASSES.map((c) => `last_${c}`),
  ...QUESTION_TYPES.map((t) => `question_${t}`),
  'sentence_length',
  ...WH_WORDS.map((w) => `wh_${w}`),
  'prepositions',
  'has_head_noun',
  'previous_is_question_word',
  'next_is_question_word',
  'common_then_proper',
  // The sentence's own standing, so that a span of a sentence unlikely to hold the answer scores low.
  'sentence_idf_overlap',
  'sentence_bm25_relative',
  'sentence_idf_rank',
  'sentence_type_present',
  'sentence_proximity',
  'sentence_soft_overlap',
  // Word vectors: the head noun near or in the span ("cable channel TLC" for "What network"), the kind of answer the
  // head asks for, the question's verb (or a close one) just before or after the span, the span's likeness to the
  // question's own words.
  'head_window_similarity',
  'head_span_similarity',
  ...KIND_NAMES.map((k) => `head_${k}`),
  'verb_before_similarity',
  'verb_after_similarity',
  'subject_question',
  'span_question_similarity',
  'in_parentheses',
  // Alignment: the question's words next to its wh-phrase, found next to the span on either side ("reported to who?"
  // -> "reported to Mueller"; "from which direction via Mendota?" -> "from the west via Mendota").
  'left_context_before',
  'left_context_after',
  'right_context_before',
  'right_context_after',
  'nearest_left_next_to',
  'nearest_right_next_to',
  'preposition_match',
  'left_context_words',
  'right_context_words',
  'after_final_preposition',
  // Where the sentence stands among the candidates (spans of the best few sentences compete with each other).
  'sentence_score',
  'sentence_rank',
  'sentence_gap',
] as const;

/** A candidate sentence's standing: the sentence ranker's raw score, its rank (0 = best) and its gap to the best. */
export interface SentenceStanding {
  score: number;
  rank: number;
  gap: number;
}

const SENTENCE_CONTEXT = (['idf_overlap', 'bm25_relative', 'idf_rank', 'type_present', 'proximity', 'soft_overlap'] as const).map((n) =>
  SENTENCE_FEATURES.indexOf(n),
);

export interface SpanCandidate extends Span {
  text: string;
}

const isPunct = (t: Term) => !/[\p{L}\p{N}]/u.test(t.text);
const HARD_BREAK = /[;:()"[\]]/;

/**
 * Candidate answer spans of a sentence: word runs of at most MAX_SPAN words that do not start or end with a
 * determiner, preposition, conjunction or punctuation, do not cross ; : ( ) or quotes, and are not only question words
 * and stop words.
 */
export function spanCandidates(terms: Term[], q: QuestionInfo): SpanCandidate[] {
  const out: SpanCandidate[] = [];
  const edge = (t: Term) => !isPunct(t) && !t.tags.has('Determiner') && !t.tags.has('Preposition') && !t.tags.has('Conjunction');
  for (let from = 0; from < terms.length; from++) {
    if (!edge(terms[from]!)) continue;
    let onlyQuestion = true;
    for (let to = from + 1; to <= Math.min(terms.length, from + MAX_SPAN); to++) {
      const last = terms[to - 1]!;
      // Stop words ("is", "of") add nothing to the question's own words ("Monroe Doctrine is"), a number or a name does.
      const adds = last.stem ? !q.stems.has(last.stem) : ['Value', 'ProperNoun', 'Acronym'].some((tag) => last.tags.has(tag));
      if (adds) onlyQuestion = false;
      if (edge(last) && !onlyQuestion) out.push({ from, to, text: render(terms, { from, to }) });
      if (HARD_BREAK.test(last.post) || HARD_BREAK.test(terms[to]?.pre ?? '')) break;
    }
  }
  return out;
}

/**
 * Features of every candidate span of one sentence (`sentence`: the sentence's row of sentenceFeatures, `standing`:
 * its place among the candidate sentences).
 */
export function spanFeatures(
  terms: Term[],
  spans: Span[],
  q: QuestionInfo,
  sentence: Float32Array,
  standing: SentenceStanding,
  table: WordTable = loadWordTable(),
): Float32Array[] {
  const context = SENTENCE_CONTEXT.map((i) => sentence[i]!);
  const rows = terms.map((t) => table.row(lowerWord(t)));
  // Per word: likeness to the head noun, to the question's verbs (verbs only) and to its content words.
  const headSim = terms.map((t, i) => (!q.head ? 0 : t.stem === q.head ? 1 : table.similarity(q.headRow, rows[i]!)));
  const verbSim = terms.map((t, i) =>
    !t.tags.has('Verb') ? 0 : q.verbs.has(t.stem) ? 1 : Math.max(0, ...q.verbRows.map((r) => table.similarity(r, rows[i]!))),
  );
  // How well each sentence word stands for each context word of the question (same stem 1, a close word its similarity).
  const matchOf = (w: QuestionWord) =>
    terms.map((t, i) => {
      if (t.stem && t.stem === w.stem) return 1;
      if (rows[i]! < COMMON_ROWS) return 0;
      const sim = table.similarity(w.row, rows[i]!);
      return sim >= 0.6 ? sim : 0;
    });
  const leftMatch = q.leftContext.map(matchOf);
  const rightMatch = q.rightContext.map(matchOf);
  const contextShare = (words: QuestionWord[], match: number[][], from: number, to: number) => {
    let sum = 0;
    let total = 0;
    words.forEach((w, k) => {
      const weight = w.weight || 0.1;
      total += weight;
      sum += weight * maxIn(match[k]!, from, to);
    });
    return total ? sum / total : 0;
  };
  const WINDOW = 6;
  const questionSim = terms.map((t, i) =>
    t.stem && q.stems.has(t.stem) ? 1 : rows[i]! < COMMON_ROWS ? 0 : Math.max(0, ...q.words.map((w) => table.similarity(w.row, rows[i]!))),
  );
  const maxIn = (xs: number[], from: number, to: number) => {
    let m = 0;
    for (let i = Math.max(0, from); i < Math.min(xs.length, to); i++) m = Math.max(m, xs[i]!);
    return m;
  };
  // Open parentheses before each word (a span inside brackets is an aside, rarely the answer).
  const depth: number[] = [];
  let open = 0;
  for (const t of terms) {
    open += (t.pre.match(/\(/g) ?? []).length;
    depth.push(open);
    open = Math.max(0, open - (t.post.match(/\)/g) ?? []).length);
  }
  const anchors: { at: number; weight: number }[] = [];
  terms.forEach((t, i) => {
    if (t.stem && q.stems.has(t.stem)) anchors.push({ at: i, weight: (q.weight.get(t.stem) ?? 0) * (t.stem === q.head ? 3 : 1) });
  });
  const total = anchors.reduce((a, b) => a + b.weight, 0) || 1;
  const runs = spansOf(terms, q.stems);
  const wanted = q.type === 'other' ? null : TYPED[q.type];
  const afterVerb = (from: number) => {
    for (let i = from - 1; i >= Math.max(0, from - 3); i--) {
      const t = terms[i]!;
      if (t.tags.has('Verb') && q.verbs.has(t.stem)) return 1;
      if (!t.tags.has('Determiner') && !t.tags.has('Preposition') && !t.tags.has('Adjective')) return 0;
    }
    return 0;
  };
  // "declare war on?": the span comes (past one determiner) after "on" (0.5), and "on" after "war" (1).
  const afterFinalPreposition = (from: number) => {
    const fp = q.finalPreposition;
    if (!fp) return 0;
    let i = from - 1;
    if (terms[i]?.tags.has('Determiner')) i--;
    if (!terms[i] || lowerWord(terms[i]!) !== fp.word) return 0;
    return terms[i - 1]?.stem && terms[i - 1]!.stem === fp.before ? 1 : 0.5;
  };
  // The word before the span (past one determiner) is the preposition before the question's wh-phrase.
  const prepositionMatch = (from: number) => {
    if (!q.whPreposition) return 0;
    let i = from - 1;
    if (terms[i]?.tags.has('Determiner')) i--;
    return Number(!!terms[i] && lowerWord(terms[i]!) === q.whPreposition);
  };
  const nextToHead = (s: Span) => {
    if (!q.head) return 0;
    const before = terms[s.from - 1];
    const after = terms[s.to];
    return Number(before?.stem === q.head || after?.stem === q.head);
  };
  return spans.map((s) => {
    const length = s.to - s.from;
    let questionWords = 0;
    let fitSum = 0;
    let fitMax = 0;
    let nominal = 0;
    let proper = 0;
    let value = 0;
    let verb = 0;
    let punct = 0;
    let prepositions = 0;
    let head = 0;
    for (let i = s.from; i < s.to; i++) {
      const t = terms[i]!;
      if (t.tags.has('Preposition')) prepositions++;
      if (q.head && t.stem === q.head) head = 1;
      if (t.stem && q.stems.has(t.stem)) questionWords++;
      const f = wanted ? fit(t, wanted) : 0;
      fitSum += f;
      fitMax = Math.max(fitMax, f);
      if (isNominal(t)) nominal++;
      if (t.tags.has('ProperNoun')) proper++;
      if (t.tags.has('Value')) value++;
      if (t.tags.has('Verb')) verb = 1;
      if (i < s.to - 1 && /[,;:]/.test(t.post)) punct++;
    }
    let near = 0;
    let minDist = 30;
    let left = 30;
    let right = 30;
    for (const a of anchors) {
      const d = a.at < s.from ? s.from - a.at : a.at >= s.to ? a.at - s.to + 1 : 0;
      near += a.weight / (1 + d);
      minDist = Math.min(minDist, d);
      if (a.at < s.from) left = Math.min(left, s.from - a.at);
      if (a.at >= s.to) right = Math.min(right, a.at - s.to + 1);
    }
    const run = runs.find((r) => r.from <= s.from && s.to <= r.to);
    const prev = terms[s.from - 1];
    const next = terms[s.to];
    const isQuestionWord = (t: Term | undefined) => Number(!!t?.stem && q.stems.has(t.stem));
    const first = terms[s.from]!;
    const commonThenProper = Number(length > 1 && !first.tags.has('ProperNoun') && proper > 0);
    return Float32Array.from([
      length,
      questionWords / length,
      Number(questionWords > 0),
      fitMax,
      fitSum / length,
      near / total,
      minDist,
      left,
      right,
      afterVerb(s.from),
      nextToHead(s),
      s.from / terms.length,
      nominal / length,
      proper / length,
      value / length,
      verb,
      punct,
      Number(!!run && run.from === s.from && run.to === s.to),
      Number(!!run),
      Number(!prev || /[,;:(]/.test(prev.post)),
      Number(s.to === terms.length || /[,;:.)!?]/.test(terms[s.to - 1]!.post)),
      wordClass(prev),
      wordClass(terms[s.to]),
      ...oneHot(wordClass(terms[s.from])),
      ...oneHot(wordClass(terms[s.to - 1])),
      ...QUESTION_TYPES.map((t) => Number(q.type === t)),
      Math.min(terms.length, 80),
      ...WH_WORDS.map((w) => Number(q.wh === w)),
      prepositions,
      head,
      isQuestionWord(prev),
      isQuestionWord(next),
      commonThenProper,
      ...context,
      Math.max(maxIn(headSim, s.from - 3, s.from), maxIn(headSim, s.to, s.to + 3)),
      maxIn(headSim, s.from, s.to),
      ...q.headKinds,
      maxIn(verbSim, s.from - 4, s.from),
      maxIn(verbSim, s.to, s.to + 4),
      Number(q.subject),
      questionSim.slice(s.from, s.to).reduce((a, b) => a + b, 0) / length,
      Number(depth[s.from]! > 0),
      contextShare(q.leftContext, leftMatch, s.from - WINDOW, s.from),
      contextShare(q.leftContext, leftMatch, s.to, s.to + WINDOW),
      contextShare(q.rightContext, rightMatch, s.from - WINDOW, s.from),
      contextShare(q.rightContext, rightMatch, s.to, s.to + WINDOW),
      leftMatch.length ? maxIn(leftMatch[0]!, s.from - 3, s.from) : 0,
      rightMatch.length ? maxIn(rightMatch[0]!, s.to, s.to + 3) : 0,
      prepositionMatch(s.from),
      q.leftContext.length,
      q.rightContext.length,
      afterFinalPreposition(s.from),
      standing.score,
      standing.rank,
      standing.gap,
    ]);
  });
}
