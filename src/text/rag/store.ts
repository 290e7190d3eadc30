// The vector store: one Chroma collection (cosine space) that records the embedder id and dimension it was built with.
import { ChromaClient, type Collection } from 'chromadb';

export class EmbedderMismatchError extends Error {
  constructor(readonly stored: { id: string; dim: number }, readonly current: { id: string; dim: number }) {
    super(
      `the collection was indexed with ${stored.id} (${stored.dim} dimensions) but the service now uses ${current.id} ` +
        `(${current.dim}): re-index with POST /rag/index {"full": true} or npm run index -- --full`,
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
  /** Present when read with embeddings. */
  embedding?: Float32Array;
}

export interface Neighbour {
  record: ChunkRecord;
  /** Cosine similarity, 1 - cosine distance. */
  similarity: number;
}

export class VectorStore {
  private collection: Collection | null = null;
  private readonly client: ChromaClient;

  constructor(
    url: string,
    readonly name: string,
    private readonly embedder: { id: string; dim: number },
    /** The service's embedder, handed to Chroma so it never falls back to a default model of its own. */
    private readonly embed: (texts: string[]) => Promise<number[][]>,
  ) {
    const u = new URL(url);
    this.client = new ChromaClient({ host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)), ssl: u.protocol === 'https:' });
  }

  private async open(): Promise<Collection> {
    if (this.collection) return this.collection;
    const c = await this.client.getOrCreateCollection({
      name: this.name,
      metadata: { 'hnsw:space': 'cosine', embedder: this.embedder.id, dimension: this.embedder.dim },
      // Embeddings are computed by the service; Chroma must never embed with a model of its own.
      embeddingFunction: { generate: this.embed, name: 'service-embedder' },
    });
    const meta = c.metadata ?? {};
    if (meta.embedder !== this.embedder.id || Number(meta.dimension) !== this.embedder.dim) {
      throw new EmbedderMismatchError({ id: String(meta.embedder), dim: Number(meta.dimension) }, this.embedder);
    }
    this.collection = c;
    return c;
  }

  /** Drops the collection (a full rebuild, or after an embedder change). */
  async reset(): Promise<void> {
    this.collection = null;
    try {
      await this.client.deleteCollection({ name: this.name });
    } catch {
      // absent already
    }
  }

  /** Forgets the open handle (after a Chroma restart the collection is opened again). */
  forget(): void {
    this.collection = null;
  }

  async count(): Promise<number> {
    return (await this.open()).count();
  }

  async add(records: ChunkRecord[], embeddings: number[][]): Promise<void> {
    if (!records.length) return;
    const c = await this.open();
    await c.add({
      ids: records.map((r) => r.id),
      embeddings,
      documents: records.map((r) => r.text),
      metadatas: records.map(({ source, chunk_index, start, end, file_hash }) => ({ source, chunk_index, start, end, file_hash })),
    });
  }

  async deleteSource(source: string): Promise<void> {
    await (await this.open()).delete({ where: { source } });
  }

  /** Every stored chunk (for BM25 and statistics), read in pages, optionally with its embedding. */
  async all(withEmbeddings = false): Promise<ChunkRecord[]> {
    const c = await this.open();
    const out: ChunkRecord[] = [];
    for (let offset = 0; ; offset += 1000) {
      const include = withEmbeddings ? (['documents', 'metadatas', 'embeddings'] as const) : (['documents', 'metadatas'] as const);
      const page = await c.get({ limit: 1000, offset, include: [...include] });
      page.ids.forEach((id, i) => {
        const r = toRecord(id, page.documents[i] ?? '', page.metadatas[i] ?? {});
        const e = page.embeddings?.[i];
        if (withEmbeddings && e) r.embedding = Float32Array.from(e);
        out.push(r);
      });
      if (page.ids.length < 1000) break;
    }
    return out;
  }

  async query(embedding: number[], n: number): Promise<Neighbour[]> {
    const c = await this.open();
    const total = await c.count();
    if (total === 0) return [];
    const res = await c.query({ queryEmbeddings: [embedding], nResults: Math.min(n, total), include: ['documents', 'metadatas', 'distances'] });
    const ids = res.ids[0] ?? [];
    return ids.map((id, i) => ({
      record: toRecord(id, res.documents[0]?.[i] ?? '', res.metadatas[0]?.[i] ?? {}),
      // Chroma's cosine space stores 1 - cos(a, b) as the distance.
      similarity: 1 - Number(res.distances[0]?.[i] ?? 1),
    }));
  }
}

function toRecord(id: string, text: string, m: Record<string, unknown>): ChunkRecord {
  return {
    id,
    text,
    source: String(m.source ?? ''),
    chunk_index: Number(m.chunk_index ?? 0),
    start: Number(m.start ?? 0),
    end: Number(m.end ?? 0),
    file_hash: String(m.file_hash ?? ''),
  };
}
