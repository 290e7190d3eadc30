// Document retrieval: incremental indexing of DOCS_DIR into Chroma, BM25 kept in step, hybrid search, statistics.
import { realpath } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { CrossEncoder } from '../models.js';
import { Bm25Index, bm25Tokens, titleWords } from '../search/bm25.js';
import { type Normalisation, type Scored, bestRow, rrfFusion, weightedFusion } from '../search/hybrid.js';
import { CHUNK_OVERLAP, CHUNK_SIZE } from './chunker.js';
import { type Embed, type IndexResult, emptyResult, hasDirection, indexFile, listTextFiles, storedFiles } from './index-run.js';
import { topics } from './topics.js';
import { type ChunkRecord, IndexLayoutError, type VectorStore } from './store.js';

export type { Embed, IndexResult } from './index-run.js';

export class RagBusyError extends Error {}

/** Sentences asked of Chroma for each chunk wanted: chunks hold ~10-20 sentences, and several of a chunk match. */
const SENTENCES_PER_CANDIDATE = 4;

export interface SearchHit extends Omit<ChunkRecord, 'file_hash' | 'file_chunks' | 'embedding'> {
  semantic_score: number;
  bm25_score: number;
  combined_score: number;
  /** The cross-encoder's relevance logit, when the results were reranked. */
  rerank_score?: number;
}

/** Hybrid results a cross-encoder reorders: the best `max(top_k, RERANK_DEPTH)`. */
export const RERANK_DEPTH = 20;
/** Chunks that mention a question's missing names, by BM25 on the names alone, checked for holding all of them. */
const HOLDING_CANDIDATES = 50;

export interface RagOptions {
  docsDir: string;
  /** The cross-encoder for reranking, loaded on first use (rejects when it cannot be loaded). */
  crossEncoder?: () => Promise<CrossEncoder>;
  store: VectorStore;
  embed: Embed;
  embedder: { id: string; dim: number };
  semanticWeight: number;
  normalisation: Normalisation;
  log: FastifyBaseLogger;
  /**
   * Runs an index run exclusively across every process sharing the store (a PostgreSQL advisory lock): false when
   * another holds it, or after waiting for it with `wait`. Without it, runs are exclusive within this process only.
   */
  exclusive?: (fn: () => Promise<void>, wait: boolean) => Promise<boolean>;
  /** How often a search checks the shared generation (another process may have re-indexed); 0 = every search. */
  syncIntervalMs?: number;
  /** Clusters elsewhere (a worker thread); without it, here. */
  cluster?: (records: ChunkRecord[], k?: number) => Promise<ReturnType<typeof topics>>;
}

export interface IndexProgress {
  done: number;
  total: number;
  file: string;
}

export class RagService {
  private bm25: Bm25Index | null = null;
  private records = new Map<string, ChunkRecord>();
  /** Each chunk's sentence vectors (rows of the embedder's dimension), for the chunks only BM25 found. */
  private sentenceVectors = new Map<string, Float32Array>();
  private running: Promise<unknown> | null = null;
  lastIndexed: string | null = null;
  /** Goes up whenever the chunks in memory are reloaded, so derived data (vocabularies) knows to rebuild. */
  generation = 0;
  /** The store's shared generation that the chunks in memory come from. */
  private storeGeneration: string | null = null;
  private lastCheck = 0;
  private checking: Promise<void> | null = null;
  /** Where the index run in progress is (for the command line's progress bar). */
  progress: IndexProgress | null = null;
  private topicCache = new Map<string, ReturnType<typeof topics>>();
  /** How the last index run in this process ended (for /health). */
  lastRun: { at: string; ok: boolean; error?: string } | null = null;

  constructor(readonly opts: RagOptions) {}

  /** Builds BM25 from what Chroma holds (at start-up and after each index run), so both see the same chunks. */
  async sync(): Promise<void> {
    // Read before the chunks: a run finishing meanwhile shows up as a newer generation at the next check.
    const generation = await this.opts.store.generation();
    const all = await this.opts.store.all(true);
    this.records = new Map(all.map((r) => [r.id, r]));
    this.sentenceVectors = await this.opts.store.sentenceVectors();
    const bm25 = new Bm25Index();
    for (const r of all) bm25.add(r.id, r.text, titleWords(r.source));
    bm25.build();
    this.bm25 = bm25;
    this.generation++;
    this.storeGeneration = generation;
    this.lastCheck = Date.now();
  }

