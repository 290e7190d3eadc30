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
import { LRUCache } from 'lru-cache';
import { titleWords } from '../../search/bm25.js';
import type { Lexicon } from './lexicon.js';
import type { QuestionNlp } from './question-nlp.js';
import { type PassageWords, foundIn, passageWords, unionOf, vectorWords, withTitleInitials } from './support-passages.js';
import type { TableVectors } from './word-vectors.js';
import { questionTerms } from './support-terms.js';

export { questionTerms, rarity } from './support-terms.js';

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
  /** The frequent word a misspelt word of the question stands for ("reccomend": recommend): found as that word too. */
  means?: string;
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
export type WordVectors = (words: string[]) => Promise<ArrayLike<number>[]>;

/**
 * Keeps a bounded number of word vectors across questions (the words of a collection recur), least recently used out
 * first. With `table` (the shipped embedder's word table, in the reader's worker), a word that is one entry of it is
 * read from the table instead (a word alone is its own row: the same unit vector, about a microsecond a word where a
 * run of the embedder takes about 75) and is not kept; the rest (unknown words, words the tokenizer splits: "don't",
 * "e-mail") go to `vectors`.
 */
export class WordVectorCache {
  // Float32 rows: a JavaScript array of doubles would take four times the memory of the vector itself.
  private readonly cache: LRUCache<string, Float32Array>;
  constructor(
    private readonly vectors: WordVectors,
    limit = 20_000,
    private readonly table?: (words: string[]) => Promise<TableVectors>,
  ) {
    this.cache = new LRUCache({ max: limit });
  }

  async get(words: string[]): Promise<Map<string, Float32Array>> {
    const own = new Map<string, Float32Array>();
    const asked = [...new Set(words)];
    // The table's vectors are the embedder's: when the worker cannot take the task (its queue is full), the embedder
    // computes them all.
    const fromTable = this.table && asked.length ? await this.table(asked).catch(() => null) : null;
    if (fromTable) {
      const { dim, found, vectors } = fromTable;
      asked.forEach((w, i) => found[i] && own.set(w, vectors.subarray(i * dim, (i + 1) * dim)));
    }
    const missing = asked.filter((w) => !own.has(w) && !this.cache.has(w));
    // What this call fetched is answered from here too: a batch larger than the cache would push its own first words out.
    const fetched = new Map<string, Float32Array>();
    for (let i = 0; i < missing.length; i += 256) {
      const part = missing.slice(i, i + 256);
      const vs = await this.vectors(part);
      part.forEach((w, j) => {
        const v = Float32Array.from(vs[j]!);
        fetched.set(w, v);
        this.cache.set(w, v);
      });
    }
    return new Map(words.map((w) => [w, own.get(w) ?? fetched.get(w) ?? this.cache.get(w)!]));
  }

