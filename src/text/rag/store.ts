// The vector store: two Chroma collections (cosine space) that record the embedder id and dimension they were built
// with: the chunks (text, offsets, file hash and the chunk's embedding) and, beside them, the sentences of each chunk
// (their embeddings, with ids "<chunk id>/s<n>"). Semantic search ranks chunks by their best-matching sentence: a short
// question is compared with the passage that answers it, not with the average of 2,048 characters about many things.
import { ChromaClient, ChromaNotFoundError, type Collection } from 'chromadb';

/** The record layout this version writes; a collection written in another layout must be rebuilt. */
export const INDEX_LAYOUT = 'chunks+sentences/1';

export class EmbedderMismatchError extends Error {
  constructor(
    readonly stored: { id: string; dim: number },
    readonly current: { id: string; dim: number },
  ) {
    super(
      `the collection was indexed with ${stored.id} (${stored.dim} dimensions) but the service now uses ${current.id} ` +
        `(${current.dim}): re-index with POST /rag/index {"full": true} or npm run index -- --full`,
    );
  }
}

/** A collection written by an earlier version of the service, in a layout this one does not read. */
export class IndexLayoutError extends Error {
  constructor(readonly stored: string) {
    super(
      `the collection was written in an older index layout (${stored}) without sentence vectors: ` +
        're-index with POST /rag/index {"full": true} or npm run index -- --full',
    );
  }
}

export interface ChunkRecord {
  id: string;
  text: string;
  source: string;
  chunk_index: number;
  start: number;
  end: number;
  file_hash: string;
  /** How many chunks the file was cut into: fewer stored means an index run was interrupted. */
  file_chunks: number;
  /** Present when read with embeddings. */
  embedding?: Float32Array;
}

/** A sentence of a chunk, as stored for semantic search. */
export interface SentenceRecord {
  chunk_id: string;
  text: string;
  embedding: number[];
}

export interface SentenceNeighbour {
  chunk_id: string;
  /** Cosine similarity, 1 - cosine distance. */
  similarity: number;
}

/** The chunk a sentence id belongs to. */
export const chunkOfSentence = (id: string) => id.replace(/\/s\d+$/, '');

export class VectorStore {
  private collections: { chunks: Collection; sentences: Collection } | null = null;
  private readonly client: ChromaClient;
  private readonly sentencesName: string;

