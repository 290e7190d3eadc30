// The learned extractive reader: a sentence ranker over the sentences of the retrieved chunks, then a span ranker over
// the word spans of the chosen sentence. Both are gradient-boosted trees (trained by `npm run train:reader` on
// SQuAD, models/text/reader/) over cheap features computed here; training and serving share this code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../../infra/paths.js';
import { type Ensemble, ensembleFromOnnx, predictRaw, sigmoid } from '../../../infra/tree-ensemble.js';
import { bm25Tokens } from '../../search/bm25.js';
import { type AnswerType, answerType } from './answer-type.js';
import { type QuestionType, type Span, type Term, TYPED, fit, headNoun, isNominal, questionType, render, spansOf, termsOf, titleWords } from './extractive.js';

export const READER_DIR = 'models/text/reader';
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
  /** The noun a what/which question asks about ("which fullback"), stemmed. */
  head: string | null;
  /** The question's main verbs, stemmed. */
  verbs: Set<string>;
}

export function analyseQuestion(question: string, rarity: (stem: string) => number): QuestionInfo {
  const tokens = bm25Tokens(question);
  const stems = new Set(tokens);
  const weight = new Map([...stems].map((s) => [s, rarity(s)]));
  const bigrams = new Set<string>();
  for (let i = 1; i < tokens.length; i++) bigrams.add(`${tokens[i - 1]} ${tokens[i]}`);
  const verbs = new Set(
    termsOf(question)
      .filter((t) => t.tags.has('Verb') && !t.tags.has('Auxiliary') && !t.tags.has('Copula') && t.stem)
      .map((t) => t.stem),
  );
  return {
    text: question,
    stems,
    weight,
    totalWeight: [...weight.values()].reduce((a, b) => a + b, 0) || 1,
    bigrams,
    type: questionType(question),
    wh: whWord(question),
    answerType: answerType(question),
    head: headNoun(question),
    verbs,
  };
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

/** The stems of a document's path without its extension (titleWords), remembered per document. */
const titleCache = new Map<string, ReadonlySet<string>>();
export function titleStems(source: string): ReadonlySet<string> {
  let stems = titleCache.get(source);
  if (!stems) {
    if (titleCache.size > 10_000) titleCache.clear();
    stems = new Set(bm25Tokens(titleWords(source)));
    titleCache.set(source, stems);
  }
  return stems;
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
  ...QUESTION_TYPES.map((t) => `question_${t}`),
  'open_question',
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

/** Features of every candidate sentence (some are relative to the other candidates of the same question). */
export function sentenceFeatures(q: QuestionInfo, candidates: SentenceCandidate[]): Float32Array[] {
  const tokens = candidates.map((c) => tokensOf(c.text));
  const avgLen = tokens.reduce((s, t) => s + t.length, 0) / Math.max(1, tokens.length) || 1;
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
] as const;

const SENTENCE_CONTEXT = (['idf_overlap', 'bm25_relative', 'idf_rank', 'type_present', 'proximity'] as const).map((n) => SENTENCE_FEATURES.indexOf(n));

export interface SpanCandidate extends Span {
  text: string;
}

const isPunct = (t: Term) => !/[\p{L}\p{N}]/u.test(t.text);
const HARD_BREAK = /[;:()"[\]]/;

/**
 * Candidate answer spans of a sentence: word runs of at most MAX_SPAN words that do not start or end with a
 * determiner, preposition, conjunction or punctuation, do not cross ; : ( ) or quotes, and are not only question words.
 */
export function spanCandidates(terms: Term[], q: QuestionInfo): SpanCandidate[] {
  const out: SpanCandidate[] = [];
  const edge = (t: Term) => !isPunct(t) && !t.tags.has('Determiner') && !t.tags.has('Preposition') && !t.tags.has('Conjunction');
  for (let from = 0; from < terms.length; from++) {
    if (!edge(terms[from]!)) continue;
    let onlyQuestion = true;
    for (let to = from + 1; to <= Math.min(terms.length, from + MAX_SPAN); to++) {
      const last = terms[to - 1]!;
      if (!(last.stem && q.stems.has(last.stem)) && !last.tags.has('Determiner')) onlyQuestion = false;
      if (edge(last) && !onlyQuestion) out.push({ from, to, text: render(terms, { from, to }) });
      if (HARD_BREAK.test(last.post) || HARD_BREAK.test(terms[to]?.pre ?? '')) break;
    }
  }
  return out;
}

/** Features of every candidate span of one sentence (`sentence`: the sentence's row of sentenceFeatures). */
export function spanFeatures(terms: Term[], spans: Span[], q: QuestionInfo, sentence: Float32Array): Float32Array[] {
  const context = SENTENCE_CONTEXT.map((i) => sentence[i]!);
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
    ]);
  });
}

