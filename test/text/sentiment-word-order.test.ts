// The shipped sentiment model reads word order: the same words negated or contrasted change the answer, and a text
// scores the same alone as in a padded batch of chunks (the service batches a long text's chunks). Sentences written
// for this test, labelled by what a reader would say; none is in the training data or the everyday evaluation set.
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { DEFAULT_TEXT_MODELS, type TextClassifier, loadClassifier } from '../../src/text/models.js';

type Scores = { label: string; score: number }[];

describe('shipped sentiment model: word order', () => {
  let sentiment: TextClassifier;
  beforeAll(async () => {
    sentiment = await loadClassifier(DEFAULT_TEXT_MODELS.sentiment, { hub: { endpoint: 'http://127.0.0.1:9', cacheDir: tempDir('no-cache-') } });
  });
  const label = async (text: string) => ((await sentiment(text, { top_k: 1 })) as Scores)[0]!.label;

  it.each([
    ['The concert was good.', 'positive', 'The concert was not good.', 'negative'],
    ['I liked the new menu.', 'positive', 'I did not like the new menu.', 'negative'],
    ['The sequel is worth watching.', 'positive', 'The sequel is not worth watching.', 'negative'],
  ])('negation turns "%s" (%s) into "%s" (%s)', async (plain, plainLabel, negated, negatedLabel) => {
    expect(await label(plain)).toBe(plainLabel);
    expect(await label(negated)).toBe(negatedLabel);
  });

  // A known limitation, measured: with praise before "but" and the complaint after it, the praise still wins. The
  // test fails once a model reads this right, so that the model card and docs/text.md are updated with it.
  it.fails('after "but", the second clause decides, whichever way round the same words come', async () => {
    expect(await label('The first hour drags, but the last act is wonderful.')).toBe('positive');
    expect(await label('The last act is wonderful, but the first hour drags and drags.')).toBe('negative');
  });

  it('scores a text the same alone as in a padded batch with a longer one', async () => {
    const short = 'Not my favourite, but the soup was lovely.';
    const long = `${'The staff were patient and the rooms were clean, although breakfast ended early. '.repeat(6)}Overall fine.`;
    const alone = (await sentiment(short, { top_k: null })) as Scores;
    const [inBatch] = (await sentiment([short, long], { top_k: null })) as unknown as Scores[];
    for (const { label: l, score } of alone) expect(inBatch!.find((s) => s.label === l)!.score).toBeCloseTo(score, 5);
  });
});
