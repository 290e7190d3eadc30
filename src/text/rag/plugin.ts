// Document search plugin: Chroma (ours or CHROMA_URL), the embedder, the RAG service and the ask pipeline, created on
// first use; start-up indexing; /health; the routes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Lazy, lazy } from '../../infra/lazy.js';
import { fromRoot } from '../../infra/paths.js';
import { taskFile } from '../../infra/worker-pool.js';
import { TextHttpError } from '../errors.js';
import { ModelLoadError, hubSettings } from '../hub.js';
import { DEFAULT_TEXT_MODELS, type QaReader, loadCrossEncoder, loadEmbedder, loadQaReader } from '../models.js';
import { formatDate } from './ask/document-question.js';
import { AskPipeline } from './ask/pipeline.js';
import { DEFAULT_ABBREVIATIONS } from './ask/rewrite.js';
import { loadSupportGate } from './ask/support-gate.js';
import { ANSWERABILITY_FILE, loadAnswerability } from './ask/answerability.js';
import { ChromaServer, heartbeat } from './chroma-server.js';
import { ragRoutes } from './routes.js';
import { RagService } from './service.js';
import { VectorStore } from './store.js';
import { documentCatalogue } from './documents.js';

/** Advisory lock key of index runs ("INDX" in ASCII). */
const INDEX_LOCK_KEY = 0x494e4458;

/** The question the answer step is tried with once the index is in memory, so that a user's first one does not load it. */
const WARM_UP_QUESTION = 'What is the first document about?';
// Factoid readings before /ready, of 5 passages each.
const WARM_UP_READINGS = 12;
// Reading the collection ahead (RAG_READ_AHEAD) stops after this long: /ready waits for it.
const READ_AHEAD_BUDGET_MS = 20_000;

/**
 * RAG_ABBREVIATIONS: empty for the built-in list, "none" for no expansion, or a JSON file of
 * `{"abbreviation": "expansion"}` (a path from the project root, or absolute). A file that cannot be used stops the start.
 */
export function abbreviationsFrom(setting: string): Record<string, string> {
  if (!setting.trim()) return DEFAULT_ABBREVIATIONS;
  if (setting.trim().toLowerCase() === 'none') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(fromRoot(setting), 'utf8'));
  } catch (err) {
    throw new Error(`RAG_ABBREVIATIONS: ${setting} is not a readable JSON file (${(err as Error).message})`);
  }
  const entries = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : null;
  if (!entries || entries.some(([k, v]) => typeof v !== 'string' || !k.trim() || !v.trim()))
    throw new Error(`RAG_ABBREVIATIONS: ${setting} must hold one JSON object of abbreviation -> expansion strings`);
  return Object.fromEntries(entries);
}

declare module 'fastify' {
  interface FastifyInstance {
    rag: {
      service(): Promise<RagService>;
      ask(): Promise<AskPipeline>;
      start(): Promise<void>;
      chroma: ChromaServer | null;
      /** The extractive reader of READER_MODEL, loaded on first use; null when READER_MODEL is unset. */
      reader: (() => Promise<QaReader>) | null;
      /** A document as its catalogue entry names it ("Franklin D. Roosevelt, January 6, 1941"), or null without one. */
      describe(source: string): string | null;
    };
  }
}

type HubOptions = { hub: ReturnType<typeof hubSettings> };

/** The cross-encoder for reranking, loaded on the first reranked search; a failure is a 503, tried again next time. */
function crossEncoderLoader(app: FastifyInstance, hub: HubOptions) {
  const c = app.config;
  const loaded = lazy(() => loadCrossEncoder(c.RERANK_MODEL, hub));
  return () =>
    loaded().catch((err: Error) => {
      const reason = err instanceof ModelLoadError ? err.reason : err.message;
      app.log.warn({ model: c.RERANK_MODEL, reason }, 'cross-encoder not loadable');
      // The model id may be a local path and the reason names the Hub and the cache folder: operators only.
      throw new TextHttpError(
        503,
        "Reranking is not available: the cross-encoder could not be loaded (the service's log has the cause)",
        {},
        `the cross-encoder "${c.RERANK_MODEL}" could not be loaded (${reason}). ` +
          'Set RERANK_MODEL to a local model directory or a Hub id this server can reach, or do without reranking.',
      );
    });
}

