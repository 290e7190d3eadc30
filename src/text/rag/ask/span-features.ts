// The span ranker's features (reader-features.ts): how well each candidate answer span of a sentence fits the
// question (its words' classes, its distance to the question's words, its likeness by word vectors to the head noun
// and the verbs, its alignment with the words either side of the wh-phrase) and the standing of its sentence, each
// computed under its name (the model's own list of names orders them, features.ts).
import { type Span, type Term, fit, isNominal } from './extractive.js';
import { checkFeatureNames, oneHot, prefixed } from './features.js';
import { HEAD_KIND_NAMES, type QuestionInfo, type QuestionWord, QUESTION_TYPES, WH_WORDS, lowerWord } from './reader-question.js';
import type { SentenceFeatures } from './sentence-features.js';
import { type SentenceWords, WINDOW, maxIn, sentenceWords } from './span-words.js';
import { type WordTable, loadWordTable } from './word-vectors.js';

/** Word classes of a span's boundary words. */
const CLASSES = ['ProperNoun', 'Noun', 'Value', 'Date', 'Adjective', 'Verb', 'Adverb', 'Determiner', 'Preposition', 'Conjunction', 'Pronoun'] as const;
/** The index of a word's class in CLASSES (past the end: none of them, or outside the sentence). */
function wordClass(t: Term | undefined): number {
  if (!t) return CLASSES.length + 1; // outside the sentence
  if (t.tags.has('Date') || t.tags.has('Month') || t.tags.has('Year')) return 3;
  const k = CLASSES.findIndex((c) => t.tags.has(c));
  return k < 0 ? CLASSES.length : k;
}

/** The one-hot word class of a span's first and last word (first_*, last_*), for each class index (wordClass), made once. */
const FIRST_CLASS = Array.from({ length: CLASSES.length + 2 }, (_, k) => oneHot('first_', CLASSES, CLASSES[k]));
const LAST_CLASS = Array.from({ length: CLASSES.length + 2 }, (_, k) => oneHot('last_', CLASSES, CLASSES[k]));
/** The word class indices of a span's first and last word. */
const boundaryClasses = (terms: Term[], s: Span) => [wordClass(terms[s.from]), wordClass(terms[s.to - 1])] as const;

/** The sentence's own standing, so that a span of a sentence unlikely to hold the answer scores low. */
const SENTENCE_CONTEXT = [
  'idf_overlap',
  'bm25_relative',
  'idf_rank',
  'type_present',
  'proximity',
  'soft_overlap',
] as const satisfies readonly (keyof SentenceFeatures)[];

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
  ...CLASSES.map((c) => `first_${c}` as const),
  ...CLASSES.map((c) => `last_${c}` as const),
  ...QUESTION_TYPES.map((t) => `question_${t}` as const),
  'sentence_length',
  ...WH_WORDS.map((w) => `wh_${w}` as const),
  'prepositions',
  'has_head_noun',
  'previous_is_question_word',
  'next_is_question_word',
  'common_then_proper',
  // The sentence's own standing, so that a span of a sentence unlikely to hold the answer scores low.
  ...SENTENCE_CONTEXT.map((n) => `sentence_${n}` as const),
  // Word vectors: the head noun near or in the span ("cable channel TLC" for "What network"), the kind of answer the
  // head asks for, the question's verb (or a close one) just before or after the span, the span's likeness to the
  // question's own words.
  'head_window_similarity',
  'head_span_similarity',
  ...HEAD_KIND_NAMES.map((k) => `head_${k}` as const),
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

export type SpanFeature = (typeof SPAN_FEATURES)[number];
/** A candidate span's features by name. */
export type SpanFeatures = Record<SpanFeature, number>;
/** A candidate sentence's standing: the sentence ranker's raw score, its rank (0 = best) and its gap to the best. */
export interface SentenceStanding {
  score: number;
  rank: number;
  gap: number;
}

/** Rarity-weighted share of the context words found (or a close word) within [from, to). */
function contextShare(words: QuestionWord[], match: number[][], from: number, to: number): number {
  let sum = 0;
  let total = 0;
  words.forEach((w, k) => {
    const weight = w.weight || 0.1;
    total += weight;
    sum += weight * maxIn(match[k]!, from, to);
  });
  return total ? sum / total : 0;
}

/** The span follows (past determiners, prepositions and adjectives, within three words) one of the question's verbs. */
function afterVerb({ terms, q }: SentenceWords, from: number): number {
  for (let i = from - 1; i >= Math.max(0, from - 3); i--) {
    const t = terms[i]!;
    if (t.tags.has('Verb') && q.verbs.has(t.stem)) return 1;
    if (!t.tags.has('Determiner') && !t.tags.has('Preposition') && !t.tags.has('Adjective')) return 0;
  }
  return 0;
}

