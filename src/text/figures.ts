// Headline figures of the text domain's shipped models, for the landing page: held-out accuracy from the sentiment
// and emotion model cards, retrieval recall and question-answering F1 from the stored evaluation results
// (docs/results/, written by `npm run eval:retrieval` and `npm run eval:qa`). A figure is given only while the
// configured model is the one it was measured on: a Hub model or another directory has no figure here.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT, fromRoot } from '../infra/paths.js';

export interface TextFigureConfig {
  SENTIMENT_MODEL: string;
  EMOTION_MODEL: string;
  EMBEDDING_MODEL: string;
  READER_MODEL?: string | undefined;
  RAG_SEMANTIC_WEIGHT: number;
  RAG_SCORE_NORMALISATION: string;
}

export interface Figure {
  /** What was measured, in words. */
  label: string;
  /** A share in [0, 1]. */
  value: number;
  /** How to show it: a percentage (accuracy, recall) or a score with two decimals (F1). */
  kind: 'percent' | 'score';
  /** Where it was read from, relative to the project root. */
  source: string;
}

const SHIPPED = {
  sentiment: 'models/text/sentiment',
  emotion: 'models/text/emotion',
  embedder: 'models/text/embedder',
};

/** Model cards and stored results, read once: they change only with a new version (or a re-run and a restart). */
const read = new Map<string, Record<string, unknown> | null>();
function readJson(relative: string): Record<string, unknown> | null {
  if (!read.has(relative)) {
    const path = join(PROJECT_ROOT, relative);
    let parsed: Record<string, unknown> | null = null;
    try {
      if (existsSync(path)) parsed = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch {
      parsed = null;
    }
    read.set(relative, parsed);
  }
  return read.get(relative)!;
}

/** Follows a path of keys into parsed JSON; undefined when any step is missing or the end is not a finite number. */
function numberAt(obj: unknown, ...keys: string[]): number | undefined {
  let cur = obj;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return typeof cur === 'number' && Number.isFinite(cur) ? cur : undefined;
}

const isShipped = (configured: string, shipped: string) => fromRoot(configured) === fromRoot(shipped);

function push(out: Figure[], label: string, value: number | undefined, source: string, kind: Figure['kind'] = 'percent') {
  if (value !== undefined) out.push({ label, value, source, kind });
}

/** "sentiment accuracy on financial tweets 81.4%, on financial news 83.1%": the figures in words, in order. */
export function figuresInWords(figures: Figure[]): string {
  const words = figures.map((f) => `${f.label} ${f.kind === 'percent' ? `${(f.value * 100).toFixed(1)}%` : f.value.toFixed(2)}`).join(', ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A kind of text the shipped sentiment model reads wrong more often than right. */
export interface WeakSpot {
  kind: string;
  right: number;
  texts: number;
}

/**
 * The kinds of everyday text the shipped sentiment model misreads, measured by `npm run eval:sentiment`
 * (docs/results/sentiment-everyday.json): those with fewer than half of their sentences read right. None for another
 * model, which was not measured.
 */
export function sentimentWeakSpots(config: Pick<TextFigureConfig, 'SENTIMENT_MODEL'>): WeakSpot[] {
  if (!isShipped(config.SENTIMENT_MODEL, SHIPPED.sentiment)) return [];
  const results = readJson('docs/results/sentiment-everyday.json')?.results as { kinds?: unknown } | undefined;
  if (!Array.isArray(results?.kinds)) return [];
  return (results.kinds as Partial<WeakSpot>[])
    .filter((k): k is WeakSpot => typeof k.kind === 'string' && typeof k.right === 'number' && typeof k.texts === 'number')
    .filter((k) => k.right * 2 < k.texts)
    .map(({ kind, right, texts }) => ({ kind, right, texts }));
}

/**
 * How many of the everyday texts written separately to test it (eval/sentiment/everyday-2-*.json: both halves, by a
 * writer who saw neither the model nor its training data) the shipped sentiment model reads right; null for another
 * model, or when a half was not measured.
 */
export function sentimentEveryday(config: Pick<TextFigureConfig, 'SENTIMENT_MODEL'>): { right: number; texts: number } | null {
  if (!isShipped(config.SENTIMENT_MODEL, SHIPPED.sentiment)) return null;
  let right = 0;
  let texts = 0;
  for (const half of ['dev', 'test']) {
    const r = readJson(`docs/results/sentiment-everyday-2-${half}.json`)?.results as { right?: unknown; total?: unknown } | undefined;
    if (typeof r?.right !== 'number' || typeof r.total !== 'number') return null;
    right += r.right;
    texts += r.total;
  }
  return { right, texts };
}

/** What the shipped sentiment model reads well and poorly, in whole percent from its model card; null for another model. */
export interface SentimentReading {
  /** Movie-review sentences, positive against negative (SST-2 dev). */
  reviews: number;
  /** Financial tweets (their validation split) and financial news sentences (PhraseBank, all annotators agree). */
  financialTweets: number;
  news: number;
  /** Reddit comments (GoEmotions dev, single label). */
  comments: number;
  /** Tweets on every topic (TweetEval validation): macro-averaged recall. */
  tweets: number;
}

export function sentimentReading(config: Pick<TextFigureConfig, 'SENTIMENT_MODEL'>): SentimentReading | null {
  if (!isShipped(config.SENTIMENT_MODEL, SHIPPED.sentiment)) return null;
  const card = readJson(`${SHIPPED.sentiment}/model-card.json`);
  const pct = (set: string, figure = 'accuracy') => numberAt(card, 'metrics', set, figure);
  const values = {
    reviews: pct('sst2_dev'),
    financialTweets: pct('twitter_valid'),
    news: pct('phrasebank_AllAgree'),
    comments: pct('goemotions_dev_single'),
    tweets: pct('tweeteval_validation', 'macro_recall'),
  };
  if (Object.values(values).some((v) => v === undefined)) return null;
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Math.round(v! * 100)])) as unknown as SentimentReading;
}