  /** How many vectors are kept. */
  get size(): number {
    return this.cache.size;
  }
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

type AskedTerm = Omit<SupportTerm, 'found' | 'similar'>;

/** The verdict when there is no passage: everything asked is missing. */
function noPassages(asked: AskedTerm[]): SupportVerdict {
  return {
    passed: false,
    missing: asked.map((t) => t.text),
    coverage: 0,
    terms: asked.map((t) => ({ ...t, found: false })),
    supporting: [],
    lacks: { names: asked.filter((t) => t.kind !== 'word').length, topic: false, nothingAsked: false, rareNouns: 0, missingWeight: 0 },
  };
}

/**
 * For each content word of the question that a passage lacks as such, the passage's closest word by vector (in
 * `similar`). Only content words: a name's neighbours are other names (France is close to Germany).
 */
async function addCloseWords(found: SupportTerm[][], each: PassageWords[], lexicon: Lexicon, vectors: WordVectorCache): Promise<void> {
  const openWords = [...new Set(found.flatMap((terms) => terms.filter((t) => t.kind === 'word' && !t.found).map((t) => t.text.toLowerCase())))].filter((w) =>
    lexicon.has(w),
  );
  if (!openWords.length) return;
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

/** How one passage's terms are judged: covered (as such or by a close word), and whether a name is found everywhere. */
interface Judge {
  covered: (t: SupportTerm) => boolean;
  everywhere: (name: string) => boolean;
  settings: SupportSettings;
}

/**
 * Required terms a passage lacks: names and numbers, rare nouns, and the topic of "what did X say about Y": a
 * passage that holds none of Y's nouns ("What did Kennedy say about the moon?") is about something else, however
 * well it matches X. With them, what the passage lacks by kind (`lacks`, for the support gate).
 */
function required(terms: SupportTerm[], { covered, everywhere, settings }: Judge): { terms: SupportTerm[]; lacks: SupportLacks } {
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
}

/** One passage's verdict, and how many required terms it lacks. */
function passageVerdict(terms: SupportTerm[], judge: Judge): { verdict: Omit<SupportVerdict, 'supporting'>; lacking: number } {
  const { covered, settings } = judge;
  const counted = terms.filter((t) => !t.inTitleOnly);
  const total = counted.reduce((s, t) => s + t.weight, 0);
  const coverage = total ? counted.filter(covered).reduce((s, t) => s + t.weight, 0) / total : 1;
  const needed = required(terms, judge);
  const missingNames = needed.terms.map((t) => t.text);
  return {
    verdict: {
      passed: missingNames.length === 0 && coverage >= settings.minCoverage,
      missing: [...missingNames, ...terms.filter((t) => t.kind === 'word' && !covered(t) && !missingNames.includes(t.text)).map((t) => t.text)],
      coverage: Math.round(coverage * 1e4) / 1e4,
      terms,
      lacks: needed.lacks,
    },
    lacking: missingNames.length,
  };
}

/**
 * The best passage lacks the fewest names and numbers (the question's most specific content), then the fewest
 * required terms, then covers the most: a passage that names DFDS but not "operations" is closer to the question
 * than one that has "operations" and never names DFDS.
 */
function bestPassage(judged: { verdict: Omit<SupportVerdict, 'supporting'>; lacking: number }[]): number {
  const rank = (i: number) => [judged[i]!.verdict.lacks.names, judged[i]!.lacking, -judged[i]!.verdict.coverage];
  const better = (i: number, b: number) => {
    const [x, y] = [rank(i), rank(b)];
    const k = x.findIndex((v, j) => v !== y[j]);
    return k >= 0 && x[k]! < y[k]!;
  };
  return judged.reduce((b, _, i) => (better(i, b) ? i : b), 0);
}

/**
 * The verdict of the best single passage (a file name counts as part of its passages): the key content must come
 * together somewhere, not be scattered over several passages ("capital" in one, "France" in another).
 */
export async function checkSupport(
  question: string,
  tagged: Pick<QuestionNlp, 'entities' | 'nouns'>,
  /** With `parts`, a passage's words are those of its parts (each read once and remembered: windows share sentences). */
  passages: { text: string; source: string; parts?: string[]; heading?: string }[],
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
  if (!passages.length) return noPassages(asked);
  const each = passages.map((p) => (p.parts ? unionOf(p.parts, lexicon) : passageWords(p.text)));
  const titles = passages.map((p) => {
    // The file name's words and the document's heading: a question that names the document by either is met there.
    const title = p.heading ? `${titleWords(p.source)} ${p.heading}` : titleWords(p.source);
    return withTitleInitials(passageWords(title), title);
  });
  const found = each.map((p, i) =>
    asked.map((t): SupportTerm => {
      // A document's own slip ("AMQP protcol") still holds the question's word.
      if (foundIn(t, p, expanded, lexicon)) return { ...t, found: true };
      return foundIn(t, titles[i]!, expanded) ? { ...t, found: true, inTitleOnly: true } : { ...t, found: false };
    }),
  );
  if (vectors) await addCloseWords(found, each, lexicon, vectors);
  const covered = (t: SupportTerm) => t.found || (t.similar?.similarity ?? -1) >= settings.minSimilarity;
  const judged = found.map((terms) => passageVerdict(terms, { covered, everywhere, settings }));
  const best = bestPassage(judged);
  return { ...judged[best]!.verdict, supporting: judged.map((j) => j.verdict.passed) };
}
