// Document search plugin: Chroma (ours or CHROMA_URL), the embedder, the RAG service and /rag/index, /rag/search, /rag/stats.
import { join } from 'node:path';
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { lazy } from '../../infra/lazy.js';
import { fromRoot } from '../../infra/paths.js';
import { loadCrossEncoder, loadEmbedder } from '../models.js';
import { TextHttpError } from '../sentiment/service.js';
import { ChromaServer } from './chroma-server.js';
import { AskPipeline } from './ask/pipeline.js';
import { checkQuestion } from './ask/guardrails.js';
import { DEFAULT_ABBREVIATIONS } from './ask/rewrite.js';
import { RagBusyError, RagService } from './service.js';
import { topics } from './topics.js';
import { EmbedderMismatchError, IndexLayoutError, VectorStore } from './store.js';

declare module 'fastify' {
  interface FastifyInstance {
    rag: { service(): Promise<RagService>; ask(): Promise<AskPipeline>; start(): Promise<void>; chroma: ChromaServer | null };
  }
}

const Detail = z.object({ detail: z.string() }).catchall(z.unknown());

const IndexResultSchema = z
  .object({
    full: z.boolean(),
    documents: z.int(),
    files_added: z.int(),
    files_changed: z.int(),
    files_unchanged: z.int(),
    files_removed: z.int(),
    chunks_added: z.int(),
    chunks_removed: z.int(),
    chunks_unchanged: z.int(),
    errors: z.array(z.object({ source: z.string(), error: z.string() })),
    duration_ms: z.int(),
  })
  .meta({ id: 'IndexResult' });

const SearchHitSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    source: z.string().describe('file path relative to DOCS_DIR'),
    chunk_index: z.int(),
    start: z.int().describe('character offset of the chunk in its file'),
    end: z.int(),
    semantic_score: z.number().describe("cosine similarity of the query and the chunk's best-matching sentence"),
    bm25_score: z.number().describe('BM25 score (0 when BM25 did not return the chunk)'),
    combined_score: z.number().describe('fused score of the hybrid ranking'),
    rerank_score: z.number().optional().describe("the cross-encoder's relevance logit (only with rerank: true; then the ranking)"),
  })
  .meta({ id: 'SearchHit' });