  constructor(
    url: string,
    readonly name: string,
    private readonly embedder: { id: string; dim: number },
    /** The service's embedder, handed to Chroma so it never falls back to a default model of its own. */
    private readonly embed: (texts: string[]) => Promise<number[][]>,
  ) {
    const u = new URL(url);
    this.client = new ChromaClient({ host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)), ssl: u.protocol === 'https:' });
    this.sentencesName = `${name}-sentences`;
  }

  /** The metadata this version writes on the chunks collection (Chroma replaces metadata as a whole). */
  private metadata(generation: number) {
    return { embedder: this.embedder.id, dimension: this.embedder.dim, layout: INDEX_LAYOUT, generation };
  }

  private async open(): Promise<{ chunks: Collection; sentences: Collection }> {
    if (this.collections) return this.collections;
    const collection = (name: string) =>
      this.client.getOrCreateCollection({
        name,
        metadata: { 'hnsw:space': 'cosine', ...this.metadata(this.carriedGeneration) },
        // Embeddings are computed by the service; Chroma must never embed with a model of its own.
        embeddingFunction: { generate: this.embed, name: 'service-embedder' },
      });
    const chunks = await collection(this.name);
    const meta = chunks.metadata ?? {};
    if (meta.embedder !== this.embedder.id || Number(meta.dimension) !== this.embedder.dim) {
      throw new EmbedderMismatchError({ id: String(meta.embedder), dim: Number(meta.dimension) }, this.embedder);
    }
    if (meta.layout !== INDEX_LAYOUT) throw new IndexLayoutError(String(meta.layout ?? 'chunks only'));
    this.collections = { chunks, sentences: await collection(this.sentencesName) };
    return this.collections;
  }

  /**
   * The index generation, shared by every process that uses this Chroma server: it goes up after each index run that
   * changed something, so processes holding the chunks in memory know to reload them. The collection's id is part of
   * it: a rebuilt collection is a new generation even if its counter were the same.
   */
  async generation(): Promise<string> {
    try {
      const c = await this.client.getCollection({ name: this.name, embeddingFunction: { generate: this.embed, name: 'service-embedder' } });
      return `${c.id}:${Number(c.metadata?.generation ?? 0)}`;
    } catch (err) {
      // Not indexed yet, or being rebuilt by another process (a full run drops it first).
      if (err instanceof ChromaNotFoundError) return 'absent';
      throw err;
    }
  }

  /** Records a new generation after an index run; returns it. */
  async bumpGeneration(): Promise<string> {
    const { chunks } = await this.open();
    const current = await this.client.getCollection({ name: this.name, embeddingFunction: { generate: this.embed, name: 'service-embedder' } });
    const next = Number(current.metadata?.generation ?? 0) + 1;
    await chunks.modify({ metadata: this.metadata(next) });
    return `${chunks.id}:${next}`;
  }

  /** A rebuilt collection continues the counter of the one it replaces. */
  private carriedGeneration = 0;

  /** Drops both collections (a full rebuild, or after an embedder change). */
  async reset(): Promise<void> {
    try {
      const old = await this.client.getCollection({ name: this.name, embeddingFunction: { generate: this.embed, name: 'service-embedder' } });
      this.carriedGeneration = Number(old.metadata?.generation ?? 0);
    } catch {
      // no collection yet
    }
    this.collections = null;
    for (const name of [this.name, this.sentencesName]) {
      try {
        await this.client.deleteCollection({ name });
      } catch {
        // absent already
      }
    }
  }

  /** Forgets the open handles (after a Chroma restart the collections are opened again). */
  forget(): void {
    this.collections = null;
  }

  async count(): Promise<number> {
    return (await this.open()).chunks.count();
  }

  /** Sentences first, then their chunks: a chunk is never visible without the vectors that find it. */
  async add(records: ChunkRecord[], embeddings: number[][], sentences: SentenceRecord[]): Promise<void> {
    if (!records.length) return;
    const c = await this.open();
    const source = new Map(records.map((r) => [r.id, r.source]));
    const seen = new Map<string, number>();
    const sentenceId = (s: SentenceRecord) => {
      const k = seen.get(s.chunk_id) ?? 0;
      seen.set(s.chunk_id, k + 1);
      return `${s.chunk_id}/s${k}`;
    };
    if (sentences.length) {
      await c.sentences.add({
        ids: sentences.map(sentenceId),
        embeddings: sentences.map((s) => s.embedding),
        documents: sentences.map((s) => s.text),
        metadatas: sentences.map((s) => ({ source: source.get(s.chunk_id)!, chunk_id: s.chunk_id })),
      });
    }
    await c.chunks.add({
      ids: records.map((r) => r.id),
      embeddings,
      documents: records.map((r) => r.text),
      metadatas: records.map(({ source, chunk_index, start, end, file_hash, file_chunks }) => ({ source, chunk_index, start, end, file_hash, file_chunks })),
    });
  }

  /** Removes a file's chunks, then their sentences. */
  async deleteSource(source: string): Promise<void> {
    const c = await this.open();
    await c.chunks.delete({ where: { source } });
    await c.sentences.delete({ where: { source } });
  }

  /** Pages through a collection. */
  private async *pages(collection: Collection, include: ('documents' | 'metadatas' | 'embeddings')[]) {
    for (let offset = 0; ; offset += 1000) {
      const page = await collection.get({ limit: 1000, offset, include });
      yield page;
      if (page.ids.length < 1000) break;
    }
  }

  /** Every stored chunk (for BM25 and statistics), optionally with its embedding. */
  async all(withEmbeddings = false): Promise<ChunkRecord[]> {
    const out: ChunkRecord[] = [];
    const include = withEmbeddings ? (['documents', 'metadatas', 'embeddings'] as const) : (['documents', 'metadatas'] as const);
    for await (const page of this.pages((await this.open()).chunks, [...include])) {
      page.ids.forEach((id, i) => {
        const r = toRecord(id, page.documents[i] ?? '', page.metadatas[i] ?? {});
        const e = page.embeddings?.[i];
        if (withEmbeddings && e) r.embedding = Float32Array.from(e);
        out.push(r);
      });
    }
    return out;
  }

  /** The sentence vectors of every chunk, by chunk id, packed row after row into one array per chunk. */
  async sentenceVectors(): Promise<Map<string, Float32Array>> {
    const rows = new Map<string, number[][]>();
    for await (const page of this.pages((await this.open()).sentences, ['embeddings'])) {
      page.ids.forEach((id, i) => {
        const e = page.embeddings?.[i];
        if (!e) return;
        const chunk = chunkOfSentence(id);
        const list = rows.get(chunk) ?? [];
        list.push(e);
        rows.set(chunk, list);
      });
    }
    return new Map([...rows].map(([chunk, list]) => [chunk, Float32Array.from(list.flat())]));
  }

  /** The n sentences nearest to the embedding, as (chunk, similarity) pairs, best first. */
  async querySentences(embedding: number[], n: number): Promise<SentenceNeighbour[]> {
    const { sentences } = await this.open();
    const total = await sentences.count();
    if (total === 0) return [];
    // Distances only: the chunk is in the id, and fetching metadata would triple the time of the query.
    const res = await sentences.query({ queryEmbeddings: [embedding], nResults: Math.min(n, total), include: ['distances'] });
    return (res.ids[0] ?? []).map((id, i) => ({
      chunk_id: chunkOfSentence(id),
      // Chroma's cosine space stores 1 - cos(a, b) as the distance.
      similarity: 1 - Number(res.distances[0]?.[i] ?? 1),
    }));
  }
}

function toRecord(id: string, text: string, m: Record<string, unknown>): ChunkRecord {
  return {
    id,
    text,
    source: typeof m.source === 'string' ? m.source : '',
    chunk_index: Number(m.chunk_index ?? 0),
    start: Number(m.start ?? 0),
    end: Number(m.end ?? 0),
    file_hash: typeof m.file_hash === 'string' ? m.file_hash : '',
    file_chunks: Number(m.file_chunks ?? 0),
  };
}
