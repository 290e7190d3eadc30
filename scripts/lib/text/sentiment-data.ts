// The sentiment model's data: training examples per source, the development slices that every choice is made on,
// and the held-out sets (only ever reported). Shared by the trainer and its development-only sweeps.
import { join } from 'node:path';
import { type Example, readGoEmotionsSentiment, readPhrasebank, readTweets } from './data.js';
import { split } from './train-classifier.js';

export type SentimentSource = 'twitter' | 'phrasebank' | 'goemotions';

export interface SentimentData {
  /** Training examples per source, in the order of `sourceNames`. */
  bySource: Example[][];
  sourceNames: SentimentSource[];
  /** The pooled development split and its per-source slices. */
  dev: Example[];
  devSlices: Record<string, Example[]>;
  /** Dev slices that count equally for early stopping, the temperature and every choice. */
  selectionSlices: string[];
  /** Held-out sets: reported, never chosen on. */
  tests: Record<string, Example[]>;
}

export function loadSentimentData(data: string, sources: Set<string>, seed: number): SentimentData {
  const bySource: Example[][] = [];
  const sourceNames: SentimentSource[] = [];
  const dev: Example[] = [];
  const tests: Record<string, Example[]> = {};
  const devSlices: Record<string, Example[]> = {};

  if (sources.has('twitter')) {
    const tweets = split(readTweets(join(data, 'twitter_financial_news/sent_train.csv')), 0.1, seed);
    bySource.push(tweets.train);
    sourceNames.push('twitter');
    dev.push(...tweets.test);
    devSlices.twitter = tweets.test;
    tests.twitter_valid = readTweets(join(data, 'twitter_financial_news/sent_valid.csv'));
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
    dev.push(...pbDev);
    devSlices.phrasebank_AllAgree = pbDev.filter((e) => level.get(e.text) === 'AllAgree');
    devSlices.phrasebank_all = pbDev;
    for (const l of levels) tests[`phrasebank_${l}`] = pbTest.filter((e) => atLeast(l).includes(level.get(e.text) as (typeof levels)[number]));
  }
  if (sources.has('goemotions')) {
    const dir = join(data, 'goemotions');
    // Training keeps single-label comments and multi-label ones whose emotions all fall in one group; 10% of train.tsv
    // is the development split. The official dev.tsv is held out (single-label comments, as usually reported).
    const ge = split(readGoEmotionsSentiment(dir, 'train', 'unanimous'), 0.1, seed + 2);
    bySource.push(ge.train);
    sourceNames.push('goemotions');
    dev.push(...ge.test);
    devSlices.goemotions = ge.test;
    // The development comments that carry one emotion: defined as the held-out set is.
    const single = new Set(readGoEmotionsSentiment(dir, 'train', 'single').map((e) => e.text));
    devSlices.goemotions_single = ge.test.filter((e) => single.has(e.text));
    tests.goemotions_dev_single = readGoEmotionsSentiment(dir, 'dev', 'single');
  }
  if (bySource.length === 0) throw new Error('--sources must name twitter, phrasebank and/or goemotions');
  const selectionSlices = ['twitter', 'phrasebank_all', 'goemotions'].filter((s) => s in devSlices);
  return { bySource, sourceNames, dev, devSlices, selectionSlices, tests };
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
