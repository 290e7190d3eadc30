// The sentiment model's data: training examples per source, the development slices that every choice (early
// stopping, temperature, class offsets) is made on and that the figures are reported on, and the PhraseBank sentences
// held out from every choice. Each data set's own train/dev split is used where it has one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../src/infra/paths.js';
import { type Example, readGoEmotionsSentiment, readPhrasebank, readSst2, readTweetEval, readTweets } from './data.js';
import { datasetsDir } from './dataset-files.js';
import { split } from './classifier-data.js';

export type SentimentSource = 'twitter' | 'phrasebank' | 'goemotions' | 'sst2' | 'everyday';

/**
 * Everyday texts written for training (train/sentiment/everyday.jsonl: reviews, complaints, messages and posts on
 * every topic, one JSON object a line with text, label and kind), by writers who saw no evaluation text. It has no
 * development split of its own: the sources' slices choose as before.
 */
export const EVERYDAY_TRAIN_FILE = join(PROJECT_ROOT, 'train', 'sentiment', 'everyday.jsonl');

function readEveryday(): Example[] {
  return readFileSync(EVERYDAY_TRAIN_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const { text, label } = JSON.parse(line) as { text: string; label: string };
      return { text, labels: [label] };
    });
}

/** A development slice and the figure it is judged by (the benchmark's own measure). */
export interface DevSlice {
  name: string;
  examples: Example[];
  metric: 'accuracy' | 'macro_recall';
}

export interface SentimentData {
  /** Training examples per source, in the order of `sourceNames`. */
  bySource: Example[][];
  sourceNames: SentimentSource[];
  /** Development slices: each counts the same in every choice. */
  selection: DevSlice[];
  /** Held-out sets: reported, never chosen on (the PhraseBank's 20% by agreement level). */
  tests: Record<string, Example[]>;
}

const FILES: Record<string, string[]> = {
  twitter: ['twitter_financial_news/sent_train.csv', 'twitter_financial_news/sent_valid.csv'],
  phrasebank: ['Sentences_AllAgree', 'Sentences_75Agree', 'Sentences_66Agree', 'Sentences_50Agree'].map((f) => `financial_phrasebank/${f}.txt`),
  goemotions: ['train.tsv', 'dev.tsv', 'emotions.txt', 'sentiment_mapping.json'].map((f) => `goemotions/${f}`),
  sst2: ['sst2/train.tsv', 'sst2/dev.tsv'],
  tweeteval: ['tweeteval/val_text.txt', 'tweeteval/val_labels.txt'],
};

/**
 * `sources` names the training sources (twitter, phrasebank, goemotions, sst2); `tweeteval` adds its validation
 * split as a development slice (it has no training split). The PhraseBank split is seeded by `seed` as it always was.
 */
