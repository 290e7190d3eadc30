// Document search plugin: Chroma (ours or CHROMA_URL), the embedder, the RAG service and the ask pipeline, created on
// first use; start-up indexing; /health; the routes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { lazy } from '../../infra/lazy.js';
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

async function ragPlugin(app: FastifyInstance) {
  const c = app.config;
  const chroma = c.CHROMA_URL ? null : new ChromaServer(join(fromRoot(c.DATA_DIR), 'chroma'), app.log, 30_000, 'service');
  // Replicas sharing PostgreSQL index one at a time (an advisory lock); otherwise runs are exclusive in this process.
  const exclusive =
    app.dbKind === 'postgres'
      ? async (fn: () => Promise<void>, wait: boolean) =>
          (await (
            await app.db()
          ).withAdvisoryLock(
            INDEX_LOCK_KEY,
            async () => {
              await fn();
              return true;
            },
            { wait },
          )) ?? false
      : undefined;
  const hub = { hub: hubSettings(c) };
  // The cross-encoder loads on the first reranked search; a failure is reported (503) and tried again next time.
  const loadedCrossEncoder = lazy(() => loadCrossEncoder(c.RERANK_MODEL, hub));
  const crossEncoder = () =>
    loadedCrossEncoder().catch((err: Error) => {
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
  const topicsTask = taskFile(new URL('./topics-task.js', import.meta.url));
  const readerTask = taskFile(new URL('./ask/reader-task.js', import.meta.url));
  let ragService: RagService | null = null;
  const service = lazy(async () => {
    if (chroma) await chroma.start();
    const extractor = await loadEmbedder(c.EMBEDDING_MODEL, hub);
    const embed = async (texts: string[]) => {
      const out = await extractor(texts, { pooling: 'mean', normalize: true });
      const [n, dim] = out.dims as [number, number];
      const flat = out.data as Float32Array;
      return Array.from({ length: n }, (_, i) => Array.from(flat.subarray(i * dim, (i + 1) * dim)));
    };
    const dim = (await embed(['dimension probe']))[0]!.length;
    const embedder = { id: c.EMBEDDING_MODEL, dim };
    const store = new VectorStore(chroma ? chroma.url : c.CHROMA_URL!, c.RAG_COLLECTION, embedder, embed);
    ragService = new RagService({
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
    return ragService;
  });

  // The support check compares single words in the shipped embedder's space (its thresholds were chosen there): the
  // service's own embedder when that is the shipped one, otherwise the shipped one loaded on first use.
  const shippedEmbedder = lazy(() => loadEmbedder(fromRoot(DEFAULT_TEXT_MODELS.embedder)));
  const wordVectors = async (words: string[]) => {
    if (fromRoot(c.EMBEDDING_MODEL) === fromRoot(DEFAULT_TEXT_MODELS.embedder)) return (await service()).opts.embed(words);
    const out = await (await shippedEmbedder())(words, { pooling: 'mean', normalize: true });
    const [n, dim] = out.dims as [number, number];
    const flat = out.data as Float32Array;
    return Array.from({ length: n }, (_, i) => Array.from(flat.subarray(i * dim, (i + 1) * dim)));
  };
  // READER_MODEL reads the answer span when set; a failure to load is logged, and the learned reader answers meanwhile.
  const loadedReader = c.READER_MODEL ? lazy(() => loadQaReader(c.READER_MODEL!, hub)) : null;
  const reader = loadedReader
    ? () =>
        loadedReader().catch((err: Error) => {
          app.log.warn({ model: c.READER_MODEL, reason: err instanceof ModelLoadError ? err.reason : err.message }, 'question-answering model not loadable');
          throw err;
        })
    : null;

  const documents = documentCatalogue(fromRoot(c.DOCS_DIR), (message) => app.log.warn(message));
  const pipeline = lazy(
    async () =>
      new AskPipeline(await service(), app.llm, {
        wordVectors,
        minSemantic: c.RAG_MIN_SEMANTIC,
        minBm25: c.RAG_MIN_BM25,
        groundingThreshold: c.RAG_GROUNDING_THRESHOLD,
        abbreviations: DEFAULT_ABBREVIATIONS,
        llmRewrite: c.RAG_LLM_REWRITE,
        rerank: c.RAG_RERANK,
        reader,
        readInWorker: (args) => app.workers.run(readerTask, 'read', args),
        tagInWorker: (question) => app.workers.run(readerTask, 'tag', question),
        documents,
        supportGate: loadSupportGate(),
        answerability: existsSync(fromRoot(ANSWERABILITY_FILE)) ? loadAnswerability() : null,
      }),
  );
  const describe = (source: string) => {
    const meta = documents().get(source);
    const parts = [meta?.author, meta?.date ? formatDate(meta.date, false) : null].filter(Boolean);
    return parts.length ? parts.join(', ') : null;
  };

  app.decorate('rag', {
    service,
    ask: pipeline,
    chroma,
    reader,
    describe,
    async start() {
      const rag = await service();
      if (!c.RAG_INDEX_ON_START) return rag.sync();
      await rag.indexOnStart();
    },
  });
  // Measured, not assumed: Chroma answers its heartbeat, the index is in memory, the last index run did not fail.
  app.health.register('rag', async () => {
    const state = service.state();
    const url = c.CHROMA_URL ?? (chroma?.pid ? chroma.url : null);
    const reachable = url ? await heartbeat(url, 1000) : false;
    const lastRun = ragService?.lastRun ?? null;
    const problems = [
      ...(state === 'failed' ? [`document search did not start: ${service.error()}`] : []),
      ...(state === 'ready' && !reachable ? ['Chroma does not answer'] : []),
      ...(lastRun && !lastRun.ok ? [`the last index run failed: ${lastRun.error}`] : []),
    ];
    return {
      ready: problems.length === 0,
      state,
      chroma: { server: c.CHROMA_URL ? 'external' : 'local', reachable, restarts: chroma?.restartCount ?? 0 },
      index: { loaded: ragService?.loaded ?? false, indexing: ragService?.indexing ?? false, chunks: ragService?.chunks().length ?? 0 },
      last_index_run: lastRun,
      ...(problems.length ? { error: problems.join('; ') } : {}),
    };
  });
  app.health.readiness('rag', () => {
    if (service.state() === 'failed') return `document search failed to start: ${service.error()}`;
    return ragService?.loaded ? null : 'document index loading';
  });
  app.addHook('onClose', async () => {
    await chroma?.stop();
  });

  await app.register(ragRoutes, { service, pipeline });
}

export default fp(ragPlugin, { name: 'rag', dependencies: ['health', 'text', 'workers'] });
