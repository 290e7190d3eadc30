// Guardrail 2b, support: an answer is given only when the kept passages contain the question's key content. Every
// name and number of the question must occur in them (or in a passage's file name), and most of its content words,
// weighted by how rare they are in general English, must occur too: by stem, or as a word whose vector is close.
import { bm25Tokens } from '../../search/bm25.js';
import type { Entities } from './rewrite.js';
import type { Lexicon } from './lexicon.js';

export interface SupportSettings {
  /** Share of the content words' rarity weight that the passages must cover. */
  minCoverage: number;
  /** Cosine similarity at which a passage word counts as a close equivalent of a question word. */
  minSimilarity: number;
}

/** Chosen on SQuAD's odd-numbered articles (scripts/eval-support.ts; docs/text.md). */
export const DEFAULT_SUPPORT: SupportSettings = { minCoverage: 0.5, minSimilarity: 0.6 };

export interface SupportTerm {
  text: string;
  kind: 'name' | 'number' | 'word';
  weight: number;
  /** Found as such (same stem, or the same name or number). */
  found: boolean;
  /** The closest passage word, for a word not found as such (when word vectors are available). */
  similar?: { word: string; similarity: number };
}

export interface SupportVerdict {
  passed: boolean;
  /** Names and numbers absent from the passages, then the content words not covered. */
  missing: string[];
  /** Covered share of the content words' weight (1 without content words). */
  coverage: number;
  terms: SupportTerm[];
}

/** Vectors of single words (unit length; a word the model does not know may get a zero vector). */
export type WordVectors = (words: string[]) => Promise<number[][]>;

/** Words that frame a question rather than say what it is about. */
const FRAME = new Set(
  bm25Tokens(
    'say said says tell told describe described explain explained mention mentioned name named call called mean meant ' +
      'happen happened think thought talk talked speak spoke address addressed discuss discussed according kind type example',
  ),
);

/** Rarity in general English, 0.2 to 1: log of the frequency rank against a 20,000-word scale; unknown words 1. */
export function rarity(word: string, lexicon: Lexicon): number {
  const rank = lexicon.rank(word.toLowerCase());
  if (rank === undefined) return 1;
  return Math.max(0.2, Math.min(1, Math.log(rank + 2) / Math.log(20_000)));
}

/** A source path as words: "1964_lyndon_b_johnson_d.txt" -> "lyndon b johnson d". */
const titleWords = (source: string) => source.replace(/\.[a-z]+$/i, '').replace(/[^\p{L}\p{N}]+/gu, ' ');

const WORD = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu;

/** The question's names (capitalised words after the first, and the entity extractor's), numbers and content words. */
export function questionTerms(question: string, entities: Entities, lexicon: Lexicon): Omit<SupportTerm, 'found' | 'similar'>[] {
  const named = new Set([entities.people, entities.places, entities.organizations].flat().flatMap((e) => e.toLowerCase().match(WORD) ?? []));
  const terms: Omit<SupportTerm, 'found' | 'similar'>[] = [];
  const seen = new Set<string>();
  for (const [i, token] of [...question.matchAll(WORD)].map((m) => m[0]).entries()) {
    const lower = token.toLowerCase();
    const stems = bm25Tokens(token);
    if (seen.has(lower)) continue;
    seen.add(lower);
    if (/^\d/.test(token)) terms.push({ text: token, kind: 'number', weight: 1 });
    else if (!stems.length) continue;
    else if ((i > 0 && /^\p{Lu}/u.test(token)) || named.has(lower)) terms.push({ text: token, kind: 'name', weight: 1 });
    else if (!stems.every((s) => FRAME.has(s))) terms.push({ text: token, kind: 'word', weight: rarity(token, lexicon) });
  }
  return terms;
}

/** Keeps a bounded number of word vectors across questions (the words of a collection recur). */
export class WordVectorCache {
  private cache = new Map<string, number[]>();
  constructor(
    private readonly vectors: WordVectors,
    private readonly limit = 50_000,
  ) {}