/** Accuracy of the shipped sentiment model, then of the shipped emotion model (their model cards). */
export function sentimentFigures(config: TextFigureConfig): Figure[][] {
  const out: Figure[] = [];
  const emotion: Figure[] = [];
  if (isShipped(config.SENTIMENT_MODEL, SHIPPED.sentiment)) {
    const source = `${SHIPPED.sentiment}/model-card.json`;
    const card = readJson(source);
    // General text first, where the model is weakest; then the financial sources it was first built for. Every split
    // here takes part in the model's choices: development figures, not held-out ones.
    push(out, 'sentiment accuracy on movie-review sentences (SST-2, development split)', numberAt(card, 'metrics', 'sst2_dev', 'accuracy'), source);
    push(
      out,
      'macro-averaged recall on tweets on every topic (TweetEval, validation split)',
      numberAt(card, 'metrics', 'tweeteval_validation', 'macro_recall'),
      source,
    );
    push(out, 'accuracy on financial tweets (development split)', numberAt(card, 'metrics', 'twitter_valid', 'accuracy'), source);
    push(out, 'on financial news sentences (all annotators agree)', numberAt(card, 'metrics', 'phrasebank_AllAgree', 'accuracy'), source);
    push(out, 'on everyday comments (GoEmotions)', numberAt(card, 'metrics', 'goemotions_dev_single', 'accuracy'), source);
  }
  if (isShipped(config.EMOTION_MODEL, SHIPPED.emotion)) {
    const source = `${SHIPPED.emotion}/model-card.json`;
    push(
      emotion,
      'emotion accuracy on held-out comments (GoEmotions, seven emotions)',
      numberAt(readJson(source), 'metrics', 'goemotions_dev', 'accuracy'),
      source,
    );
  }
  return [out, emotion].filter((group) => group.length > 0);
}

/**
 * Retrieval recall@5 of hybrid search at the configured weight on SQuAD questions the models did not learn from, and
 * the extractive pipeline's strict share right on the held-out halves of the evaluation collections.
 */
export function questionAnsweringFigures(config: TextFigureConfig): Figure[] {
  const out: Figure[] = [];
  if (!isShipped(config.EMBEDDING_MODEL, SHIPPED.embedder)) return out;
  const retrievalSource = 'docs/results/eval-retrieval.json';
  const retrieval = readJson(retrievalSource);
  const retrievers = (retrieval?.results as { retrievers?: Record<string, unknown> } | undefined)?.retrievers ?? {};
  const hybrid = `hybrid, weight ${config.RAG_SEMANTIC_WEIGHT}, ${config.RAG_SCORE_NORMALISATION} normalisation`;
  push(
    out,
    'retrieval: the passage holding the answer is among the first five',
    numberAt(retrievers, `${hybrid}, held-out half`, 'recall_at_5') ?? numberAt(retrievers, hybrid, 'recall_at_5'),
    retrievalSource,
  );
  if (!config.READER_MODEL) {
    // The held-out halves of the evaluation collections, scored strictly (SQuAD's odd half took part in the reader's
    // choices, so it is no held-out figure).
    const qaSource = 'docs/results/qa-collections-test.json';
    push(
      out,
      'questions about other collections answered right or rightly refused (held-out, strict)',
      numberAt(readJson(qaSource), 'results', 'mean_share_right'),
      qaSource,
    );
  }
  return out;
}
