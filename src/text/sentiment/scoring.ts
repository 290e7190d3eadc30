// Sentiment and emotion scores of a text, chunk by chunk: the models, how they load, and the chunked inference. Used
// on the event loop for short texts and in a worker thread (sentiment-task.ts) for long ones.
import { ModelLoadError } from '../hub.js';
import { type LoadOptions, type TextClassifier, loadClassifier } from '../models.js';
import { chunkText } from './chunking.js';

export const SENTIMENTS = ['positive', 'negative', 'neutral'] as const;
export const EMOTIONS = ['anger', 'joy', 'fear', 'sadness', 'surprise', 'disgust', 'neutral'] as const;

export interface LoadedModels {
  sentiment: TextClassifier;
  emotion: TextClassifier;
  ids: { sentiment: string; emotion: string };
}

export type Scores<K extends string> = Record<K, number>;

/** Each chunk's scores, in text order. */
export interface ChunkScores {
  chunks: number;
  /** The text's tokens (without special ones), and how many of them the sentiment model's vocabulary lacks. */
  tokens: number;
  unknown: number;
  sentiment: Scores<(typeof SENTIMENTS)[number]>[];
  emotion: Scores<(typeof EMOTIONS)[number]>[];
}

/** Both classifiers load at once; labels are read from each model's id2label, in whatever order it has them. */
export function defaultLoader(sentimentId: string, emotionId: string, opts: LoadOptions = {}) {
  return async (): Promise<LoadedModels> => {
    const [sentiment, emotion] = await Promise.all([loadClassifier(sentimentId, opts), loadClassifier(emotionId, opts)]);
    for (const [id, clf, labels] of [
      [sentimentId, sentiment, SENTIMENTS],
      [emotionId, emotion, EMOTIONS],
    ] as const) {
      const known = Object.values((clf.model.config as unknown as { id2label: Record<string, string> }).id2label).map((l) => l.toLowerCase());
      const missing = labels.filter((l) => !known.includes(l));
      if (missing.length) throw new ModelLoadError(id, `it lacks the labels ${missing.join(', ')} (it has ${known.join(', ')})`);
    }
    return { sentiment, emotion, ids: { sentiment: sentimentId, emotion: emotionId } };
  };
}

async function classify<K extends string>(clf: TextClassifier, chunks: string[], labels: readonly K[]): Promise<Scores<K>[]> {
  const out: Scores<K>[] = [];
  for (let i = 0; i < chunks.length; i += 32) {
    const batch = chunks.slice(i, i + 32);
    const res = (await clf(batch, { top_k: null })) as unknown as { label: string; score: number }[][];
    // A single input comes back unwrapped.
    const rows = batch.length === 1 && !Array.isArray(res[0]) ? [res as unknown as { label: string; score: number }[]] : res;
    for (const row of rows) {
      const scores = Object.fromEntries(labels.map((l) => [l, 0])) as Scores<K>;
      for (const { label, score } of row) {
        const k = label.toLowerCase() as K;
        if (k in scores) scores[k] = score;
      }
      out.push(scores);
    }
  }
  return out;
}

/** Cuts the text into chunks of at most 510 tokens and runs both classifiers on every chunk. */
export async function scoreChunks(models: Pick<LoadedModels, 'sentiment' | 'emotion'>, text: string): Promise<ChunkScores> {
  const tokenizer = models.sentiment.tokenizer;
  const unk = (tokenizer as unknown as { unk_token_id?: number }).unk_token_id;
  // The chunker counts every sentence's tokens once (an over-long sentence's words again): the unknown ones are
  // counted on the way, as a share.
  let tokens = 0;
  let unknown = 0;
  const chunks = chunkText(text, (s) => {
    const ids = tokenizer.encode(s, { add_special_tokens: false });
    tokens += ids.length;
    if (unk !== undefined) for (const id of ids) if (id === unk) unknown++;
    return ids.length;
  });
  const [sentiment, emotion] = await Promise.all([classify(models.sentiment, chunks, SENTIMENTS), classify(models.emotion, chunks, EMOTIONS)]);
  return { chunks: chunks.length, tokens, unknown, sentiment, emotion };
}
