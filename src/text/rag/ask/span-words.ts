// One sentence's words as the span ranker measures every span of it (span-features.ts): each word's likeness to the
// question's head noun, verbs and words, its match with the words either side of the wh-phrase, its depth in
// parentheses, and where the question's words stand in the sentence.
import { type Span, TYPED, type Term, spansOf } from './extractive.js';
import { type QuestionInfo, type QuestionWord, lowerWord } from './reader-question.js';
import { COMMON_ROWS } from './sentence-features.js';
import type { WordTable } from './word-vectors.js';

/** The largest of xs[from..to) (0 for an empty range; the range is clipped to the sentence). */
export function maxIn(xs: number[], from: number, to: number): number {
  let m = 0;
  for (let i = Math.max(0, from); i < Math.min(xs.length, to); i++) m = Math.max(m, xs[i]!);
  return m;
}

/** Words either side of a span that the alignment features look at. */
export const WINDOW = 6;

/** One sentence's words as every span of it is measured: per word, its likeness to the question's words. */
export interface SentenceWords {
  terms: Term[];
  q: QuestionInfo;
  /** Likeness to the head noun, to the question's verbs (verbs only) and to its content words. */
  headSim: number[];
  verbSim: number[];
  questionSim: number[];
  /** How well each word stands for each context word of the question, left and right of its wh-phrase. */
  leftMatch: number[][];
  rightMatch: number[][];
  /** Open parentheses before each word (a span inside brackets is an aside, rarely the answer). */
  depth: number[];
  /** The question's words in the sentence, weighted by rarity (the head noun three times). */
  anchors: { at: number; weight: number }[];
  totalAnchor: number;
  runs: Span[];
  wanted: Record<string, number> | null;
}

function parenthesisDepth(terms: Term[]): number[] {
  const depth: number[] = [];
  let open = 0;
  for (const t of terms) {
    open += (t.pre.match(/\(/g) ?? []).length;
    depth.push(open);
    open = Math.max(0, open - (t.post.match(/\)/g) ?? []).length);
  }
  return depth;
}

export function sentenceWords(terms: Term[], q: QuestionInfo, table: WordTable): SentenceWords {
  const rows = terms.map((t) => table.row(lowerWord(t)));
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
  const questionSim = terms.map((t, i) =>
    t.stem && q.stems.has(t.stem) ? 1 : rows[i]! < COMMON_ROWS ? 0 : Math.max(0, ...q.words.map((w) => table.similarity(w.row, rows[i]!))),
  );
  const anchors: { at: number; weight: number }[] = [];
  terms.forEach((t, i) => {
    if (t.stem && q.stems.has(t.stem)) anchors.push({ at: i, weight: (q.weight.get(t.stem) ?? 0) * (t.stem === q.head ? 3 : 1) });
  });
  return {
    terms,
    q,
    headSim,
    verbSim,
    questionSim,
    leftMatch: q.leftContext.map(matchOf),
    rightMatch: q.rightContext.map(matchOf),
    depth: parenthesisDepth(terms),
    anchors,
    totalAnchor: anchors.reduce((a, b) => a + b.weight, 0) || 1,
    runs: spansOf(terms, q.stems),
    wanted: q.type === 'other' ? null : TYPED[q.type],
  };
}
