// Views of the sentiment benchmark files (npm run eval:sentiment -- --benchmarks: the shipped model's and any other
// model's figures on the development splits, in one shape), for results-docs.ts. Each row of docs/text.md's table
// is a marker: `<key>` gives the figure alone, `<key>_vs_target` the figure, a cell separator and its target's verdict.
import type { ResultsEnvelope } from './results.js';

type Results = ResultsEnvelope<unknown>;

interface Figures {
  n: number;
  accuracy: number;
  macro_recall: number;
}
interface SentimentBenchmarks {
  everyday: { right: number; total: number };
  sentiment: Record<string, Figures>;
}

/** What each row reads, and its target (none for the rows shown for context). */
const ROWS: Record<string, { set: string; figure: 'accuracy' | 'macro_recall'; atLeast?: number }> = {
  sst2: { set: 'sst2_dev', figure: 'accuracy', atLeast: 0.85 },
  tweeteval: { set: 'tweeteval_validation', figure: 'macro_recall', atLeast: 0.65 },
  twitter: { set: 'twitter_valid', figure: 'accuracy', atLeast: 0.8 },
  phrasebank: { set: 'phrasebank_AllAgree', figure: 'accuracy', atLeast: 0.85 },
  phrasebank_all: { set: 'phrasebank_50Agree', figure: 'accuracy' },
  goemotions: { set: 'goemotions_dev_single', figure: 'accuracy', atLeast: 0.7 },
};
const EVERYDAY_TARGET = 38;

const verdict = (value: number, atLeast: number | undefined, shown: (n: number) => string) =>
  atLeast === undefined ? '' : `>= ${shown(atLeast)}: ${value >= atLeast ? 'met' : 'not met'}`;

function figureOf(r: Results, key: string): number {
  const row = ROWS[key]!;
  const set = (r.results as SentimentBenchmarks).sentiment[row.set];
  if (!set) throw new Error(`the results file has no figures for ${row.set}`);
  return set[row.figure];
}

const rowViews = Object.fromEntries(
  Object.entries(ROWS).flatMap(([key, row]) => [
    [key, (r: Results) => figureOf(r, key).toFixed(3)],
    [
      `${key}_vs_target`,
      (r: Results) => {
        const value = figureOf(r, key);
        // A row with a target shows its figure in bold; a row shown for context does not.
        const shown = row.atLeast === undefined ? value.toFixed(3) : `**${value.toFixed(3)}**`;
        return `${shown} | ${verdict(value, row.atLeast, String)}`;
      },
    ],
  ]),
);

export const sentimentBenchmarks: Record<string, (r: Results) => string> = {
  ...rowViews,
  everyday: (r) => String((r.results as SentimentBenchmarks).everyday.right),
  everyday_vs_target: (r) => {
    const { right, total } = (r.results as SentimentBenchmarks).everyday;
    return `**${right}** of ${total} | ${verdict(right, EVERYDAY_TARGET, String)}`;
  },
};

/** An everyday set's file (npm run eval:sentiment -- --texts ...): how many of its texts are read right. */
export const everydaySet: Record<string, (r: Results) => string> = {
  right: (r) => {
    const { right, total } = r.results as { right: number; total: number };
    return `${right} of ${total}`;
  },
};
