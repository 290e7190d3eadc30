// Text analysis domain: the shared LLM, the sentiment service (lazy models) and their routes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Llm } from './llm/llm.js';
import { sentimentRoutes } from './sentiment/routes.js';
import { type LoadedModels, ModelLoader, SentimentService, defaultLoader } from './sentiment/service.js';

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
    timeoutMs: c.LLM_TIMEOUT_MS,
  });
  const loader = new ModelLoader(opts.loadSentimentModels ?? defaultLoader(c.SENTIMENT_MODEL, c.EMOTION_MODEL), app.log);
  const service = new SentimentService(loader, llm, app.log);
  app.decorate('llm', llm);
  app.decorate('sentiment', service);
  app.health.register('sentiment', () => ({
    ready: loader.state !== 'failed',
    state: loader.state,
    ...(loader.loadMs !== null ? { load_ms: loader.loadMs } : {}),
    ...(loader.error ? { error: loader.error } : {}),
  }));
  app.health.register('llm', () => ({ ready: true, provider: llm.provider, model: llm.model, configured: llm.available }));
  if (c.TEXT_MODELS_EAGER) app.addHook('onReady', async () => void loader.start().catch(() => undefined));
  await app.register(sentimentRoutes, { service, maxChars: c.SENTIMENT_MAX_CHARS });
}

export default fp(textPlugin, { name: 'text', dependencies: ['health'] });
