// Sentiment analysis: models loaded once on demand (503 while loading or after a failure), chunked inference,
// mean over chunks, and an interpretation by the LLM or, failing that, one written from the scores.
import type { FastifyBaseLogger } from 'fastify';
import type { Llm, LlmFailure } from '../llm/llm.js';
import { WorkersBusyError } from '../../infra/worker-pool.js';
import { TextHttpError } from '../errors.js';
import { ModelLoadError } from '../hub.js';
import { splitSentences } from '../sentences.js';
import { type ChunkScores, EMOTIONS, type LoadedModels, SENTIMENTS, type Scores, scoreChunks } from './scoring.js';

export { EMOTIONS, type LoadedModels, SENTIMENTS, defaultLoader } from './scoring.js';

export const NOT_LOADED = 'Sentiment models not loaded. Please try again later.';

/** idle -> loading -> ready | failed; a failed load is tried again by the next request. */
export class ModelLoader {
  private promise: Promise<LoadedModels> | null = null;
  private models: LoadedModels | null = null;
  state: 'idle' | 'loading' | 'ready' | 'failed' = 'idle';
  error: string | null = null;
  /** The model that failed to load, when the failure names one. */
  failedModel: string | null = null;
  loadMs: number | null = null;

  constructor(
    private readonly load: () => Promise<LoadedModels>,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Starts a load unless one is running or done; concurrent callers share it. */
  start(): Promise<LoadedModels> {
    if (this.models) return Promise.resolve(this.models);
    if (!this.promise) {
      this.state = 'loading';
      const t0 = performance.now();
      this.promise = this.load().then(
        (m) => {
          this.models = m;
          this.state = 'ready';
          this.error = null;
          this.failedModel = null;
          this.loadMs = Math.round(performance.now() - t0);
          this.log.info({ ms: this.loadMs, ...m.ids }, 'sentiment models loaded');
          return m;
        },
        (err: Error) => {
          this.state = 'failed';
          this.error = err instanceof ModelLoadError ? err.reason : err.message;
          this.failedModel = err instanceof ModelLoadError ? err.model : null;
          this.promise = null;
          this.log.error({ err }, 'sentiment models failed to load');
          throw err;
        },
      );
    }
    return this.promise;
  }

  /**
   * The request that starts the load waits for it; requests arriving while it runs get 503 at once. A failure's 503
   * names the model and the reason; the next request tries again.
   */
  async acquire(): Promise<LoadedModels> {
    if (this.models) return this.models;
    if (this.state === 'loading') throw new TextHttpError(503, NOT_LOADED, { state: 'loading' });
    try {
      return await this.start();
    } catch {
      throw new TextHttpError(503, NOT_LOADED, { state: 'failed', ...(this.failedModel ? { model: this.failedModel } : {}), reason: this.error });
    }
  }
}

function mean<K extends string>(rows: Scores<K>[], labels: readonly K[]): Scores<K> {
  return Object.fromEntries(labels.map((l) => [l, rows.reduce((s, r) => s + r[l], 0) / rows.length])) as Scores<K>;
}

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
const pct = (x: number) => `${Math.round(x * 100)}%`;
/** An emotion below this share is not worth naming after the dominant one. */
const MINOR_EMOTION = 0.05;

export interface SentimentResult {
  sentiment: (typeof SENTIMENTS)[number];
  confidence: number;
  scores: Scores<(typeof SENTIMENTS)[number]>;
  emotions: Scores<(typeof EMOTIONS)[number]>;
  contextual_sentiment: string;
  num_chunks: number;
  /** Each chunk's sentiment, in text order. */
  chunks: { sentiment: (typeof SENTIMENTS)[number]; confidence: number }[];
  llm_powered: boolean;
  models: { sentiment: string; emotion: string };
  llm?: { provider: string; model: string } | { fallback_reason: LlmFailure; detail: string };
  /** What limits the reading: most of the text's words unknown to the model. */
  warnings: string[];
}

/**
 * Control characters (a NUL between two words) are not read by the tokenizer and would join the words around them; a
 * lone surrogate (half of a character, from text cut or decoded badly) is no character at all. Both read as spaces.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\p{Cs}]/gu;

/** The text as the models read it. */
const readableInput = (text: string) => text.replace(CONTROL, ' ');

/** A warning when at least half the text's tokens are words the sentiment model does not know. */
function unknownWords({ tokens, unknown }: Pick<ChunkScores, 'tokens' | 'unknown'>): string[] {
  if (!tokens || unknown * 2 < tokens) return [];
  return unknown === tokens
    ? [
        'The sentiment model knows none of the words of this text (emoji, another language or script, codes): the scores are its default, not a reading of the text.',
      ]
    : [`The sentiment model knows only ${tokens - unknown} of the text's ${tokens} words and signs: the scores rest on those.`];
}

/**
 * The polarity of each emotion, as the GoEmotions paper groups them (surprise is ambiguous there): what sentiment an
 * emotion would go with, to tell when the two models disagree.
 */
const EMOTION_POLARITY: Record<(typeof EMOTIONS)[number], (typeof SENTIMENTS)[number] | 'ambiguous'> = {
  joy: 'positive',
  anger: 'negative',
  disgust: 'negative',
  fear: 'negative',
  sadness: 'negative',
  surprise: 'ambiguous',
  neutral: 'neutral',
};

/** A dominant emotion at least this strong is "strong" and, against the sentiment label, worth pointing out. */
const STRONG_EMOTION = 0.5;

/** Interpretation from the numbers: which sentiment, how strong, how mixed, which emotions, how parts agree. */
export function interpretFromScores(
  scores: Scores<(typeof SENTIMENTS)[number]>,
  emotions: Scores<(typeof EMOTIONS)[number]>,
  perChunk: (typeof SENTIMENTS)[number][],
): string {
  const ranked = [...SENTIMENTS].sort((a, b) => scores[b] - scores[a]);
  const [top, second] = [ranked[0]!, ranked[1]!];
  const p = scores[top];
  const strength = p >= 0.8 ? 'strongly' : p >= 0.6 ? 'clearly' : p >= 0.45 ? 'moderately' : 'only slightly';
  const mixed = p - scores[second] < 0.15 ? `, though ${second} signals are close behind at ${pct(scores[second])}` : '';
  const emo = [...EMOTIONS].sort((a, b) => emotions[b] - emotions[a]);
  const nonNeutral = emo.filter((e) => e !== 'neutral');
  const dominant = emo[0]!;
  const polarity = EMOTION_POLARITY[dominant];
  // Disagreement: a neutral reading against a strong positive or negative emotion, or opposite polarities.
  const clash = emotions[dominant] >= STRONG_EMOTION && (polarity === 'positive' || polarity === 'negative') && polarity !== top;
  if (clash) {
    const emotionStrength = emotions[dominant] >= 0.8 ? 'strong' : 'clear';
    const why =
      top === 'neutral'
        ? 'the text may express feeling without taking a stance, financial or otherwise'
        : 'the two disagree, so the tone may be mixed or the feeling may concern something other than the overall stance';
    const sentences = [
      `The sentiment model reads this as ${strength} ${top} (${pct(p)} ${top})${mixed}, while the emotion model finds ${emotionStrength} ${dominant} (${pct(emotions[dominant])}): ${why}.`,
    ];
    if (perChunk.length > 1) sentences.push(partsSentence(perChunk, top));
    return sentences.join(' ');
  }
  const lead = top === 'neutral' ? `The text is ${strength} neutral in tone (${pct(p)} neutral)` : `The text reads as ${strength} ${top} (${pct(p)} ${top})`;
  const sentences = [`${lead}${mixed}.`];
  if (emo[0] === 'neutral') {
    // "Mostly" only for a majority: at 33% neutral beside 33% anger, no feeling stands out.
    const strongest = `the strongest emotion is ${nonNeutral[0]} at ${pct(emotions[nonNeutral[0]!])}`;
    sentences.push(
      emotions.neutral >= 0.5
        ? `Emotionally it is mostly matter-of-fact (${pct(emotions.neutral)} neutral); ${strongest}.`
        : `Emotionally no feeling stands out: matter-of-fact leads with ${pct(emotions.neutral)} (neutral), and ${strongest}.`,
    );
  } else {
    // Runners-up are named only when they count ("followed by surprise (0%)" says nothing).
    const others = emo.slice(1, 3).filter((e) => emotions[e] >= MINOR_EMOTION);
    const rest = others.map((e) => `${e} (${pct(emotions[e])})`);
    sentences.push(
      `Its dominant emotion is ${emo[0]} (${pct(emotions[emo[0]!])})${
        rest.length ? `, followed by ${rest.join(' and ')}` : `, with no other emotion at ${pct(MINOR_EMOTION)} or more`
      }.`,
    );
  }
  if (perChunk.length > 1) sentences.push(partsSentence(perChunk, top));
  return sentences.join(' ');
}

function partsSentence(perChunk: (typeof SENTIMENTS)[number][], top: (typeof SENTIMENTS)[number]): string {
  const agree = perChunk.filter((s) => s === top).length;
  return agree === perChunk.length
    ? `All ${perChunk.length} parts of the text lean the same way.`
    : `${agree} of its ${perChunk.length} parts lean ${top}, so the overall picture is an average of differing passages.`;
}

function llmPrompt(text: string, scores: Scores<(typeof SENTIMENTS)[number]>, emotions: Scores<(typeof EMOTIONS)[number]>): string {
  const topEmotions = [...EMOTIONS].sort((a, b) => emotions[b] - emotions[a]).slice(0, 3);
  return [
    'Interpret the overall sentiment and emotional tone of the text below in two to three sentences of plain prose',
    '(no lists, no headings). Use the classifier scores as evidence and mention what in the text drives them.',
    '',
    'Text (first 600 characters):',
    `"""${text.slice(0, 600)}"""`,
    '',
    `Sentiment scores: positive ${scores.positive.toFixed(2)}, negative ${scores.negative.toFixed(2)}, neutral ${scores.neutral.toFixed(2)}.`,
    `Top emotions: ${topEmotions.map((e) => `${e} ${emotions[e].toFixed(2)}`).join(', ')}.`,
  ].join('\n');
}

/** At most three sentences, as the answer format requires. */
function threeSentences(text: string): string {
  return splitSentences(text.replace(/\s+/g, ' ')).slice(0, 3).join(' ');
}

/**
 * Texts longer than `minChars` are cut and classified elsewhere (a worker thread): tokenising tens of chunks takes the
 * event loop, that every request waits on, for a hundred milliseconds and more.
 */
export interface LongTexts {
  minChars: number;
  score: (text: string) => Promise<ChunkScores>;
}

export class SentimentService {
  constructor(
    readonly loader: ModelLoader,
    private readonly llm: Llm,
    private readonly log: FastifyBaseLogger,
    private readonly longTexts?: LongTexts,
  ) {}

