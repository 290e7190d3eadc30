// Text analysis domain: the shared LLM, the sentiment service (lazy models) and their routes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { taskFile } from '../infra/worker-pool.js';
import { hubSettings } from './hub.js';
import { Llm } from './llm/llm.js';
import { sentimentRoutes } from './sentiment/routes.js';
import type { ChunkScores } from './sentiment/scoring.js';
import type { ScoreArgs } from './sentiment/sentiment-task.js';
import { type LoadedModels, ModelLoader, SentimentService, defaultLoader } from './sentiment/service.js';

/**
 * Texts longer than this are scored in a worker thread. About one chunk: a text of one chunk (2,000 characters) holds
 * the event loop for about 5 ms, ten chunks for 50 ms (docs/benchmarks.md, mixed load).
 */
export const SENTIMENT_INLINE_CHARS = 2000;

/** The paths of the text API, whose errors are `{detail}` bodies (404 and 405 among them). */
export const TEXT_API_PREFIXES = ['/analyze/', '/rag/'] as const;

declare module 'fastify' {
  interface FastifyInstance {
    llm: Llm;
    sentiment: SentimentService;
  }
}

export interface TextOptions {
  /** Tests replace the model loader to drive the loading states. */
  loadSentimentModels?: () => Promise<LoadedModels>;
}

async function textPlugin(app: FastifyInstance, opts: TextOptions) {
  const c = app.config;
  const llm = new Llm({
    provider: c.LLM_PROVIDER,
    apiKey: c.LLM_API_KEY,
    model: c.LLM_MODEL_NAME,
    baseUrl: c.LLM_BASE_URL,
    maxOutputTokens: c.LLM_MAX_OUTPUT_TOKENS,
    budgets: { sentiment: c.LLM_MAX_OUTPUT_TOKENS_SENTIMENT, rewrite: c.LLM_MAX_OUTPUT_TOKENS_REWRITE },
    thinking: c.LLM_THINKING,
    timeoutMs: c.LLM_TIMEOUT_MS,
    log: app.log,
  });
  const hub = hubSettings(c);
  const loader = new ModelLoader(opts.loadSentimentModels ?? defaultLoader(c.SENTIMENT_MODEL, c.EMOTION_MODEL, { hub }), app.log);
  const sentimentTask = taskFile(new URL('./sentiment/sentiment-task.js', import.meta.url));
  // Only with the configured models: a loader that tests put in place stands for models a worker could not load.
  const longTexts = opts.loadSentimentModels
    ? undefined
    : {
        minChars: SENTIMENT_INLINE_CHARS,
        score: (text: string) =>
          app.workers.run<ChunkScores>(sentimentTask, 'score', {
            text,
            sentimentModel: c.SENTIMENT_MODEL,
            emotionModel: c.EMOTION_MODEL,
            hub,
          } satisfies ScoreArgs),
      };
  const service = new SentimentService(loader, llm, app.log, longTexts);
  app.decorate('llm', llm);
  app.decorate('sentiment', service);
  app.health.register('sentiment', () => ({
    ready: loader.state !== 'failed',
    state: loader.state,
    ...(loader.loadMs !== null ? { load_ms: loader.loadMs } : {}),
    ...(loader.error ? { error: loader.error } : {}),
    ...(loader.failedModel ? { failed_model: loader.failedModel } : {}),
  }));
  app.health.register('llm', () => ({
    ready: llm.healthy,
    provider: llm.provider,
    model: llm.model,
    configured: llm.available,
    // Without a key every answer uses the documented fallbacks: a working mode, not a fault.
    mode: llm.available ? 'llm' : 'fallback (no LLM_API_KEY)',
    thinking: llm.thinking.summary,
    last_call: llm.lastCall,
  }));
  // Readiness asks for the models: the first probe starts loading them, so a replica takes traffic with them loaded.
  app.health.readiness('sentiment', () => {
    if (loader.state === 'ready') return null;
    if (loader.state !== 'loading') void loader.start().catch(() => undefined);
    return loader.state === 'failed' && loader.error ? `sentiment models failed to load (retrying): ${loader.error}` : 'sentiment models loading';
  });
  if (c.TEXT_MODELS_EAGER) app.addHook('onReady', async () => void loader.start().catch(() => undefined));
  await app.register(sentimentRoutes, { service, maxChars: c.SENTIMENT_MAX_CHARS });
}

export default fp(textPlugin, { name: 'text', dependencies: ['health', 'workers'] });