export function loadSentimentData(dataDir: string, sources: Set<string>, seed: number): SentimentData {
  const data = datasetsDir(
    dataDir,
    [...sources].flatMap((s) => FILES[s] ?? []),
  );
  const bySource: Example[][] = [];
  const sourceNames: SentimentSource[] = [];
  const selection: DevSlice[] = [];
  const tests: Record<string, Example[]> = {};

  if (sources.has('twitter')) {
    bySource.push(readTweets(join(data, 'twitter_financial_news/sent_train.csv')));
    sourceNames.push('twitter');
    selection.push({ name: 'twitter_valid', examples: readTweets(join(data, 'twitter_financial_news/sent_valid.csv')), metric: 'accuracy' });
  }
  if (sources.has('phrasebank')) {
    const dir = join(data, 'financial_phrasebank');
    // Files are nested (AllAgree in 75Agree in 66Agree in 50Agree); each sentence keeps its highest level.
    const levels = ['AllAgree', '75Agree', '66Agree', '50Agree'] as const;
    const level = new Map<string, string>();
    for (const l of [...levels].reverse()) for (const e of readPhrasebank(dir, l)) level.set(e.text, l);
    // Label noise: a sentence counts as much as its annotators agreed (all 1, at least 75% 0.75, 66% 0.66, 50% 0.5).
    const agreement: Record<string, number> = { AllAgree: 1, '75Agree': 0.75, '66Agree': 0.66, '50Agree': 0.5 };
    const unique = [...new Map(readPhrasebank(dir, '50Agree').map((e) => [e.text, { ...e, weight: agreement[level.get(e.text)!] }])).values()];
    const { train: pbTrain, test: pbTest } = split(unique, 0.2, seed);
    const { train: pbFit, test: pbDev } = split(pbTrain, 0.1, seed + 1);
    const atLeast = (l: string) => levels.slice(0, levels.indexOf(l as (typeof levels)[number]) + 1);
    bySource.push(pbFit);
    sourceNames.push('phrasebank');
    selection.push({ name: 'phrasebank_dev', examples: pbDev.map(({ weight: _w, ...e }) => e), metric: 'accuracy' });
    for (const l of levels) tests[`phrasebank_${l}`] = pbTest.filter((e) => atLeast(l).includes(level.get(e.text) as (typeof levels)[number]));
  }
  if (sources.has('goemotions')) {
    const dir = join(data, 'goemotions');
    // Training keeps single-label comments and multi-label ones whose emotions all fall in one group; the official
    // dev.tsv's single-label comments are the development slice (as the figure is usually reported).
    bySource.push(readGoEmotionsSentiment(dir, 'train', 'unanimous'));
    sourceNames.push('goemotions');
    selection.push({ name: 'goemotions_dev_single', examples: readGoEmotionsSentiment(dir, 'dev', 'single'), metric: 'accuracy' });
  }
  if (sources.has('sst2')) {
    // Two classes: the loss and the prediction compare the positive and negative logits only (Example.allowed).
    bySource.push(readSst2(join(data, 'sst2/train.tsv')));
    sourceNames.push('sst2');
    selection.push({ name: 'sst2_dev', examples: readSst2(join(data, 'sst2/dev.tsv')), metric: 'accuracy' });
  }
  if (sources.has('everyday')) {
    bySource.push(readEveryday());
    sourceNames.push('everyday');
  }
  if (sources.has('tweeteval')) {
    selection.push({ name: 'tweeteval_validation', examples: readTweetEval(join(data, 'tweeteval')), metric: 'macro_recall' });
  }
  if (bySource.length === 0) throw new Error('--sources must name twitter, phrasebank, goemotions, sst2 and/or everyday');
  return { bySource, sourceNames, selection, tests };
}

/**
 * Training examples with weights: each source's examples together weigh `shares[source]` (relative to the other
 * sources) whatever its size; within a source an example keeps its own weight (PhraseBank agreement). With
 * `balancePerSource`, a class within a source is also weighed by 1/sqrt(its share of the source), the source's total
 * unchanged (the sources' class mixes differ: tweets 65% neutral, comments 42% positive).
 */
export function weighted(d: SentimentData, shares: Partial<Record<SentimentSource, number>>, balancePerSource = false): Example[] {
  const share = d.sourceNames.map((s) => shares[s] ?? 1);
  const mass = (examples: Example[]) => examples.reduce((s, e) => s + (e.weight ?? 1), 0);
  const total = mass(d.bySource.flat());
  const shareSum = share.reduce((a, b) => a + b, 0);
  return d.bySource.flatMap((examples, i) => {
    let source = examples;
    if (balancePerSource) {
      const byClass = new Map<string, number>();
      for (const e of examples) byClass.set(e.labels[0]!, (byClass.get(e.labels[0]!) ?? 0) + (e.weight ?? 1));
      const m0 = mass(examples);
      const factor = (e: Example) => 1 / Math.sqrt(byClass.get(e.labels[0]!)! / m0);
      source = examples.map((e) => ({ ...e, weight: (e.weight ?? 1) * factor(e) }));
    }
    const m = mass(source);
    return source.map((e) => ({ ...e, weight: ((e.weight ?? 1) * total * share[i]!) / (shareSum * m) }));
  });
}

/**
 * Training examples weighed by a multiplier per source, on top of their natural numbers (SST-2's 67,000 phrases
 * stay the largest part): an example weighs `multipliers[source]` x its own weight (PhraseBank agreement) x, within
 * its source, 1/sqrt(its class's share) normalised to a mean of 1. Weights stay within a small range, unlike equal
 * shares, where a PhraseBank sentence weighed about 25 SST-2 phrases and the small sources were overfitted first.
 */
export function multiplied(d: SentimentData, multipliers: Partial<Record<SentimentSource, number>>): Example[] {
  return d.bySource.flatMap((examples, i) => {
    const byClass = new Map<string, number>();
    for (const e of examples) byClass.set(e.labels[0]!, (byClass.get(e.labels[0]!) ?? 0) + 1);
    const factor = (e: Example) => 1 / Math.sqrt(byClass.get(e.labels[0]!)! / examples.length);
    const mean = examples.reduce((s, e) => s + factor(e), 0) / examples.length;
    const m = multipliers[d.sourceNames[i]!] ?? 1;
    return examples.map((e) => ({ ...e, weight: (m * (e.weight ?? 1) * factor(e)) / mean }));
  });
}