  /**
   * Reloads the chunks when another process re-indexed the shared store: checked at most once per sync interval, so
   * what a search sees is at most that interval (plus the reload) behind the last index run anywhere.
   */
  private async fresh(): Promise<void> {
    const interval = this.opts.syncIntervalMs ?? 1000;
    if (this.running || Date.now() - this.lastCheck < interval) return;
    this.checking ??= (async () => {
      try {
        this.lastCheck = Date.now();
        const current = await this.opts.store.generation();
        if (current !== this.storeGeneration) {
          this.opts.log.info({ from: this.storeGeneration, to: current }, 'the index changed in another process: reloading');
          this.opts.store.forget();
          await this.sync();
        }
      } catch (err) {
        // Serving what is in memory beats failing; the search itself reports a store that is down.
        this.opts.log.warn({ err }, 'index generation check failed');
      } finally {
        this.checking = null;
      }
    })();
    await this.checking;
  }

  /** One index run at a time, across processes too; a second call while one runs is refused (RagBusyError, 409). */
  index(opts: { full?: boolean } = {}, progress?: (done: number, total: number, file: string) => void): Promise<IndexResult> {
    return this.exclusively(false, () => this.runIndex(opts, progress));
  }

  /**
   * Start-up: waits for an index run another process may be making, then brings the index in line with DOCS_DIR: an
   * incremental run, which indexes everything into an empty collection, finishes what an interrupted run left half
   * done, picks up files changed while the service was down, and otherwise only reads hashes. A collection written in
   * an older layout is rebuilt. Replicas starting together index once; the later ones find nothing to do.
   */
  indexOnStart(): Promise<IndexResult> {
    return this.exclusively(true, async () => {
      try {
        await this.opts.store.count();
      } catch (err) {
        // A collection written by an earlier version is rebuilt from the documents, which are all on disk.
        if (!(err instanceof IndexLayoutError)) throw err;
        this.opts.log.warn(err.message);
        return this.runIndex({ full: true });
      }
      return this.runIndex({});
    });
  }

  private exclusively<T>(wait: boolean, fn: () => Promise<T>): Promise<T> {
    if (this.running) return Promise.reject(new RagBusyError('an index run is already in progress'));
    const exclusive = this.opts.exclusive ?? (async (f: () => Promise<void>) => (await f(), true));
    const run = (async () => {
      let value: T | undefined;
      const ran = await exclusive(async () => {
        try {
          value = await fn();
          this.lastRun = { at: new Date().toISOString(), ok: true };
        } catch (err) {
          this.lastRun = { at: new Date().toISOString(), ok: false, error: (err as Error).message };
          throw err;
        }
      }, wait);
      if (!ran) throw new RagBusyError('an index run is already in progress in another process');
      return value as T;
    })().finally(() => {
      this.running = null;
      this.progress = null;
    });
    this.running = run;
    return run;
  }

  private async runIndex(opts: { full?: boolean }, progress?: (done: number, total: number, file: string) => void): Promise<IndexResult> {
    const t0 = performance.now();
    const { store, docsDir, embed } = this.opts;
    if (opts.full) await store.reset();
    const stored = storedFiles(opts.full ? [] : await store.all());
    const root = await realpath(docsDir);
    const files = await listTextFiles(root);
    const result = emptyResult(Boolean(opts.full));
    const report = (done: number, file: string) => {
      this.progress = { done, total: files.length, file };
      progress?.(done, files.length, file);
    };
    for (const [i, source] of files.entries()) {
      report(i, source);
      const before = stored.get(source);
      stored.delete(source);
      await indexFile({ store, embed, root, result }, source, before);
    }
    // Files that disappeared from the folder leave the index.
    for (const [source, s] of stored) {
      await store.deleteSource(source);
      result.files_removed++;
      result.chunks_removed += s.chunks;
    }
    report(files.length, '');
    // Other processes reload when they see the new generation; nothing changed, nothing to reload (here either).
    const changed = opts.full || result.files_added + result.files_changed + result.files_removed > 0 || result.chunks_removed > 0;
    if (changed) await store.bumpGeneration();
    if (changed || !this.bm25) await this.sync();
    this.lastIndexed = new Date().toISOString();
    result.duration_ms = Math.round(performance.now() - t0);
    this.opts.log[changed ? 'info' : 'debug']({ ...result, errors: result.errors.length }, changed ? 'documents indexed' : 'index up to date');
    return result;
  }

