// Loads text models through transformers.js: a local model directory (the shipped compact models) or a Hub id.
import { existsSync } from 'node:fs';
import { dirname, basename } from 'node:path';
import { AutoModelForSequenceClassification, AutoTokenizer, env, pipeline } from '@huggingface/transformers';
import { fromRoot } from '../infra/paths.js';

export type TextClassifier = Awaited<ReturnType<typeof loadClassifier>>;
export type TextEmbedder = Awaited<ReturnType<typeof loadEmbedder>>;

/**
 * A path that exists on disk loads from disk with remote loading off; anything else is a Hub id
 * (`Xenova/finbert`), fetched when the Hub is reachable.
 */
function locate(idOrPath: string): { id: string; local: boolean } {
  const path = fromRoot(idOrPath);
  if (existsSync(path)) {
    env.localModelPath = dirname(path);
    return { id: basename(path), local: true };
  }
  return { id: idOrPath, local: false };
}

/**
 * Small models gain nothing from intra-op threads; one thread each leaves the other core to the server.
 * Without the arena and memory patterns, memory is not kept per input shape: texts of every length would
 * otherwise grow the process by hundreds of megabytes.
 */
const ONE_THREAD = { intraOpNumThreads: 1, interOpNumThreads: 1, enableCpuMemArena: false, enableMemPattern: false };

function configure(local: boolean) {
  env.allowLocalModels = true;
  env.allowRemoteModels = !local;
}

export async function loadClassifier(idOrPath: string) {
  const { id, local } = locate(idOrPath);
  configure(local);
  return pipeline('text-classification', id, { dtype: 'fp32', session_options: ONE_THREAD });
}

export async function loadEmbedder(idOrPath: string) {
  const { id, local } = locate(idOrPath);
  configure(local);
  return pipeline('feature-extraction', id, { dtype: 'fp32', session_options: ONE_THREAD });
}

export type CrossEncoder = Awaited<ReturnType<typeof loadCrossEncoder>>;

/**
 * A cross-encoder (a sequence classifier over "[CLS] query [SEP] passage [SEP]" with one relevance logit, like
 * `Xenova/ms-marco-MiniLM-L-6-v2`): `score(query, passages)` gives one logit per passage, higher is more relevant.
 */
export async function loadCrossEncoder(idOrPath: string) {
  const { id, local } = locate(idOrPath);
  configure(local);
  const tokenizer = await AutoTokenizer.from_pretrained(id);
  const model = await AutoModelForSequenceClassification.from_pretrained(id, { dtype: 'fp32', session_options: ONE_THREAD });
  return {
    async score(query: string, passages: string[]): Promise<number[]> {
      if (!passages.length) return [];
      const inputs = tokenizer(new Array<string>(passages.length).fill(query), { text_pair: passages, padding: true, truncation: true });
      const { logits } = (await model(inputs)) as { logits: { data: Float32Array; dims: number[] } };
      const labels = logits.dims[1] ?? 1;
      // One logit per pair; a two-label model ranks by its "relevant" (last) label.
      return passages.map((_, i) => Number(logits.data[i * labels + labels - 1]));
    },
  };
}

export const DEFAULT_TEXT_MODELS = {
  sentiment: 'models/text/sentiment',
  emotion: 'models/text/emotion',
  embedder: 'models/text/embedder',
};