/** Replicas sharing PostgreSQL index one at a time (an advisory lock); otherwise runs are exclusive in this process. */
function exclusiveRuns(app: FastifyInstance) {
  if (app.dbKind !== 'postgres') return undefined;
  return async (fn: () => Promise<void>, wait: boolean) =>
    (await (
      await app.db()
    ).withAdvisoryLock(
      INDEX_LOCK_KEY,
      async () => {
        await fn();
        return true;
      },
      { wait },
    )) ?? false;
}

/** Mean-pooled, normalised vectors of each text, as plain arrays. */
type Embed = (texts: string[]) => Promise<number[][]>;
const embedWith =
  (extractor: Awaited<ReturnType<typeof loadEmbedder>>): Embed =>
  async (texts) => {
    const out = await extractor(texts, { pooling: 'mean', normalize: true });
    const [n, dim] = out.dims as [number, number];
    const flat = out.data as Float32Array;
    return Array.from({ length: n }, (_, i) => Array.from(flat.subarray(i * dim, (i + 1) * dim)));
  };

/** Chroma (ours, started here, or CHROMA_URL), the embedder and the RAG service, created on first use. */
function ragServiceLoader(app: FastifyInstance, chroma: ChromaServer | null, hub: HubOptions, onCreated: (rag: RagService) => void) {
  const c = app.config;
  const crossEncoder = crossEncoderLoader(app, hub);
  const topicsTask = taskFile(new URL('./topics-task.js', import.meta.url));
  const exclusive = exclusiveRuns(app);
  return lazy(async () => {
    if (chroma) await chroma.start();
    const embed = embedWith(await loadEmbedder(c.EMBEDDING_MODEL, hub));
    const dim = (await embed(['dimension probe']))[0]!.length;
    const embedder = { id: c.EMBEDDING_MODEL, dim };
    const store = new VectorStore(chroma ? chroma.url : c.CHROMA_URL!, c.RAG_COLLECTION, embedder, embed);
    const rag = new RagService({
      docsDir: fromRoot(c.DOCS_DIR),
      store,
      embed,
      embedder,
      semanticWeight: c.RAG_SEMANTIC_WEIGHT,
      normalisation: c.RAG_SCORE_NORMALISATION,
      crossEncoder,
      log: app.log,
      syncIntervalMs: c.RAG_SYNC_INTERVAL_MS,
      cluster: (records, k) => app.workers.run(topicsTask, 'cluster', { records, k }),
      ...(exclusive ? { exclusive } : {}),
    });
    onCreated(rag);
    return rag;
  });
}