export interface ReaderModels {
  sentence: Ensemble;
  span: Ensemble;
  /** How many of the best sentences the span step looks into (chosen on the held-out half). */
  sentencesForSpans: number;
}

export interface ReadResult {
  answerType: AnswerType;
  /** The answer: a span for a factoid question, one or two sentences for an open one. */
  answer: string;
  /** The sentence(s) the answer comes from. */
  sentence: string;
  /** Index into the candidates of the answer's (first) sentence. */
  candidate: number;
  /** The reader's probability that the chosen sentence holds the answer. */
  sentenceProbability: number;
  /** For a factoid answer, the span model's score (expected token F1 of the span); null for an open answer. */
  spanScore: number | null;
  /** A support score in [0, 1]: sentence probability x span score (factoid) or sentence probability (open). */
  support: number;
}

export class LearnedReader {
  constructor(readonly models: ReaderModels) {}

  /** Probability, for each candidate, that it contains the answer. */
  rankSentences(q: QuestionInfo, candidates: SentenceCandidate[], features = sentenceFeatures(q, candidates)): number[] {
    return features.map((x) => sigmoid(predictRaw(this.models.sentence, x)));
  }

  /** The best span of one sentence, with its score (the model's expected token F1). */
  bestSpan(q: QuestionInfo, sentence: string, features: Float32Array): { text: string; score: number } | null {
    const terms = termsOf(sentence);
    const spans = spanCandidates(terms, q);
    if (!spans.length) return null;
    const scores = spanFeatures(terms, spans, q, features).map((x) => sigmoid(predictRaw(this.models.span, x)));
    let best = 0;
    for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
    return { text: spans[best]!.text, score: scores[best]! };
  }

  /**
   * The answer from the candidate sentences: the best sentence (and for an open question the runner-up too when it
   * is nearly as likely and from the same chunk); for a factoid question the best span among the best sentences,
   * weighing each span's score by its sentence's probability.
   */
  read(q: QuestionInfo, candidates: SentenceCandidate[], spanStep?: 'none'): ReadResult | null {
    if (!candidates.length) return null;
    const features = sentenceFeatures(q, candidates);
    const p = this.rankSentences(q, candidates, features);
    const order = p.map((_, i) => i).sort((a, b) => p[b]! - p[a]! || a - b);
    const top = order[0]!;
    if (q.answerType === 'open' || spanStep === 'none') {
      const second = order[1];
      const pair =
        second !== undefined && p[second]! >= 0.5 * p[top]! && candidates[second]!.chunkRank === candidates[top]!.chunkRank
          ? [top, second].sort((a, b) => candidates[a]!.position - candidates[b]!.position)
          : [top];
      const text = pair.map((i) => candidates[i]!.text).join(' ');
      return { answerType: 'open', answer: text, sentence: text, candidate: pair[0]!, sentenceProbability: p[top]!, spanScore: null, support: p[top]! };
    }
    let best: { i: number; text: string; score: number; joint: number } | null = null;
    for (const i of order.slice(0, this.models.sentencesForSpans)) {
      const span = this.bestSpan(q, candidates[i]!.text, features[i]!);
      if (!span) continue;
      const joint = p[i]! * span.score;
      if (!best || joint > best.joint) best = { i, ...span, joint };
    }
    if (!best) {
      const text = candidates[top]!.text;
      return { answerType: 'factoid', answer: text, sentence: text, candidate: top, sentenceProbability: p[top]!, spanScore: null, support: p[top]! * 0.1 };
    }
    return {
      answerType: 'factoid',
      answer: best.text,
      sentence: candidates[best.i]!.text,
      candidate: best.i,
      sentenceProbability: p[best.i]!,
      spanScore: best.score,
      support: best.joint,
    };
  }
}

export interface ReaderSettings {
  sentencesForSpans: number;
}

/** The shipped reader (the two ONNX tree ensembles and the settings chosen with them). */
export function loadLearnedReader(dir = fromRoot(READER_DIR)): LearnedReader {
  const read = (name: string) => ensembleFromOnnx(new Uint8Array(readFileSync(join(dir, name)))).model;
  const settings = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as ReaderSettings;
  return new LearnedReader({ sentence: read('sentence.onnx'), span: read('span.onnx'), sentencesForSpans: settings.sentencesForSpans });
}