  /**
   * Loads the chunks (and BM25) from the store on first use. While the first index run is under way, this waits for
   * it rather than reading a half-written collection (a read that could land after the run's own and undo it).
   */
  async ready(): Promise<void> {
    if (this.bm25) return this.fresh();
    await this.running?.catch(() => undefined);
    if (!this.bm25) await this.sync();
  }

  /** True once the chunks are in memory (readiness). */
  get loaded(): boolean {
    return this.bm25 !== null;
  }

  /**
   * Topics of the collection or of one source. Clustering is deterministic for a given set of chunks, so results are
   * kept per index generation (a few entries): asking again costs nothing until the index changes.
   */
  async topics(source?: string, k?: number) {
    await this.ready();
    const key = `${this.generation}\u0000${source ?? ''}\u0000${k ?? ''}`;
    const cached = this.topicCache.get(key);
    if (cached) return cached;
    const chunks = this.chunks(source);
    // Two chunks cannot be compared by silhouette: a short document is one topic. A requested k needs more chunks.
    if (!chunks.length || (k !== undefined && k >= chunks.length)) return null;
    const result = this.opts.cluster ? await this.opts.cluster(chunks, k) : topics(chunks, k);
    if (this.topicCache.size >= 32) this.topicCache.delete(this.topicCache.keys().next().value!);
    this.topicCache.set(key, result);
    return result;
  }

  /** Chunks with their embeddings, optionally of one source. */
  chunks(source?: string): ChunkRecord[] {
    return [...this.records.values()].filter((r) => !source || r.source === source);
  }

  /** One chunk of a document, by its index. */
  chunk(source: string, chunkIndex: number): ChunkRecord | undefined {
    for (const r of this.records.values()) if (r.source === source && r.chunk_index === chunkIndex) return r;
    return undefined;
  }

  get indexing(): boolean {
    return this.running !== null;
  }

  /** `semanticWeight` overrides the configured weight (1 = semantic only, 0 = BM25 only; evaluations use it). */
  async search(
    query: string,
    topK: number,
    fusion: 'weighted' | 'rrf' = 'weighted',
    semanticWeight = this.opts.semanticWeight,
    normalisation = this.opts.normalisation,
  ): Promise<SearchHit[]> {
    await this.ready();
    const candidates = Math.max(50, topK * 5);
    const [qv] = await this.opts.embed([query]);
    // A query of words the embedder does not know has no direction (a zero vector, which Chroma refuses): BM25 alone.
    if (!hasDirection(qv!)) return this.rank(new Map(), new Map(this.bm25!.search(query, candidates)), topK, fusion, semanticWeight, normalisation);
    // A chunk's semantic similarity is that of its best-matching sentence. Nearest sentences come from Chroma (several
    // per chunk, so ask for more), and the best `candidates` chunks among them are kept.
    const semantic = new Map<string, number>();
    for (const n of await this.opts.store.querySentences(qv!, candidates * SENTENCES_PER_CANDIDATE)) {
      if (semantic.size >= candidates && !semantic.has(n.chunk_id)) break;
      semantic.set(n.chunk_id, Math.max(n.similarity, semantic.get(n.chunk_id) ?? -1));
    }
    const keyword = new Map(this.bm25!.search(query, candidates));
    // Candidates only BM25 found still get their true semantic similarity, from the sentence vectors kept in memory.
    for (const id of keyword.keys()) {
      const rows = this.sentenceVectors.get(id);
      if (!semantic.has(id) && rows?.length) semantic.set(id, bestRow(qv!, rows));
    }
    return this.rank(semantic, keyword, topK, fusion, semanticWeight, normalisation);
  }

  /**
   * Hybrid search among the chunks of some documents only ("What did Eisenhower warn about?" is about his address:
   * over the whole collection, other addresses' warnings outrank it). Every chunk of those documents is scored.
   */
  async searchIn(query: string, topK: number, sources: ReadonlySet<string>): Promise<SearchHit[]> {
    await this.ready();
    return this.searchAmong(query, topK, new Set([...this.records.values()].filter((r) => sources.has(r.source)).map((r) => r.id)));
  }

