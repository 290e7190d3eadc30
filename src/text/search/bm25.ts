// Keyword search: BM25 through wink-bm25-text-search, with stemming and stop-word removal from wink-nlp-utils.
import bm25 from 'wink-bm25-text-search';
import { lowerCase, removeWords, stem, tokenize0 } from './text-prep.js';

/**
 * Stems of words seen before: the Porter stemmer works word by word and is the costly part of preparing a text, and a
 * collection's words recur in every question's passages. Bounded; cleared when full.
 */
const stems = new Map<string, string>();
const STEMS_MAX = 200_000;

/**
 * British and American spellings of a word as one ("licence" and "license", "colour" and "color", "organise" and
 * "organize", "centre" and "center", "catalogue" and "catalog", "analyse" and "analyze"): a question written in one
 * matches documents written in the other. Regular patterns of English spelling, applied alike to documents and
 * questions, so that the common form need not be a word, but each pattern takes every form of a word it changes
 * ("organise", "organised", "organisation"), so that no word is parted from its own forms. The "-re" words are listed:
 * as a pattern it would part "hundred" from "hundreds". Doubled consonants ("travelled") are left alone, since there
 * the pattern would merge different words ("filled" and "filed").
 */
/** Words whose "-ise" is their own, not the suffix that American English writes "-ize" ("revise", not "organise"). */
const OWN_ISE = [
  'advise revise devise supervise televise improvise precise concise exercise excise incise circumcise',
  'promise compromise premise demise surmise comprise surprise enterprise reprise apprise otherwise',
  'likewise clockwise disguise guise expertise advertise chastise franchise merchandise cruise bruise',
  'noise poise raise praise appraise arise rise wise despise paradise treatise turquoise tortoise',
  'porpoise valise mortise',
]
  .join(' ')
  .split(' ');
const ISE_FORMS = 'e|es|ed|ing|ation|ations|er|ers|able|ably';
const ISE = new RegExp(
  `^(?!(?:un|re|pre|dis|mis|over|under|non|self)?(?:${OWN_ISE.map((w) => w.slice(0, -3)).join('|')})is(?:${ISE_FORMS})$)(\\p{L}{3,})is(${ISE_FORMS})$`,
  'u',
);

const SPELLINGS: [RegExp, string][] = [
  [/^(licen|defen|offen|preten)c(e|es|ed|ing)$/, '$1s$2'],
  [/^(\p{L}{3,})our(s|ed|ing|ite|ites|able|ably|al|ally|er|ers|ful|fully|less|ist|ists)?$/u, '$1or$2'],
  [ISE, '$1iz$2'],
  [/^(\p{L}{2,})ys(e|es|ed|ing|er|ers)$/u, '$1yz$2'],
  [/^(cent|met|kilomet|centimet|millimet|lit|millilit|fib|theat|calib|sab|spect|lust|somb)re(s)?$/, '$1er$2'],
  [/^(cent|met|fib|calib)red$/, '$1ered'],
  [/^(\p{L}{2,})ogue(s)?$/u, '$1og$2'],
  [/^(\p{L}{3,})mme(s)?$/u, '$1m$2'],
  [/^grey(s|ed|ing|er|est|ish)?$/, 'gray$1'],
];

/** A token in the spelling British and American English share (SPELLINGS); other tokens as they are. */
export function commonSpelling(token: string): string {
  for (const [pattern, replacement] of SPELLINGS) if (pattern.test(token)) return token.replace(pattern, replacement);
  return token;
}

function stemOf(token: string): string {
  let found = stems.get(token);
  if (found === undefined) {
    found = stem(commonSpelling(token));
    if (stems.size >= STEMS_MAX) stems.clear();
    stems.set(token, found);
  }
  return found;
}

/** The same text preparation for documents and queries. */
export const bm25Tokens = (text: string): string[] => removeWords(tokenize0(lowerCase(text))).map(stemOf);

/**
 * A document's path as words, for the steps that take a question word its file name holds as met by the document:
 * "speeches/1964_lyndon_b_johnson_d.txt" -> "speeches 1964 lyndon b johnson d".
 */
/**
 * A file name as words: its extension dropped, separators as spaces, and the parts a name glues together split apart:
 * CamelCase and letter-digit runs ("TulsaJun20_2020.txt" is "Tulsa Jun 20 2020", "UKBudget2019" is "UK Budget 2019").
 */
export const titleWords = (source: string) =>
  source
    .replace(/\.[a-z]+$/i, '')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`))
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

// wink refuses to consolidate fewer than 3 documents; tiny collections get empty placeholders that never match.
const MIN_DOCS = 3;
const PLACEHOLDER = '\u0000placeholder-';

export class Bm25Index {
  private engine = bm25();
  private count = 0;
  private built = false;

  constructor() {
    // Two fields: the chunk's text and its document's name as words (titleWords), so that a question naming the
    // document ("What did Washington say about the militia?") prefers its chunks over others on the same topic.
    this.engine.defineConfig({ fldWeights: { body: 1, title: 1 }, bm25Params: { k1: 1.2, b: 0.75 } });
    this.engine.definePrepTasks([bm25Tokens as (input: unknown) => unknown]);
  }

  add(id: string, text: string, title = ''): void {
    this.engine.addDoc({ body: text, title }, id);
    this.count++;
  }

  build(): void {
    for (let i = this.count; i < MIN_DOCS; i++) this.engine.addDoc({ body: '', title: '' }, `${PLACEHOLDER}${i}`);
    this.engine.consolidate();
    this.built = true;
  }

  get size(): number {
    return this.count;
  }

  /** [id, score] pairs, best first. */
  search(query: string, limit = 50): [string, number][] {
    if (!this.built) throw new Error('BM25 index used before build()');
    return this.engine.search(query, limit).filter(([id]) => !String(id).startsWith(PLACEHOLDER));
  }
}
