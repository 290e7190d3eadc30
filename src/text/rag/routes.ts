// The document search routes: /rag/index, /rag/search, /rag/ask (and its stream), /rag/topics, /rag/stats, answering
// errors in the text domain's {detail} shape.
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Lazy } from '../../infra/lazy.js';
import { guardOperatorRoutes } from '../../infra/operator-access.js';
import { TextHttpError, textErrorHandler } from '../errors.js';
import { ModelLoadError } from '../hub.js';
import type { AskPipeline } from './ask/pipeline.js';
import { checkQuestion } from './ask/guardrails.js';
import { AskResponseSchema } from './ask-schema.js';
import { RagBusyError, type RagService } from './service.js';
import { EmbedderMismatchError, IndexLayoutError } from './store.js';

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

/** What the request log keeps of an answer: its kind and confidence, not the text (which quotes the question). */
const answerSummary = (r: unknown) => {
  const { answer_type, confidence, llm_powered, sources } = (r ?? {}) as Record<string, unknown>;
  return { answer_type, confidence, llm_powered, sources };
};

type Service = Lazy<RagService>;
type Pipeline = Lazy<AskPipeline>;

/** The text domain's {detail} errors for the document search's own failures (the model, a busy index, Chroma down). */
function ragErrors(app: FastifyInstance, service: Service) {
  app.setErrorHandler(
    textErrorHandler('Search failed', (err, request) => {
      if (err instanceof ModelLoadError)
        return new TextHttpError(503, 'Document search is not available: the embedding model could not be loaded', {}, err.message);
      if (err instanceof RagBusyError) return new TextHttpError(409, 'An index run is already in progress; try again when it ends');
      if (err instanceof EmbedderMismatchError || err instanceof IndexLayoutError) return new TextHttpError(409, err.message);
      const chromaDown = /fetch failed|ECONNREFUSED|Failed to connect|connect/i.test(
        `${err.message} ${(err as { cause?: { message?: string } }).cause?.message ?? ''}`,
      );
      if (!chromaDown) return null;
      request.log.warn({ err }, 'vector store unavailable');
      rag(); // a restarted Chroma gets the collection opened again
      return new TextHttpError(503, 'The vector store is unavailable; try again in a few seconds');
    }),
  );
  const rag = () =>
    void service
      .current()
      ?.then((s) => s.opts.store.forget())
      .catch(() => undefined);
}

/** POST /rag/index, an operator route (ADMIN_TOKEN, or loopback clients only). */
async function indexRoute(app: FastifyInstance, service: Service) {
  // Indexing is an operator route (ADMIN_TOKEN, or loopback clients only); the rest of the scope is public.
  await app.register(async (operator) => {
    await guardOperatorRoutes(operator, app.config, (_status, message) => ({ detail: message }));
    operator.withTypeProvider<ZodTypeProvider>().post(
      '/rag/index',
      {
        schema: {
          tags: ['rag'],
          summary: 'Index (or re-index) the .txt files of DOCS_DIR',
          description:
            'Incremental by default (unchanged files skipped by hash); `{"full": true}` rebuilds. One run at a time, across replicas ' +
            'sharing PostgreSQL too: a second call gets 409. `/rag/stats` shows `index_progress` while it runs. Operator route.',
          body: z.strictObject({ full: z.boolean().default(false) }).nullish(),
          response: { 200: IndexResultSchema, 400: Detail, 401: Detail, 403: Detail, 409: Detail, 503: Detail },
        },
      },
      async (request) => (await service()).index({ full: request.body?.full ?? false }),
    );
  });
}

