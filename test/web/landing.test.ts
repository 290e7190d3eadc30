// The landing page's headline figures: each comes from a model card or a stored evaluation result, read here
// independently of the code that renders them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { makeApp } from '../helpers/app.js';

const json = (path: string) => JSON.parse(readFileSync(fromRoot(path), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
/** The landing page's text with tags removed and whitespace collapsed. */
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('landing page headline figures', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp({ RAG_INDEX_ON_START: false });
  });
  afterAll(() => app.close());

  it('shows the accuracy of the shipped sentiment and emotion models, from their model cards', async () => {
    const page = text((await app.inject({ url: '/' })).body);
    const sentiment = json('models/text/sentiment/model-card.json').metrics;
    const emotion = json('models/text/emotion/model-card.json').metrics;
    expect(page).toContain(`movie-review sentences (SST-2, development split) ${percent(sentiment.sst2_dev.accuracy)}`);
    expect(page).toContain(`tweets on every topic (TweetEval, validation split) ${percent(sentiment.tweeteval_validation.macro_recall)}`);
    expect(page).toContain(`financial tweets (development split) ${percent(sentiment.twitter_valid.accuracy)}`);
    expect(page).toContain(`(all annotators agree) ${percent(sentiment.phrasebank_AllAgree.accuracy)}`);
    expect(page).toContain(`(GoEmotions) ${percent(sentiment.goemotions_dev_single.accuracy)}`);
    expect(page).toContain(`seven emotions) ${percent(emotion.goemotions_dev.accuracy)}`);
  });

  it('names on the sentiment page the kinds of everyday text the shipped model mostly misreads, from the stored measurement', async () => {
    const page = text((await app.inject({ url: '/sentiment' })).body);
    const kinds = json('docs/results/sentiment-everyday.json').results.kinds as { kind: string; right: number; texts: number }[];
    const weak = kinds.filter((k) => k.right < k.texts / 2);
    expect(weak.length).toBeGreaterThan(0);
    for (const k of weak) expect(page).toContain(`${k.kind} (${k.right} of ${k.texts} right)`);
    for (const k of kinds.filter((x) => x.right >= x.texts / 2)) expect(page).not.toContain(`${k.kind} (`);
  });

  it('gives on the sentiment page what the shipped model reads well and poorly, from its model card', async () => {
    const page = text((await app.inject({ url: '/sentiment' })).body);
    const m = json('models/text/sentiment/model-card.json').metrics;
    const whole = (share: number) => `${Math.round(share * 100)}%`;
    expect(page).toContain(`movie-review sentences (${whole(m.sst2_dev.accuracy)} right, positive against negative)`);
    expect(page).toContain(`(${whole(m.twitter_valid.accuracy)} of tweets, ${whole(m.phrasebank_AllAgree.accuracy)} of news sentences)`);
    expect(page).toContain(`Reddit comments (${whole(m.goemotions_dev_single.accuracy)})`);
    expect(page).toContain(`poorly (${whole(m.tweeteval_validation.macro_recall)} macro-averaged recall`);
    const [dev, test] = ['dev', 'test'].map((h) => json(`docs/results/sentiment-everyday-2-${h}.json`).results as { right: number; total: number });
    const right = dev!.right + test!.right;
    const texts = dev!.total + test!.total;
    expect(page).toContain(
      `Of ${texts} everyday texts (reviews, posts, messages, notices) written separately to test it, it reads ${right} right (${whole(right / texts)})`,
    );
    const other = await makeApp({ RAG_INDEX_ON_START: false, SENTIMENT_MODEL: 'Xenova/finbert' });
    try {
      expect(text((await other.inject({ url: '/sentiment' })).body)).not.toContain('movie-review sentences');
    } finally {
      await other.close();
    }
  });

  it('shows retrieval recall@5 and the strict share right on held-out questions about other collections, from the stored results', async () => {
    const page = text((await app.inject({ url: '/' })).body);
    const retrieval = json('docs/results/eval-retrieval.json').results.retrievers;
    const recall = retrieval['hybrid, weight 0.7, theoretical normalisation, held-out half'].recall_at_5 as number;
    expect(page).toContain(`among the first five ${percent(recall)}`);
    expect(page).toContain(`(held-out, strict) ${percent(json('docs/results/qa-collections-test.json').results.mean_share_right)}`);
  });

  it('shows the survival model cross-validated accuracy from its model card, and the state of an empty movie collection', async () => {
    const page = text((await app.inject({ url: '/' })).body);
    const cv = json('models/survival/model-card.json').cv_metrics.mean;
    expect(page).toContain(`Cross-validated accuracy ${percent(cv.accuracy)}`);
    expect(page).toContain('0 movies; no run yet');
  });

  it('gives no figure for a model it was not measured on', async () => {
    const other = await makeApp({ RAG_INDEX_ON_START: false, SENTIMENT_MODEL: 'Xenova/finbert' });
    try {
      const page = text((await other.inject({ url: '/' })).body);
      expect(page).not.toContain('financial tweets (development split)');
      expect(page).toContain('seven emotions)');
    } finally {
      await other.close();
    }
  });
});

describe('where the documents are, on the landing page', () => {
  it('names a folder outside the project by its last part and a model inside it by its relative path, never by a path on the server', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'landing-docs-'));
    const other = await makeApp({
      RAG_INDEX_ON_START: false,
      DOCS_DIR: folder,
      EMBEDDING_MODEL: fromRoot('models/text/embedder'),
      SENTIMENT_MODEL: fromRoot('models/text/sentiment'),
    });
    try {
      const page = text((await other.inject({ url: '/' })).body);
      expect(page).toContain(`Documents: ${basename(folder)};`);
      expect(page).toContain('embedder models/text/embedder;');
      expect(page).not.toContain(tmpdir());
      expect(page).toContain('Models: models/text/sentiment and');
      expect(page).not.toContain(fromRoot('models'));
    } finally {
      await other.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