async function ragPlugin(app: FastifyInstance) {
  const c = app.config;
  const chroma = c.CHROMA_URL ? null : new ChromaServer(join(fromRoot(c.DATA_DIR), 'chroma'), app.log);
  // The cross-encoder loads on the first reranked search; a failure is reported (503) and tried again next time.
  const loadedCrossEncoder = lazy(() => loadCrossEncoder(c.RERANK_MODEL));
  const crossEncoder = () =>
    loadedCrossEncoder().catch((err: Error) => {
      const cause = (err.cause as { message?: string } | undefined)?.message;
      const reason = cause ? `${err.message}: ${cause}` : err.message;
      app.log.warn({ model: c.RERANK_MODEL, reason }, 'cross-encoder not loadable');
      throw new TextHttpError(
        503,
        `Reranking is not available: the cross-encoder "${c.RERANK_MODEL}" could not be loaded (${reason}). ` +
          'Set RERANK_MODEL to a local model directory or a Hub id this server can reach, or search without "rerank".',
      );
    });
  const service = lazy(async () => {
    if (chroma) await chroma.start();
    const extractor = await loadEmbedder(c.EMBEDDING_MODEL);
    const embed = async (texts: string[]) => {
      const out = await extractor(texts, { pooling: 'mean', normalize: true });
      const [n, dim] = out.dims as [number, number];
      const flat = out.data as Float32Array;
      return Array.from({ length: n }, (_, i) => Array.from(flat.subarray(i * dim, (i + 1) * dim)));
    };
    const dim = (await embed(['dimension probe']))[0]!.length;
    const embedder = { id: c.EMBEDDING_MODEL, dim };
    const store = new VectorStore(chroma ? chroma.url : c.CHROMA_URL!, c.RAG_COLLECTION, embedder, embed);
    return new RagService({
      docsDir: fromRoot(c.DOCS_DIR),
      store,
      embed,
      embedder,
      semanticWeight: c.RAG_SEMANTIC_WEIGHT,
      normalisation: c.RAG_SCORE_NORMALISATION,
      crossEncoder,
      log: app.log,
    });
  });

  const pipeline = lazy(async () =>
    new AskPipeline(await service(), app.llm, {
      minSemantic: c.RAG_MIN_SEMANTIC,
      minBm25: c.RAG_MIN_BM25,
      groundingThreshold: c.RAG_GROUNDING_THRESHOLD,
      abbreviations: DEFAULT_ABBREVIATIONS,
      llmRewrite: c.RAG_LLM_REWRITE,
    }),
  );

  app.decorate('rag', {
    service,
    ask: pipeline,
    chroma,
    async start() {
      const rag = await service();
      if (!c.RAG_INDEX_ON_START) return rag.sync();
      let empty: boolean;
      try {
        empty = (await rag.opts.store.count()) === 0;
      } catch (err) {
        // A collection written by an earlier version is rebuilt from the documents, which are all on disk.
        if (!(err instanceof IndexLayoutError)) throw err;
        app.log.warn(err.message);
        await rag.index({ full: true });
        return;
      }
      if (empty) await rag.index();
      else await rag.sync();
    },
  });
  app.health.register('rag', () => ({ ready: true, chroma: c.CHROMA_URL ? 'external' : chroma?.pid ? 'running' : 'not started', restarts: chroma?.restartCount ?? 0 }));
  app.addHook('onClose', async () => {
    await chroma?.stop();
  });

  await app.register(async (scope) => {
    scope.setErrorHandler((err: FastifyError, request, reply) => {
      if (err instanceof TextHttpError) return reply.code(err.statusCode).send({ detail: err.detail, ...err.extra });
      if (err instanceof RagBusyError) return reply.code(409).send({ detail: 'An index run is already in progress; try again when it ends' });
      if (err instanceof EmbedderMismatchError || err instanceof IndexLayoutError) return reply.code(409).send({ detail: err.message });
      if (err.validation) return reply.code(400).send({ detail: 'Invalid input format', errors: err.validation.map((v) => ({ loc: v.instancePath, msg: v.message })) });
      if (err.code?.startsWith('FST_ERR_CTP_') || err.statusCode === 400) return reply.code(400).send({ detail: 'Invalid input format' });
      const chromaDown = /fetch failed|ECONNREFUSED|Failed to connect|connect/i.test(`${err.message} ${String((err as { cause?: unknown }).cause ?? '')}`);
      if (chromaDown) {
        request.log.warn({ err }, 'vector store unavailable');
        rag(); // a restarted Chroma gets the collection opened again
        return reply.code(503).send({ detail: 'The vector store is unavailable; try again in a few seconds' });
      }
      request.log.error({ err }, 'rag request failed');
      return reply.code(500).send({ detail: `Search failed: ${err.message}` });
    });
    const rag = () => void service.current()?.then((s) => s.opts.store.forget()).catch(() => undefined);
    const typed = scope.withTypeProvider<ZodTypeProvider>();

    typed.post(
      '/rag/index',
      {
        schema: {
          tags: ['rag'],
          summary: 'Index (or re-index) the .txt files of DOCS_DIR',
          description: 'Incremental by default (unchanged files skipped by hash); `{"full": true}` rebuilds. One run at a time: a second call gets 409.',
          body: z.strictObject({ full: z.boolean().default(false) }).optional(),
          response: { 200: IndexResultSchema, 400: Detail, 409: Detail, 503: Detail },
        },
      },
      async (request) => (await service()).index({ full: request.body?.full ?? false }),
    );

    typed.post(
      '/rag/search',
      {
        schema: {
          tags: ['rag'],
          summary: 'Hybrid search: semantic similarity and BM25, fused',
          body: z.strictObject({
            query: z.string().trim().min(1).max(2000),
            top_k: z.int().min(1).max(50).default(5),
            fusion: z.enum(['weighted', 'rrf']).default('weighted'),
            rerank: z.boolean().default(false),
          }),
          response: { 200: z.object({ query: z.string(), fusion: z.string(), results: z.array(SearchHitSchema) }), 400: Detail, 503: Detail },
        },
      },
      async (request) => {
        const { query, top_k, fusion, rerank } = request.body;

        const rag = await service();
        return { query, fusion, results: rerank ? await rag.searchReranked(query, top_k, fusion) : await rag.search(query, top_k, fusion) };
      },
    );

    const AskBody = z.object({
      question: z.unknown().describe('the question (text, 3 to 1,000 characters)'),
      top_k: z.int().min(1).max(20).default(5).describe('chunks to retrieve, 1 to 20'),
    });

    typed.post(
      '/rag/ask',
      {
        schema: {
          tags: ['rag'],
          summary: 'Answer a question from the documents (guardrails, rewriting, hybrid retrieval, grounding, confidence)',
          body: AskBody,
          response: { 200: z.record(z.string(), z.unknown()), 400: Detail, 409: Detail, 503: Detail },
        },
      },
      async (request) => (await pipeline()).ask(request.body.question, request.body.top_k),
    );

    typed.post(
      '/rag/ask/stream',
      {
        schema: {
          tags: ['rag'],
          summary: 'The same answer as Server-Sent Events: steps, then the answer text, then the final JSON',
          body: AskBody,
        },
      },
      async (request, reply) => {
        const verdict = checkQuestion(request.body.question);
        if (!verdict.ok) throw new TextHttpError(400, `Question refused: ${verdict.reason}`, { guardrail: 'input', reason: verdict.reason });
        const asker = await pipeline();
        reply.hijack();
        reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
        const send = (event: string, data: unknown) => reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        try {
          const result = await asker.ask(
            request.body.question,
            request.body.top_k,
            (step, data) => send('step', { step, ...data }),
            (text) => {
              for (const piece of text.match(/\S+\s*/g) ?? []) send('token', { text: piece });
            },
          );
          send('final', result);
        } catch (err) {
          const detail = err instanceof TextHttpError ? err.detail : 'Answering failed';
          request.log.error({ err }, 'streamed answer failed');
          send('error', { detail });
        }
        reply.raw.end();
      },
    );

    typed.post(
      '/rag/topics',
      {
        schema: {
          tags: ['rag'],
          summary: 'Topics of the collection (or of one source): k-means over chunk embeddings',
          description: 'Without `k`, k from 2 to 8 is chosen by the best mean silhouette. Labels are the clusters\' most distinctive words (tf-idf).',
          body: z.strictObject({ source: z.string().min(1).max(500).optional(), k: z.int().min(2).max(20).optional() }).optional(),
          response: { 200: z.record(z.string(), z.unknown()), 400: Detail, 503: Detail },
        },
      },
      async (request) => {
        const rag = await service();
        await rag.ready();
        const chunks = rag.chunks(request.body?.source);
        const k = request.body?.k;
        if (chunks.length < 3 || (k !== undefined && k >= chunks.length)) {
          throw new TextHttpError(400, `Not enough chunks to cluster: ${chunks.length}${request.body?.source ? ` in ${request.body.source}` : ''}`);
        }
        return topics(chunks, k);
      },
    );

    typed.get(
      '/rag/stats',
      { schema: { tags: ['rag'], summary: 'Collection statistics', response: { 200: z.record(z.string(), z.unknown()), 503: Detail } } },
      async () => (await service()).stats(),
    );
  });
}

export default fp(ragPlugin, { name: 'rag', dependencies: ['health', 'text'] });