/** "declare war on?": the span comes (past one determiner) after "on" (0.5), and "on" after "war" (1). */
function afterFinalPreposition({ terms, q }: SentenceWords, from: number): number {
  const fp = q.finalPreposition;
  if (!fp) return 0;
  let i = from - 1;
  if (terms[i]?.tags.has('Determiner')) i--;
  if (!terms[i] || lowerWord(terms[i]!) !== fp.word) return 0;
  return terms[i - 1]?.stem && terms[i - 1]!.stem === fp.before ? 1 : 0.5;
}

/** The word before the span (past one determiner) is the preposition before the question's wh-phrase. */
function prepositionMatch({ terms, q }: SentenceWords, from: number): number {
  if (!q.whPreposition) return 0;
  let i = from - 1;
  if (terms[i]?.tags.has('Determiner')) i--;
  return Number(!!terms[i] && lowerWord(terms[i]!) === q.whPreposition);
}

function nextToHead({ terms, q }: SentenceWords, s: Span): number {
  if (!q.head) return 0;
  const before = terms[s.from - 1];
  const after = terms[s.to];
  return Number(before?.stem === q.head || after?.stem === q.head);
}

/** Counts over the span's own words: the question's words, the fit to the type asked, word classes, punctuation. */
function wordCounts({ terms, q, wanted }: SentenceWords, s: Span) {
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
  return { questionWords, fitSum, fitMax, nominal, proper, value, verb, punct, prepositions, head };
}

/** The question's words around the span: their rarity-weighted nearness, and the distance to the nearest, left and right. */
function anchorDistances(anchors: SentenceWords['anchors'], s: Span) {
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
  return { near, minDist, left, right };
}

/** The span's shape: its words, its distance to the question's words, its boundaries and their word classes. */
function shapeFeatures(w: SentenceWords, s: Span) {
  const { terms, q } = w;
  const length = s.to - s.from;
  const c = wordCounts(w, s);
  const a = anchorDistances(w.anchors, s);
  const run = w.runs.find((r) => r.from <= s.from && s.to <= r.to);
  const prev = terms[s.from - 1];
  const next = terms[s.to];
  const isQuestionWord = (t: Term | undefined) => Number(!!t?.stem && q.stems.has(t.stem));
  const first = terms[s.from]!;
  return {
    length,
    question_word_share: c.questionWords / length,
    has_question_word: Number(c.questionWords > 0),
    type_fit_max: c.fitMax,
    type_fit_mean: c.fitSum / length,
    near_question_words: a.near / w.totalAnchor,
    min_distance: a.minDist,
    left_distance: a.left,
    right_distance: a.right,
    after_question_verb: afterVerb(w, s.from),
    next_to_head_noun: nextToHead(w, s),
    start_position: s.from / terms.length,
    nominal_share: c.nominal / length,
    proper_share: c.proper / length,
    value_share: c.value / length,
    has_verb: c.verb,
    inner_punctuation: c.punct,
    nominal_run: Number(!!run && run.from === s.from && run.to === s.to),
    inside_nominal_run: Number(!!run),
    after_punctuation: Number(!prev || /[,;:(]/.test(prev.post)),
    before_punctuation: Number(s.to === terms.length || /[,;:.)!?]/.test(terms[s.to - 1]!.post)),
    previous_class: wordClass(prev),
    next_class: wordClass(next),
    prepositions: c.prepositions,
    has_head_noun: c.head,
    previous_is_question_word: isQuestionWord(prev),
    next_is_question_word: isQuestionWord(next),
    common_then_proper: Number(length > 1 && !first.tags.has('ProperNoun') && c.proper > 0),
  };
}

/**
 * Word vectors: the head noun near or in the span ("cable channel TLC" for "What network"), the kind of answer the
 * head asks for, the question's verb (or a close one) just before or after the span, the span's likeness to the
 * question's own words.
 */
function likenessFeatures({ headSim, verbSim, questionSim, depth }: SentenceWords, s: Span) {
  return {
    head_window_similarity: Math.max(maxIn(headSim, s.from - 3, s.from), maxIn(headSim, s.to, s.to + 3)),
    head_span_similarity: maxIn(headSim, s.from, s.to),
    verb_before_similarity: maxIn(verbSim, s.from - 4, s.from),
    verb_after_similarity: maxIn(verbSim, s.to, s.to + 4),
    span_question_similarity: questionSim.slice(s.from, s.to).reduce((a, b) => a + b, 0) / (s.to - s.from),
    in_parentheses: Number(depth[s.from]! > 0),
  };
}

/**
 * Alignment: the question's words next to its wh-phrase, found next to the span on either side ("reported to who?"
 * -> "reported to Mueller"; "from which direction via Mendota?" -> "from the west via Mendota").
 */
