// The shipped sentiment model on everyday text (reviews, comments, plain statements) as well as financial news: the
// /sentiment page invites "a news item, a filing, a review". Sentences written for this test, not taken from any
// training set; grouped by kind of text so that a failure names a kind, not a sentence.
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { DEFAULT_TEXT_MODELS, type TextClassifier, loadClassifier } from '../../src/text/models.js';

type Scores = { label: string; score: number }[];

const KINDS: { kind: string; label: 'positive' | 'negative' | 'neutral'; texts: string[] }[] = [
  {
    kind: 'clear praise in a review or comment',
    label: 'positive',
    texts: [
      'I love this movie, it was absolutely wonderful!',
      'The waiter was friendly and the pasta was delicious, we will definitely come back.',
      'What a great concert, the band sounded amazing all night.',
      'This blender works perfectly and was worth every penny.',
      'Thank you so much for your help, you made my day!',
    ],
  },
  {
    kind: 'clear complaint in a review or comment',
    label: 'negative',
    texts: [
      'The hotel room was dirty and the staff were rude.',
      'I am so angry and disgusted by this terrible service.',
      'The phone broke after two days and support never answered my emails.',
      'Worst pizza I have ever had, cold and soggy.',
      'The film was boring and far too long, a complete waste of time.',
    ],
  },
  {
    kind: 'plain everyday statement of fact',
    label: 'neutral',
    texts: [
      'The library opens at nine on weekdays.',
      'The train to Leeds leaves from platform four.',
      'She moved to a new apartment last month.',
      'The meeting has been moved to Thursday afternoon.',
      'The recipe calls for two cups of flour and one egg.',
    ],
  },
  {
    kind: 'good financial news',
    label: 'positive',
    texts: [
      'Quarterly revenue climbed 18% and the company raised its full-year guidance.',
      'The retailer posted record profits and increased its dividend.',
      'Shares surged after the firm won a large government contract.',
    ],
  },
  {
    kind: 'bad financial news',
    label: 'negative',
    texts: [
      'The carmaker swung to a net loss and cut its outlook for the year.',
      'Shares plunged after the bank disclosed higher loan write-offs.',
      'The airline will lay off 2,000 workers as bookings collapse.',
    ],
  },
  {
    kind: 'neutral financial statement',
    label: 'neutral',
    texts: [
      'The company will publish its third-quarter results on 24 October.',
      'The firm is headquartered in Oslo and employs about 1,200 people.',
      'The bond matures in 2031 and pays interest twice a year.',
    ],
  },
];

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