/** POST /rag/search. */
async function searchRoute(app: FastifyInstance, service: Service) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/rag/search',
    {
      config: { freeText: { fields: ['query'], summary: (r) => ({ results: (r as { results?: unknown[] } | undefined)?.results?.length }) } },
      schema: {
        tags: ['rag'],
        summary: 'Hybrid search: semantic similarity and BM25, fused',
        body: z.strictObject({
          query: z.string().trim().min(1).max(2000).meta({ example: 'war on poverty' }),
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
}

const AskBody = z.strictObject({
  question: z.string().describe('the question, 3 to 1,000 characters').meta({ example: 'What did Lyndon Johnson declare war on?' }),
  top_k: z.int().min(1).max(20).default(5).describe('chunks to retrieve, 1 to 20'),
});

/** POST /rag/ask. */
async function askRoute(app: FastifyInstance, pipeline: Pipeline) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/rag/ask',
    {
      config: { freeText: { fields: ['question'], summary: answerSummary } },
      schema: {
        tags: ['rag'],
        summary: 'Answer a question from the documents (guardrails, rewriting, hybrid retrieval, grounding, confidence)',
        body: AskBody,
        response: { 200: AskResponseSchema, 400: Detail, 409: Detail, 503: Detail },
      },
    },
    async (request) => (await pipeline()).ask(request.body.question, request.body.top_k),
  );
}

/** POST /rag/ask/stream: the same answer as Server-Sent Events. */
async function askStreamRoute(app: FastifyInstance, pipeline: Pipeline) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/rag/ask/stream',
    {
      config: { freeText: { fields: ['question'] } },
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
      // A client that goes away ends the LLM call it was waiting for.
      const gone = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) gone.abort();
      });
      // Headers other hooks set (CORS, the request id) go out with the stream: hijacking skips Fastify's own sending.
      const headers = { ...reply.getHeaders(), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };
      reply.hijack();
      reply.raw.writeHead(200, headers as Record<string, string>);
      const send = (event: string, data: unknown) => {
        if (!gone.signal.aborted) return reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        return true;
      };
      // Back-pressure: a token waits until the socket has taken the previous ones (or the client is gone).
      const sendToken = async (text: string) => {
        for (const piece of text.match(/\S+\s*/g) ?? []) {
          if (!send('token', { text: piece })) await once(reply.raw, 'drain', { signal: gone.signal }).catch(() => undefined);
        }
      };
      try {
        const result = await asker.ask(request.body.question, request.body.top_k, (step, data) => send('step', { step, ...data }), sendToken, gone.signal);
        send('final', result);
      } catch (err) {
        const detail = err instanceof TextHttpError ? err.detail : 'Answering failed';
        if (!gone.signal.aborted) request.log.error({ err }, 'streamed answer failed');
        send('error', { detail });
      }
      reply.raw.end();
    },
  );
}

/** POST /rag/topics. */
async function topicsRoute(app: FastifyInstance, service: Service) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/rag/topics',
    {
      schema: {
        tags: ['rag'],
        summary: 'Topics of the collection (or of one source): k-means over chunk embeddings',
        description:
          "Without `k`, k from 2 to 8 is chosen by the best mean silhouette; one or two chunks are one topic. Labels are the clusters' most distinctive words (tf-idf).",
        body: z.strictObject({ source: z.string().min(1).max(500).optional(), k: z.int().min(2).max(20).optional() }).nullish(),
        response: { 200: z.record(z.string(), z.unknown()), 400: Detail, 404: Detail, 503: Detail },
      },
    },
    async (request) => {
      const rag = await service();
      const source = request.body?.source ?? undefined;
      const found = await rag.topics(source, request.body?.k);
      if (!found && source !== undefined && rag.chunks(source).length === 0) {
        throw new TextHttpError(404, `No document named ${source} in the index (GET /rag/stats lists them)`);
      }
      if (!found) {
        const n = rag.chunks(source).length;
        const where = source === undefined ? 'the index' : source;
        if (!n) throw new TextHttpError(400, 'The index holds no documents to cluster (POST /rag/index reads DOCS_DIR)');
        throw new TextHttpError(
          400,
          `k = ${request.body?.k} needs more than ${request.body?.k} chunks; ${where} has ${n}. Ask for a smaller k, or leave it out`,
        );
      }
      return found;
    },
  );
}

/** GET /rag/stats. */
async function statsRoute(app: FastifyInstance, service: Service) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    '/rag/stats',
    { schema: { tags: ['rag'], summary: 'Collection statistics', response: { 200: z.record(z.string(), z.unknown()), 503: Detail } } },
    async () => (await service()).stats(),
  );
}

export async function ragRoutes(app: FastifyInstance, opts: { service: Service; pipeline: Pipeline }) {
  ragErrors(app, opts.service);
  await indexRoute(app, opts.service);
  await searchRoute(app, opts.service);
  await askRoute(app, opts.pipeline);
  await askStreamRoute(app, opts.pipeline);
  await topicsRoute(app, opts.service);
  await statsRoute(app, opts.service);
}
