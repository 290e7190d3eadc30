// Loads text models through transformers.js: a local model directory (the shipped compact models) or a Hub id,
// downloaded once into the model cache and read from there afterwards.
import { AutoModelForQuestionAnswering, AutoModelForSequenceClassification, AutoTokenizer, type ProgressCallback, pipeline } from '@huggingface/transformers';
import { DEFAULT_HUB, type HubSettings, loadFailure, pretrainedOptions, resolveModel, withHub } from './hub.js';
import { type QaReader, createQaReader } from './qa-reader.js';

export type TextClassifier = Awaited<ReturnType<typeof loadClassifier>>;
export type TextEmbedder = Awaited<ReturnType<typeof loadEmbedder>>;
export type { QaAnswer, QaReader } from './qa-reader.js';

export interface LoadOptions {
  /** HF_ENDPOINT and MODEL_CACHE_DIR; only Hub ids use them. */
  hub?: HubSettings;
  /** transformers.js download progress (models:pull draws its bars from it). */
  onProgress?: ProgressCallback;
}

/**
 * Small models gain nothing from intra-op threads; one thread each leaves the other core to the server.
 * Without the arena and memory patterns, memory is not kept per input shape: texts of every length would
 * otherwise grow the process by hundreds of megabytes.
 */
const ONE_THREAD = { intraOpNumThreads: 1, interOpNumThreads: 1, enableCpuMemArena: false, enableMemPattern: false };

/**
 * Runs a load of `idOrPath` with the options transformers.js takes per call. A local directory never touches the
 * Hub settings; a Hub id runs under them (see withHub). Failures name the model and the reason (ModelLoadError).
 */
async function load<T>(
  idOrPath: string,
  opts: LoadOptions,
  fn: (id: string, options: ReturnType<typeof pretrainedOptions> & { progress_callback?: ProgressCallback }) => Promise<T>,
): Promise<T> {
  const hub = opts.hub ?? DEFAULT_HUB;
  const { id, local } = resolveModel(idOrPath);
  const options = { ...pretrainedOptions(local, hub), ...(opts.onProgress ? { progress_callback: opts.onProgress } : {}) };
  try {
    return local ? await fn(id, options) : await withHub(hub, () => fn(id, options));
  } catch (err) {
    throw loadFailure(idOrPath, local, hub, err);
  }
}

export async function loadClassifier(idOrPath: string, opts: LoadOptions = {}) {
  return load(idOrPath, opts, (id, o) => pipeline('text-classification', id, { ...o, dtype: 'fp32', session_options: ONE_THREAD }));
}

export async function loadEmbedder(idOrPath: string, opts: LoadOptions = {}) {
  return load(idOrPath, opts, (id, o) => pipeline('feature-extraction', id, { ...o, dtype: 'fp32', session_options: ONE_THREAD }));
}

export type CrossEncoder = Awaited<ReturnType<typeof loadCrossEncoder>>;

/**
 * A cross-encoder (a sequence classifier over "[CLS] query [SEP] passage [SEP]" with one relevance logit, like
 * `Xenova/ms-marco-MiniLM-L-6-v2`): `score(query, passages)` gives one logit per passage, higher is more relevant.
 */
export async function loadCrossEncoder(idOrPath: string, opts: LoadOptions = {}) {
  const { tokenizer, model } = await load(idOrPath, opts, async (id, o) => ({
    tokenizer: await AutoTokenizer.from_pretrained(id, o),
    model: await AutoModelForSequenceClassification.from_pretrained(id, { ...o, dtype: 'fp32', session_options: ONE_THREAD }),
  }));
  return {
    async score(query: string, passages: string[]): Promise<number[]> {
      if (!passages.length) return [];
      const inputs = tokenizer(new Array<string>(passages.length).fill(query), { text_pair: passages, padding: true, truncation: true });
      const { logits } = (await model(inputs)) as { logits: { data: Float32Array; dims: number[] } };
      const labels = logits.dims[1] ?? 1;
      // One logit per pair; a two-label model ranks by its "relevant" (last) label.
      return passages.map((_, i) => Number(logits.data[i * labels + labels - 1]));
    },
    dispose: () => model.dispose(),
  };
}

/**
 * An extractive question-answering reader (a transformers.js question-answering model, e.g.
 * `Xenova/distilbert-base-cased-distilled-squad`): `answer(question, context)` gives the best span of the context
 * with its score and character offsets into the context. Contexts longer than the model's window are read in
 * overlapping windows.
 */
export async function loadQaReader(idOrPath: string, opts: LoadOptions = {}): Promise<QaReader> {
  const { tokenizer, model } = await load(idOrPath, opts, async (id, o) => ({
    tokenizer: await AutoTokenizer.from_pretrained(id, o),
    model: await AutoModelForQuestionAnswering.from_pretrained(id, { ...o, dtype: 'fp32', session_options: ONE_THREAD }),
  }));
  return createQaReader(tokenizer, model);
}

export { DEFAULT_TEXT_MODELS } from './model-dirs.js';

/**
 * The documented production set (`npm run models:pull -- --preset hub`): FinBERT, a 7-emotion DistilRoBERTa, a 768-d
 * embedder, a MiniLM cross-encoder and a DistilBERT SQuAD reader, all ONNX exports transformers.js loads.
 */
export const HUB_PRESET = {
  sentiment: 'Xenova/finbert',
  emotion: 'Bachkippe/emotion-english-distilroberta-base_onnx',
  embedder: 'Xenova/bge-base-en-v1.5',
  reranker: 'Xenova/ms-marco-MiniLM-L-6-v2',
  reader: 'Xenova/distilbert-base-cased-distilled-squad',
} as const;