/** The ask pipeline over the RAG service, created on first use. */
function askPipelineLoader(app: FastifyInstance, service: Lazy<RagService>, hub: HubOptions, documents: ReturnType<typeof documentCatalogue>) {
  const c = app.config;
  const abbreviations = abbreviationsFrom(c.RAG_ABBREVIATIONS);
  // The support check compares single words in the shipped embedder's space (its thresholds were chosen there): the
  // service's own embedder when that is the shipped one, otherwise the shipped one loaded on first use.
  const shippedEmbedder = lazy(async () => embedWith(await loadEmbedder(fromRoot(DEFAULT_TEXT_MODELS.embedder))));
  const embedWords = async (words: string[]) => {
    if (fromRoot(c.EMBEDDING_MODEL) === fromRoot(DEFAULT_TEXT_MODELS.embedder)) return (await service()).opts.embed(words);
    return (await shippedEmbedder())(words);
  };
  const readerTask = taskFile(new URL('./ask/reader-task.js', import.meta.url));
  return lazy(
    async () =>
      new AskPipeline(await service(), app.llm, {
        wordVectors: embedWords,
        // The shipped embedder's table, in the reader's worker (which holds it for the reader): about 13 MB here otherwise.
        wordTable: (words) => app.workers.run(readerTask, 'tableVectors', words),
        minSemantic: c.RAG_MIN_SEMANTIC,
        minBm25: c.RAG_MIN_BM25,
        groundingThreshold: c.RAG_GROUNDING_THRESHOLD,
        abbreviations,
        llmRewrite: c.RAG_LLM_REWRITE,
        rerank: c.RAG_RERANK,
        reader: app.rag.reader,
        readInWorker: (args) => app.workers.run(readerTask, 'read', args),
        tagInWorker: (question) => app.workers.run(readerTask, 'tag', question),
        readAheadInWorker: (texts, max) => app.workers.run(readerTask, 'readAhead', { texts, max }),
        documents,
        supportGate: loadSupportGate(),
        answerability: existsSync(fromRoot(ANSWERABILITY_FILE)) ? loadAnswerability() : null,
      }),
  );
}

/** READER_MODEL reads the answer span when set; a failure to load is logged, and the learned reader answers meanwhile. */
function readerLoader(app: FastifyInstance, hub: HubOptions) {
  const model = app.config.READER_MODEL;
  if (!model) return null;
  const loaded = lazy(() => loadQaReader(model, hub));
  return () =>
    loaded().catch((err: Error) => {
      app.log.warn({ model, reason: err instanceof ModelLoadError ? err.reason : err.message }, 'question-answering model not loadable');
      throw err;
    });
}

/**
 * One question through the whole answer step once the index is in memory: the models it reads with (in the worker
 * too), the tagger and the collection's vocabulary are loaded before /ready says so, not on a user's first question.
 * A failure is logged; the answer step then loads on first use as before.
 */
function answerStepWarmUp(app: FastifyInstance, pipeline: Lazy<AskPipeline>) {
  let state: 'idle' | 'warming' | 'warm' = 'idle';
  const warm = async () => {
    if (state !== 'idle') return;
    state = 'warming';
    const t0 = performance.now();
    try {
      const ask = await pipeline();
      app.log.info('answer step: warming up with questions of its own (the first is logged as a POST /rag/ask)');
      // Through the route, as a user's question comes: its validation and response serialisation are compiled on
      // their first use (about 40 ms).
      const res = await app.inject({
        method: 'POST',
        url: '/rag/ask',
        headers: { 'user-agent': 'answer-step-warm-up' },
        payload: { question: WARM_UP_QUESTION },
      });
      if (res.statusCode !== 200) await ask.ask(WARM_UP_QUESTION, 5);
      const chunks = (await app.rag.service()).chunks();
      // And a question in the collection's own words, which the support check and the reader read in full, as they
      // read a user's question (the question above asks about the documents, not their text).
      const own = ownWordsQuestion(chunks[Math.floor(chunks.length / 2)]?.text ?? '');
      if (own) await ask.ask(own, 5);
      const ahead = await ask.readAhead(
        chunks.map((c) => c.text),
        app.config.RAG_READ_AHEAD,
        READ_AHEAD_BUDGET_MS,
      );
      // Enough readings for the span step's code to be compiled for speed, over passages spread across the collection.
      const n = Math.min(chunks.length, WARM_UP_READINGS * 5);
      const spread = Array.from({ length: n }, (_, i) => chunks[Math.floor((i * chunks.length) / n)]!);
      await ask.warmUpReader(spread.map((c) => ({ ...c, semantic_score: 0, bm25_score: 0, combined_score: 0 })));
      app.log.info({ ms: Math.round(performance.now() - t0), read_ahead: ahead }, 'answer step loaded');
    } catch (err) {
      app.log.warn({ reason: (err as Error).message }, 'the answer step could not be tried before the first question');
    } finally {
      state = 'warm';
    }
  };
  return { warm, state: () => state };
}