  /**
   * Hybrid search among the chunks that hold every one of some names (all of each name's BM25 stems): the passages
   * a question's names pick out, when the best hits of a plain search never name them ("How long did Western Europe
   * control Cyprus?" of a collection where "Western Europe" is everywhere and Cyprus in one chunk).
   */
  async searchHolding(query: string, topK: number, names: string[]): Promise<SearchHit[]> {
    await this.ready();
    const stems = names.map((n) => bm25Tokens(n)).filter((s) => s.length);
    if (!stems.length) return [];
    const ids = new Set(
      this.bm25!.search(stems.flat().join(' '), HOLDING_CANDIDATES)
        .map(([id]) => id)
        .filter((id) => {
          const held = new Set(bm25Tokens(this.records.get(id)?.text ?? ''));
          return stems.every((s) => s.every((stem) => held.has(stem)));
        }),
    );
    return this.searchAmong(query, topK, ids);
  }

  /** Hybrid search among some chunks only, every one of them scored. */
  private async searchAmong(query: string, topK: number, ids: ReadonlySet<string>): Promise<SearchHit[]> {
    if (!ids.size) return [];
    const [qv] = await this.opts.embed([query]);
    const keyword = new Map(this.bm25!.search(query, this.records.size).filter(([id]) => ids.has(id)));
    const semantic = new Map<string, number>();
    if (hasDirection(qv!))
      for (const id of ids) {
        const rows = this.sentenceVectors.get(id);
        if (rows?.length) semantic.set(id, bestRow(qv!, rows));
      }
    return this.rank(semantic, keyword, topK, 'weighted', this.opts.semanticWeight, this.opts.normalisation);
  }

  private rank(
    semantic: Map<string, number>,
    keyword: Map<string, number>,
    topK: number,
    fusion: 'weighted' | 'rrf',
    semanticWeight: number,
    normalisation: Normalisation,
  ): SearchHit[] {
    const fused: Scored[] = fusion === 'rrf' ? rrfFusion(semantic, keyword) : weightedFusion(semantic, keyword, semanticWeight, normalisation);
    return fused
      .filter((s) => this.records.has(s.id))
      .slice(0, topK)
      .map((s) => {
        const r = this.records.get(s.id)!;
        return {
          id: r.id,
          text: r.text,
          source: r.source,
          chunk_index: r.chunk_index,
          start: r.start,
          end: r.end,
          semantic_score: Math.round(s.semantic * 1e4) / 1e4,
          bm25_score: Math.round(s.bm25 * 1e4) / 1e4,
          combined_score: Math.round(s.combined * 1e4) / 1e4,
        };
      });
  }

  /** Hybrid search, then the best `max(topK, RERANK_DEPTH)` reordered by the cross-encoder's relevance logit. */
  async searchReranked(query: string, topK: number, fusion: 'weighted' | 'rrf' = 'weighted'): Promise<SearchHit[]> {
    return this.rerank(query, await this.search(query, Math.max(topK, RERANK_DEPTH), fusion), topK);
  }

  /** The hits reordered by the cross-encoder's relevance logit (best first), the best `topK` kept. */
  async rerank(query: string, hits: SearchHit[], topK: number): Promise<SearchHit[]> {
    if (!this.opts.crossEncoder) throw new Error('no cross-encoder configured');
    const crossEncoder = await this.opts.crossEncoder();
    const logits = await crossEncoder.score(
      query,
      hits.map((h) => h.text),
    );
    return hits
      .map((h, i) => ({ ...h, rerank_score: Math.round(logits[i]! * 1e4) / 1e4 }))
      .sort((a, b) => b.rerank_score - a.rerank_score)
      .slice(0, topK);
  }

  async stats() {
    await this.ready();
    const sources = new Map<string, number>();
    for (const r of this.records.values()) sources.set(r.source, (sources.get(r.source) ?? 0) + 1);
    return {
      collection: this.opts.store.name,
      documents: sources.size,
      chunks: this.records.size,
      sentence_vectors: [...this.sentenceVectors.values()].reduce((n, rows) => n + rows.length / this.opts.embedder.dim, 0),
      sources: [...sources].sort((a, b) => a[0].localeCompare(b[0])).map(([source, chunks]) => ({ source, chunks })),
      embedder: this.opts.embedder,
      chunk_size: CHUNK_SIZE,
      chunk_overlap: CHUNK_OVERLAP,
      semantic_weight: this.opts.semanticWeight,
      score_normalisation: this.opts.normalisation,
      last_indexed: this.lastIndexed,
      indexing: this.running !== null,
      index_progress: this.progress,
    };
  }
}