function alignmentFeatures(w: SentenceWords, s: Span) {
  const { q, leftMatch, rightMatch } = w;
  return {
    left_context_before: contextShare(q.leftContext, leftMatch, s.from - WINDOW, s.from),
    left_context_after: contextShare(q.leftContext, leftMatch, s.to, s.to + WINDOW),
    right_context_before: contextShare(q.rightContext, rightMatch, s.from - WINDOW, s.from),
    right_context_after: contextShare(q.rightContext, rightMatch, s.to, s.to + WINDOW),
    nearest_left_next_to: leftMatch.length ? maxIn(leftMatch[0]!, s.from - 3, s.from) : 0,
    nearest_right_next_to: rightMatch.length ? maxIn(rightMatch[0]!, s.to, s.to + 3) : 0,
    preposition_match: prepositionMatch(w, s.from),
    after_final_preposition: afterFinalPreposition(w, s.from),
  };
}

/**
 * What every span of one sentence shares: the question's kind, the sentence's own features (`sentence`) and its place
 * among the candidate sentences (`standing`).
 */
function sharedFeatures(terms: Term[], q: QuestionInfo, sentence: SentenceFeatures, standing: SentenceStanding) {
  return {
    ...oneHot('question_', QUESTION_TYPES, q.type),
    sentence_length: Math.min(terms.length, 80),
    ...oneHot('wh_', WH_WORDS, q.wh),
    ...prefixed('sentence_', sentence, SENTENCE_CONTEXT),
    ...prefixed('head_', q.headKinds, HEAD_KIND_NAMES),
    subject_question: Number(q.subject),
    left_context_words: q.leftContext.length,
    right_context_words: q.rightContext.length,
    sentence_score: standing.score,
    sentence_rank: standing.rank,
    sentence_gap: standing.gap,
  };
}

/** What is each span's own, in parts (the one-hot word classes of its first and last word apart). */
function ownParts(words: SentenceWords, s: Span) {
  return { parts: [shapeFeatures(words, s), likenessFeatures(words, s), alignmentFeatures(words, s)], classes: boundaryClasses(words.terms, s) };
}

/**
 * Features of every candidate span of one sentence, by name (`sentence`: the sentence's features, `standing`: its
 * place among the candidate sentences).
 */
export function spanFeatures(
  terms: Term[],
  spans: Span[],
  q: QuestionInfo,
  sentence: SentenceFeatures,
  standing: SentenceStanding,
  table: WordTable = loadWordTable(),
): SpanFeatures[] {
  const words = sentenceWords(terms, q, table);
  const shared = sharedFeatures(terms, q, sentence, standing);
  return spans.map((s): SpanFeatures => {
    const { parts, classes } = ownParts(words, s);
    return Object.assign({}, shared, ...parts, FIRST_CLASS[classes[0]], LAST_CLASS[classes[1]]) as SpanFeatures;
  });
}

/**
 * The span model's input rows for every candidate span of one sentence, in the order of `names` (the model's own
 * list): the same values as featureVector(spanFeatures(...)[k], names), without building a record of every feature
 * for every span (a sentence has hundreds of spans; the shared part is written once).
 */
export function spanRows(
  terms: Term[],
  spans: Span[],
  q: QuestionInfo,
  sentence: SentenceFeatures,
  standing: SentenceStanding,
  names: readonly string[],
  table: WordTable = loadWordTable(),
): Float32Array[] {
  if (!spans.length) return [];
  const words = sentenceWords(terms, q, table);
  const shared: Record<string, number> = sharedFeatures(terms, q, sentence, standing);
  const at = new Map(names.map((n, i) => [n, i]));
  const template = new Float32Array(names.length);
  for (const [n, v] of Object.entries(shared)) if (at.has(n)) template[at.get(n)!] = v;
  // Where each word class's indicator goes (-1: the model does not read it).
  const firstAt = FIRST_CLASS.map((_, k) => (k < CLASSES.length ? (at.get(`first_${CLASSES[k]}`) ?? -1) : -1));
  const lastAt = LAST_CLASS.map((_, k) => (k < CLASSES.length ? (at.get(`last_${CLASSES[k]}`) ?? -1) : -1));
  // Each part's names and where they go, from the first span (every span's parts have the same names).
  let plan: { names: string[]; to: number[] }[] | null = null;
  return spans.map((s) => {
    const { parts, classes } = ownParts(words, s);
    if (!plan) {
      const computed = [shared, ...parts, FIRST_CLASS[0]!, LAST_CLASS[0]!].flatMap((r) => Object.keys(r));
      checkFeatureNames('the span model', names, computed);
      plan = parts.map((part) => {
        const own = Object.keys(part);
        return { names: own, to: own.map((n) => at.get(n) ?? -1) };
      });
    }
    const row = template.slice();
    parts.forEach((part, j) => {
      const { names: own, to } = plan![j]!;
      for (let k = 0; k < own.length; k++) if (to[k]! >= 0) row[to[k]!] = (part as Record<string, number>)[own[k]!]!;
    });
    if (firstAt[classes[0]]! >= 0) row[firstAt[classes[0]]!] = 1;
    if (lastAt[classes[1]]! >= 0) row[lastAt[classes[1]]!] = 1;
    return row;
  });
}
