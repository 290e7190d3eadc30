import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { gruTokenizerJson } from '../../scripts/lib/text/gru-classifier.js';
import { tempDir } from '../helpers/app.js';
import { loadWordTable, tableVectors } from '../../src/text/rag/ask/word-vectors.js';
import { WordVectorCache } from '../../src/text/rag/ask/support.js';
import { DEFAULT_TEXT_MODELS, type TextClassifier, type TextEmbedder, loadClassifier, loadEmbedder } from '../../src/text/models.js';

type Scores = { label: string; score: number }[];
const top = async (clf: TextClassifier, text: string) => ((await clf(text, { top_k: 1 })) as Scores)[0]!.label;

describe('shipped compact text models, loaded through transformers.js from their directories', () => {
  let sentiment: TextClassifier;
  let emotion: TextClassifier;
  let embedder: TextEmbedder;
  beforeAll(async () => {
    // A Hub that refuses every connection: local directories never ask it.
    const hub = { endpoint: 'http://127.0.0.1:9', cacheDir: tempDir('no-cache-') };
    sentiment = await loadClassifier(DEFAULT_TEXT_MODELS.sentiment, { hub });
    emotion = await loadClassifier(DEFAULT_TEXT_MODELS.emotion, { hub });
    embedder = await loadEmbedder(DEFAULT_TEXT_MODELS.embedder, { hub });
  });

  it('sentiment: three labels whose scores sum to one, and the obvious cases', async () => {
    const all = (await sentiment('Profit rose 20% and beat expectations', { top_k: null })) as Scores;
    expect(all.map((s) => s.label).sort()).toEqual(['negative', 'neutral', 'positive']);
    expect(all.reduce((s, x) => s + x.score, 0)).toBeCloseTo(1, 5);
    expect(all[0]!.label).toBe('positive');
    expect(await top(sentiment, 'The company filed for bankruptcy')).toBe('negative');
    expect(await top(sentiment, 'Net sales fell sharply and the company warned of further losses')).toBe('negative');
    expect(await top(sentiment, 'Operating profit increased to EUR 13.1 mn from EUR 8.7 mn')).toBe('positive');
    expect(await top(sentiment, 'The annual general meeting will be held in Helsinki on 5 April')).toBe('neutral');
  });

  it('emotion: seven labels and the obvious cases', async () => {
    const all = (await emotion('I am so happy and grateful for this!', { top_k: null })) as Scores;
    expect(all.map((s) => s.label).sort()).toEqual(['anger', 'disgust', 'fear', 'joy', 'neutral', 'sadness', 'surprise']);
    expect(all[0]!.label).toBe('joy');
    expect(await top(emotion, 'I am terrified, this is so scary')).toBe('fear');
    expect(await top(emotion, 'This makes me so angry, I hate it')).toBe('anger');
    expect(await top(emotion, 'I miss her so much, I am heartbroken')).toBe('sadness');
    expect(await top(emotion, 'Wow, I did not expect that at all!')).toBe('surprise');
  });

  it('embedder: unit vectors whose similarity follows meaning', async () => {
    const out = await embedder(['The stock market crashed today', 'Shares plunged on Wall Street', 'My cat likes to sleep in the sun'], {
      pooling: 'mean',
      normalize: true,
    });
    const [n, dim] = out.dims as [number, number];
    expect(n).toBe(3);
    const v = (i: number) => (out.data as Float32Array).slice(i * dim, (i + 1) * dim);
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    for (let i = 0; i < 3; i++) expect(Math.hypot(...v(i))).toBeCloseTo(1, 4);
    expect(dot(v(0), v(1))).toBeGreaterThan(dot(v(0), v(2)) + 0.1);
  });

  it("reads single words' vectors from the embedder's table as the embedder computes them, and the rest through it", async () => {
    const embed = async (words: string[]) => {
      const out = await embedder(words, { pooling: 'mean', normalize: true });
      const dim = out.dims[1]!;
      return words.map((_, i) => (out.data as Float32Array).slice(i * dim, (i + 1) * dim));
    };
    const sent: string[][] = [];
    const cache = new WordVectorCache(
      async (words) => (sent.push(words), embed(words)),
      100,
      async (w) => tableVectors(loadWordTable(), w),
    );
    const words = ['network', 'channel', 'governor', 'e-mail', 'zzzqxj', 'implementation'];
    const fromTable = await cache.get(words);
    // Split by the tokenizer or unknown: computed by the embedder itself, and only those are kept.
    expect(sent).toEqual([['e-mail', 'zzzqxj']]);
    expect(cache.size).toBe(2);
    const direct = await embed(words);
    // (The unknown word's vector is the embedder's own, whatever it is: its zero row normalised.)
    words.forEach((w, i) => {
      if (w !== 'zzzqxj') for (let d = 0; d < direct[i]!.length; d++) expect(fromTable.get(w)![d]).toBeCloseTo(direct[i]![d]!, 5);
    });
  });

  it('reads text escaped twice ("don\\u2019t", "\\u002c") as the text it stands for', async () => {
    const plain = "I don't think I'm going, sadly";
    const escaped = 'I don\\u2019t think I\\u2019m going\\u002c sadly';
    for (const clf of [sentiment, emotion]) {
      const a = (await clf(plain, { top_k: null })) as Scores;
      const b = (await clf(escaped, { top_k: null })) as Scores;
      expect(b).toEqual(a);
    }
  });

  it('ships the tokenizers the training script writes for their vocabularies', () => {
    for (const dir of [DEFAULT_TEXT_MODELS.sentiment, DEFAULT_TEXT_MODELS.emotion]) {
      const shipped = readFileSync(fromRoot(join(dir, 'tokenizer.json')), 'utf8');
      const vocab = JSON.parse(shipped).model.vocab as Record<string, number>;
      const words = Object.entries(vocab)
        .sort((x, y) => x[1] - y[1])
        .map(([w]) => w);
      expect(JSON.stringify(gruTokenizerJson(words))).toBe(shipped);
    }
  });

  it('handles empty and very long inputs without failing', async () => {
    expect(((await sentiment('', { top_k: null })) as Scores).length).toBe(3);
    const long = 'profit '.repeat(400);
    expect(await top(sentiment, long)).toBeTypeOf('string');
  });

  it('keeps the shipped models under 30 MB together, each with a model card', () => {
    let total = 0;
    for (const dir of Object.values(DEFAULT_TEXT_MODELS)) {
      for (const f of ['onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json', 'config.json', 'model-card.json']) {
        total += statSync(fromRoot(join(dir, f))).size;
      }
      const card = JSON.parse(readFileSync(fromRoot(join(dir, 'model-card.json')), 'utf8'));
      expect(card.sources.length).toBeGreaterThan(0);
    }
    expect(total).toBeLessThan(30 * 1024 * 1024);
  });
});