/** A question made of a passage's three longest words ("What is said about A, B and C?"); null for a passage without. */
export function ownWordsQuestion(text: string): string | null {
  const words = [...new Set(text.match(/\p{L}{5,}/gu) ?? [])].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, 3);
  return words.length === 3 ? `What is said about ${words[0]}, ${words[1]} and ${words[2]}?` : null;
}

/** /health's document-search component and /ready's condition: measured, not assumed. */
function registerHealth(
  app: FastifyInstance,
  service: Lazy<RagService>,
  chroma: ChromaServer | null,
  current: () => RagService | null,
  warmUp: ReturnType<typeof answerStepWarmUp>,
) {
  const c = app.config;
  // Chroma answers its heartbeat, the index is in memory, the last index run did not fail.
  app.health.register('rag', async () => {
    const state = service.state();
    const rag = current();
    const url = c.CHROMA_URL ?? (chroma?.pid ? chroma.url : null);
    const reachable = url ? await heartbeat(url, 1000) : false;
    const lastRun = rag?.lastRun ?? null;
    const problems = [
      ...(state === 'failed' ? [`document search did not start: ${service.error()}`] : []),
      ...(state === 'ready' && !reachable ? ['Chroma does not answer'] : []),
      ...(lastRun && !lastRun.ok ? [`the last index run failed: ${lastRun.error}`] : []),
    ];
    return {
      ready: problems.length === 0,
      state,
      chroma: { server: c.CHROMA_URL ? 'external' : 'local', reachable, restarts: chroma?.restartCount ?? 0 },
      index: { loaded: rag?.loaded ?? false, indexing: rag?.indexing ?? false, chunks: rag?.chunks().length ?? 0 },
      answer_step: warmUp.state() === 'warm' ? 'loaded' : 'loading',
      last_index_run: lastRun,
      ...(problems.length ? { error: problems.join('; ') } : {}),
    };
  });
  app.health.readiness('rag', () => {
    if (service.state() === 'failed') return `document search failed to start: ${service.error()}`;
    if (!current()?.loaded) return 'document index loading';
    if (warmUp.state() === 'warm') return null;
    void warmUp.warm();
    return 'answer step loading';
  });
}

async function ragPlugin(app: FastifyInstance) {
  const c = app.config;
  const chroma = c.CHROMA_URL ? null : new ChromaServer(join(fromRoot(c.DATA_DIR), 'chroma'), app.log, 30_000, 'service');
  const hub = { hub: hubSettings(c) };
  let ragService: RagService | null = null;
  const service = ragServiceLoader(app, chroma, hub, (rag) => (ragService = rag));
  const documents = documentCatalogue(fromRoot(c.DOCS_DIR), (message) => app.log.warn(message));
  const describe = (source: string) => {
    const meta = documents().get(source);
    const parts = [meta?.author, meta?.date ? formatDate(meta.date, false) : null].filter(Boolean);
    return parts.length ? parts.join(', ') : null;
  };
  const reader = readerLoader(app, hub);
  app.decorate('rag', { service, ask: () => pipeline(), chroma, reader, describe, start: () => start() });
  const pipeline = askPipelineLoader(app, service, hub, documents);
  const warmUp = answerStepWarmUp(app, pipeline);
  const start = async () => {
    const rag = await service();
    if (c.RAG_INDEX_ON_START) await rag.indexOnStart();
    else await rag.sync();
    await warmUp.warm();
  };
  registerHealth(app, service, chroma, () => ragService, warmUp);
  app.addHook('onClose', async () => {
    await chroma?.stop();
  });

  await app.register(ragRoutes, { service, pipeline });
}

export default fp(ragPlugin, { name: 'rag', dependencies: ['health', 'text', 'workers'] });