  async analyze(input: string): Promise<SentimentResult> {
    const text = readableInput(input);
    // Nothing to read once control characters are spaces: refused like an empty text, never scored (a made-up reading).
    if (!text.trim()) throw new TextHttpError(400, 'Invalid input format', { reason: 'text is empty' });
    // The models are loaded here in any case: the loading states (503 while loading or after a failure) are this one's.
    const models = await this.loader.acquire();
    let scored: ChunkScores;
    try {
      scored = this.longTexts && text.length > this.longTexts.minChars ? await this.longTexts.score(text) : await scoreChunks(models, text);
    } catch (err) {
      if (err instanceof WorkersBusyError) throw err;
      this.log.error({ err }, 'sentiment inference failed');
      throw new TextHttpError(500, 'Analysis failed: the models could not process this text');
    }
    // No token at all (only zero-width, formatting or combining characters): the scores would be the models' answer to
    // an empty input, so the text is refused as empty.
    if (!scored.tokens) throw new TextHttpError(400, 'Invalid input format', { reason: 'text is empty' });
    const { chunks, sentiment: perChunkSentiment, emotion: perChunkEmotion } = scored;
    const warnings = unknownWords(scored);
    // Every chunk counts the same: the spec's mean over chunks (a short last chunk weighs as much as a full one).
    const scores = mean(perChunkSentiment, SENTIMENTS);
    const emotions = mean(perChunkEmotion, EMOTIONS);
    const sentiment = [...SENTIMENTS].sort((a, b) => scores[b] - scores[a])[0]!;
    const perChunk = perChunkSentiment.map((s) => [...SENTIMENTS].sort((a, b) => s[b] - s[a])[0]!);

    const llm = await this.llm.generate(llmPrompt(text, scores, emotions), {
      system: 'You are a concise financial and emotional-tone analyst.',
      purpose: 'sentiment',
    });
    return {
      sentiment,
      confidence: r4(scores[sentiment]),
      scores: Object.fromEntries(SENTIMENTS.map((k) => [k, r4(scores[k])])) as SentimentResult['scores'],
      emotions: Object.fromEntries(EMOTIONS.map((k) => [k, r4(emotions[k])])) as SentimentResult['emotions'],
      contextual_sentiment: llm.ok ? threeSentences(llm.text) : interpretFromScores(scores, emotions, perChunk),
      num_chunks: chunks,
      chunks: perChunkSentiment.map((s, i) => ({ sentiment: perChunk[i]!, confidence: r4(s[perChunk[i]!]) })),
      llm_powered: llm.ok,
      models: models.ids,
      llm: llm.ok ? { provider: llm.provider, model: llm.model } : { fallback_reason: llm.reason, detail: llm.detail },
      warnings,
    };
  }
}