  async get(words: string[]): Promise<Map<string, number[]>> {
    const missing = [...new Set(words.filter((w) => !this.cache.has(w)))];
    for (let i = 0; i < missing.length; i += 256) {
      const part = missing.slice(i, i + 256);
      const vs = await this.vectors(part);
      part.forEach((w, j) => {
        if (this.cache.size >= this.limit) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(w, vs[j]!);
      });
    }
    return new Map(words.map((w) => [w, this.cache.get(w)!]));
  }
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/** A name's other forms share its first five letters (Britain, British; Lutheran, Luther): a name of 5+ letters matches by that prefix. */
const PREFIX = 5;

export async function checkSupport(
  question: string,
  entities: Entities,
  passages: { text: string; source: string }[],
  lexicon: Lexicon,
  settings: SupportSettings = DEFAULT_SUPPORT,
  vectors?: WordVectorCache,
  /** Abbreviations the rewriting expanded (expansion -> abbreviation): the passages may use either. */
  expanded: Record<string, string> = {},
): Promise<SupportVerdict> {
  const text = passages.map((p) => `${p.text}\n${titleWords(p.source)}`).join('\n');
  const stems = new Set(bm25Tokens(text));
  const words = new Set((text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/['’]s$/, '')));
  const prefixes = new Set([...words].filter((w) => w.length >= PREFIX).map((w) => w.slice(0, PREFIX)));
  const viaAbbreviation = new Set(
    Object.entries(expanded)
      .filter(([, abbr]) => words.has(abbr.toLowerCase().replace(/\.$/, '')))
      .flatMap(([full]) => full.toLowerCase().match(WORD) ?? []),
  );
  const terms: SupportTerm[] = questionTerms(question, entities, lexicon).map((t) => {
    const lower = t.text.toLowerCase().replace(/['’]s$/, '');
    if (t.kind === 'number') return { ...t, found: words.has(lower) };
    const found =
      words.has(lower) ||
      viaAbbreviation.has(lower) ||
      bm25Tokens(t.text).every((s) => stems.has(s)) ||
      (t.kind === 'name' && lower.length >= PREFIX && prefixes.has(lower.slice(0, PREFIX)));
    return { ...t, found };
  });
  // Close equivalents only for content words (a name's neighbours are other names: France is close to Germany).
  const open = terms.filter((t) => t.kind === 'word' && !t.found && lexicon.has(t.text.toLowerCase()));
  if (vectors && open.length) {
    const candidates = [...words].filter((w) => lexicon.has(w) && /^\p{L}+$/u.test(w) && bm25Tokens(w).length);
    const table = await vectors.get([...open.map((t) => t.text.toLowerCase()), ...candidates]);
    for (const t of open) {
      const q = table.get(t.text.toLowerCase())!;
      let best = { word: '', similarity: -1 };
      for (const w of candidates) {
        const s = dot(q, table.get(w)!);
        if (s > best.similarity) best = { word: w, similarity: Math.round(s * 1e4) / 1e4 };
      }
      if (best.word) t.similar = best;
    }
  }
  const covered = (t: SupportTerm) => t.found || (t.similar?.similarity ?? -1) >= settings.minSimilarity;
  const content = terms.filter((t) => t.kind === 'word');
  const total = content.reduce((s, t) => s + t.weight, 0);
  const coverage = total ? content.filter(covered).reduce((s, t) => s + t.weight, 0) / total : 1;
  const missingNames = terms.filter((t) => t.kind !== 'word' && !t.found).map((t) => t.text);
  const missingWords = content.filter((t) => !covered(t)).map((t) => t.text);
  return {
    passed: missingNames.length === 0 && coverage >= settings.minCoverage,
    missing: [...missingNames, ...missingWords],
    coverage: Math.round(coverage * 1e4) / 1e4,
    terms,
  };
}
