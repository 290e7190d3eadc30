// One index run over DOCS_DIR, as small steps: what the store holds per file, each file read, chunked, embedded and
// stored (or left alone when unchanged), and the files that left the folder removed. RagService runs it exclusively.
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { splitSentences } from '../sentences.js';
import { chunkDocument } from './chunker.js';
import { readableText } from './readable.js';
import type { ChunkRecord, SentenceRecord, VectorStore } from './store.js';

export type Embed = (texts: string[]) => Promise<number[][]>;

export interface IndexResult {
  full: boolean;
  documents: number;
  files_added: number;
  files_changed: number;
  files_unchanged: number;
  files_removed: number;
  chunks_added: number;
  chunks_removed: number;
  chunks_unchanged: number;
  errors: { source: string; error: string }[];
  duration_ms: number;
}

/** Marks hashes of files read as readable.ts reads them (Markdown as plain paragraphs) and sentences.ts splits them. */
const READING = '+readable15';
/** Chunks embedded and stored together, and sentences embedded together. */
const CHUNK_BATCH = 32;
const SENTENCE_BATCH = 64;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** False for a zero (or not finite) vector: an embedding of words the model does not know. */
export const hasDirection = (v: number[]) => {
  const norm = Math.hypot(...v);
  return Number.isFinite(norm) && norm > 1e-6;
};
/** A vector with no direction (NaN: a normalised mean over no known word) becomes zeros, which the vector store takes. */
const directionOrZero = (v: number[]) => (hasDirection(v) ? v : v.map(() => 0));
/** Semantic search units: the sentences of a chunk (a chunk without sentence breaks is one unit). */
const sentencesOfChunk = (text: string) => {
  const found = splitSentences(text);
  return found.length ? found : [text];
};

/** Every .txt file under the root, as paths relative to it; symbolic links are not followed. */
export async function listTextFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) await walk(path);
      else if (e.isFile() && e.name.toLowerCase().endsWith('.txt')) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  await walk(root);
  return out.sort();
}

/** What the store holds of a file: its hash, how many chunks, and whether all of them are there. */
export type StoredFile = { hash: string; chunks: number; complete: boolean };

export function storedFiles(records: Pick<ChunkRecord, 'source' | 'file_hash' | 'file_chunks'>[]): Map<string, StoredFile> {
  const stored = new Map<string, StoredFile>();
  for (const r of records) {
    const s = stored.get(r.source) ?? { hash: r.file_hash, chunks: 0, complete: false };
    s.chunks++;
    s.complete = s.chunks === r.file_chunks;
    stored.set(r.source, s);
  }
  return stored;
}

export const emptyResult = (full: boolean): IndexResult => ({
  full,
  documents: 0,
  files_added: 0,
  files_changed: 0,
  files_unchanged: 0,
  files_removed: 0,
  chunks_added: 0,
  chunks_removed: 0,
  chunks_unchanged: 0,
  errors: [],
  duration_ms: 0,
});

/** Embeds a file's chunks and their sentences, and stores them in batches. */
async function storeChunks(store: VectorStore, embed: Embed, source: string, hash: string, text: string): Promise<number> {
  const chunks = chunkDocument(readableText(text));
  for (let k = 0; k < chunks.length; k += CHUNK_BATCH) {
    const batch = chunks.slice(k, k + CHUNK_BATCH).map((c, j) => ({
      id: `${source}#${k + j}`,
      text: c.text,
      source,
      chunk_index: k + j,
      start: c.start,
      end: c.end,
      file_hash: hash,
      file_chunks: chunks.length,
    }));
    const vectors = (await embed(batch.map((c) => c.text))).map(directionOrZero);
    const units = batch.flatMap((c) => sentencesOfChunk(c.text).map((text) => ({ chunk_id: c.id, text })));
    const sentenceRecords: SentenceRecord[] = [];
    for (let u = 0; u < units.length; u += SENTENCE_BATCH) {
      const part = units.slice(u, u + SENTENCE_BATCH);
      // A sentence of words the model does not know ("0.", a lone list number) has no direction: the vector store
      // cannot normalise it (Chroma's server fails on it), and no question could find it by meaning anyway.
      (await embed(part.map((x) => x.text))).forEach((embedding, i) => {
        if (hasDirection(embedding)) sentenceRecords.push({ ...part[i]!, embedding });
      });
    }
    await store.add(batch, vectors, sentenceRecords);
  }
  return chunks.length;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * One file of the folder: left alone when its bytes (and the way files are read) are unchanged and all its chunks are
 * stored, otherwise its old chunks removed and the file indexed again; a file that is not UTF-8 is an error of the run.
 */
export async function indexFile(
  ctx: { store: VectorStore; embed: Embed; root: string; result: IndexResult },
  source: string,
  before: StoredFile | undefined,
): Promise<void> {
  const { store, result } = ctx;
  const bytes = await readFile(join(ctx.root, source));
  // The way a file is read (readable.ts) is part of its hash: a file read differently is indexed again.
  const hash = `${sha256(bytes)}${READING}`;
  // Unchanged: same bytes, and every chunk stored (an interrupted run leaves a file part-indexed).
  if (before && before.hash === hash && before.complete) {
    result.files_unchanged++;
    result.documents++;
    result.chunks_unchanged += before.chunks;
    return;
  }
  let text: string;
  try {
    text = decoder.decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    result.errors.push({ source, error: 'not valid UTF-8: save the file as UTF-8 and index again' });
    if (before) {
      await store.deleteSource(source);
      result.chunks_removed += before.chunks;
    }
    return;
  }
  // Also for a new file: sentences an interrupted run stored before their chunks must not linger.
  await store.deleteSource(source);
  if (before) result.chunks_removed += before.chunks;
  result.chunks_added += await storeChunks(store, ctx.embed, source, hash, text);
  result.documents++;
  if (before) result.files_changed++;
  else result.files_added++;
}
