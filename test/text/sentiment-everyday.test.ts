// The shipped sentiment model on everyday text (reviews, comments, plain statements) as well as financial news: the
// /sentiment page invites "a news item, a filing, a review". Sentences written for this test (in
// eval/sentiment/everyday.json), not taken from any training set; grouped by kind of text so that a failure names a
// kind, not a sentence.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { tempDir } from '../helpers/app.js';
import { DEFAULT_TEXT_MODELS, type TextClassifier, loadClassifier } from '../../src/text/models.js';

type Scores = { label: string; score: number }[];

/** The test's sentences, kept with the wider evaluation's in eval/sentiment/everyday.json (`npm run eval:sentiment`). */
const KINDS = (
  JSON.parse(readFileSync(fromRoot('eval/sentiment/everyday.json'), 'utf8')) as {
    kinds: { kind: string; label: 'positive' | 'negative' | 'neutral'; texts: string[]; from: string }[];
  }
).kinds.filter((k) => k.from === 'test/text/sentiment-everyday.test.ts');

describe('shipped sentiment model on everyday and financial text', () => {
  let sentiment: TextClassifier;
  beforeAll(async () => {
    // A Hub that refuses every connection: the local directory never asks it.
    sentiment = await loadClassifier(DEFAULT_TEXT_MODELS.sentiment, { hub: { endpoint: 'http://127.0.0.1:9', cacheDir: tempDir('no-cache-') } });
  });

  const label = async (text: string) => ((await sentiment(text, { top_k: 1 })) as Scores)[0]!.label;

  // A kind of text is read right when most of its sentences are; the misses are listed in the failure message.
  it.each(KINDS)('$kind: most sentences read as $label', async ({ label: gold, texts }) => {
    const wrong: Record<string, string> = {};
    for (const text of texts) {
      const got = await label(text);
      if (got !== gold) wrong[text] = got;
    }
    expect(Object.keys(wrong).length, JSON.stringify(wrong)).toBeLessThan(texts.length / 2);
  });

  it('at least 80% of all the sentences above are read right', async () => {
    const all = KINDS.flatMap(({ label: gold, texts }) => texts.map((text) => ({ text, gold })));
    // The six kinds written for this test, none lost from the file.
    expect(all).toHaveLength(24);
    let right = 0;
    for (const { text, gold } of all) if ((await label(text)) === gold) right++;
    expect(right / all.length).toBeGreaterThanOrEqual(0.8);
  });

  it.each([
    ['I love this movie, it was absolutely wonderful!', 'positive'],
    ['The hotel room was dirty and the staff were rude.', 'negative'],
    ['I am so angry and disgusted by this terrible service.', 'negative'],
  ])('the reported everyday misreadings are fixed: "%s" reads as %s', async (text, gold) => {
    expect(await label(text)).toBe(gold);
  });
});
