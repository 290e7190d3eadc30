// The extractive reader's reading of a question (reader-features.ts): its content stems and their rarity, its
// wh-word and expected answer type, the head noun it asks about and how close that noun is to each kind of answer,
// its main verbs, and the words either side of its wh-phrase, with their word-vector rows.
import { bm25Tokens } from '../../search/bm25.js';
import { type AnswerType, answerType } from './answer-type.js';
import { type QuestionType, type Term, questionType, termsOf, whPhrase } from './extractive.js';
import { AUXILIARIES, SAYING_WORDS } from './lexical.js';
import { type WordTable, loadWordTable } from './word-vectors.js';

export const QUESTION_TYPES = ['person', 'date', 'number', 'place', 'other'] as const satisfies readonly QuestionType[];
export const WH_WORDS = ['what', 'which', 'who', 'when', 'where', 'how', 'why', 'other'] as const;
export type WhWord = (typeof WH_WORDS)[number];

/** The question's first wh-word (whom and whose count as who). */
export function whWord(question: string): WhWord {
  const m = /\b(what|which|who|whom|whose|when|where|how|why)\b/i.exec(question);
  if (!m) return 'other';
  const w = m[1]!.toLowerCase();
  return (w.startsWith('who') ? 'who' : w) as WhWord;
}

/** A question word with its vector row (for close equivalents) and its rarity. */
export interface QuestionWord {
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
  headKinds: Record<HeadKind, number>;
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
export const HEAD_KINDS = {
  person: ['person', 'man', 'woman', 'leader', 'player', 'minister', 'author'],
  organisation: ['organization', 'company', 'team', 'group', 'network', 'party', 'agency'],
  place: ['place', 'city', 'country', 'region', 'location', 'area', 'state'],
  time: ['year', 'date', 'time', 'day', 'century', 'month', 'period'],
  quantity: ['number', 'amount', 'percentage', 'rate', 'total', 'size', 'price'],
} satisfies Record<string, string[]>;
export type HeadKind = keyof typeof HEAD_KINDS;
export const HEAD_KIND_NAMES = Object.keys(HEAD_KINDS) as HeadKind[];

export const lowerWord = (t: Term) => t.text.toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, '');
const isNounTerm = (t: Term) => t.tags.has('Noun') && !t.tags.has('Pronoun') && !t.tags.has('Possessive');
/** Auxiliaries and copulas by their words too: compromise tags "did" in "What did Johnson declare" as a plain verb. */
const AUXILIARY_WORDS = new Set(AUXILIARIES);
const isAuxiliary = (t: Term) => t.tags.has('Auxiliary') || t.tags.has('Copula') || AUXILIARY_WORDS.has(lowerWord(t));
export const isMainVerb = (t: Term) => t.tags.has('Verb') && !isAuxiliary(t);

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
const SAYING = new Set(bm25Tokens(SAYING_WORDS));

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
    headKinds: headKinds(headRow, table),
    verbs: new Set(main.map((t) => t.stem)),
    verbRows: main.map((t) => table.row(lowerWord(t))).filter((r) => r >= 0),
    words,
    subject,
    ...contexts(terms, wh, stems, weight, table),
    finalPreposition: finalPreposition(terms),
  };
}

/** The head noun's mean similarity to the typical nouns of each kind of answer (all 0 without a head). */
function headKinds(headRow: number, table: WordTable): Record<HeadKind, number> {
  const similarity = (k: HeadKind) => {
    if (headRow < 0) return 0;
    const rows = HEAD_KINDS[k].map((w) => table.row(w));
    return rows.reduce((s, r) => s + table.similarity(headRow, r), 0) / rows.length;
  };
  return Object.fromEntries(HEAD_KIND_NAMES.map((k) => [k, similarity(k)])) as Record<HeadKind, number>;
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

/** Whether the noun after "what"/"which" is a plural ("which versions", "what C types"). */
export function asksForSeveral(question: string): boolean {
  // The phrase's head is its last noun before anything else ("what C types", "which similarity measures").
  let head: Term | null = null;
  for (const t of whPhrase(question)) {
    if (!t.tags.has('Noun')) {
      if (head || t.tags.has('Verb') || t.tags.has('Copula')) break;
      continue;
    }
    head = t;
  }
  return head?.tags.has('Plural') ?? false;
}
