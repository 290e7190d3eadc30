// Facts about the documents themselves, which their text may never state: who wrote or delivered each one and when.
// An optional `documents.json` beside the documents in DOCS_DIR maps a file name (as `sources` gives it) to its
// author, date and title, and optionally what questions call such a document (kind) and its author (role). Only that
// one file is read; its keys are looked up, never opened.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const DOCUMENTS_FILE = 'documents.json';

const DocumentMetaSchema = z
  .object({
    author: z.string().trim().min(1).max(200).optional(),
    /** A year, or a full date (2010-01-27). */
    date: z
      .string()
      .regex(/^\d{4}(-\d\d(-\d\d)?)?$/)
      .optional(),
    title: z.string().trim().min(1).max(300).optional(),
    /** What questions call this kind of document ("address", or several: ["address", "speech"]), beside "document". */
    kind: z.union([z.string().trim().min(1).max(60), z.array(z.string().trim().min(1).max(60)).max(20)]).optional(),
    /**
     * The role of its author ("president"), beside "author": questions about the holder of that role ("Which president
     * ...?", "Who said ...?") are answered from this catalogue; without a role, only from the documents' text.
     */
    role: z.union([z.string().trim().min(1).max(60), z.array(z.string().trim().min(1).max(60)).max(20)]).optional(),
  })
  .strict();

export type DocumentMeta = z.infer<typeof DocumentMetaSchema>;
export type DocumentCatalogue = ReadonlyMap<string, DocumentMeta>;

const CatalogueSchema = z.record(z.string().min(1).max(500), DocumentMetaSchema);

const EMPTY: DocumentCatalogue = new Map();

/**
 * The catalogue of a documents folder, read again when the file changes. A missing file is an empty catalogue; an
 * invalid one too, reported once per version through `onInvalid`.
 */
export function documentCatalogue(docsDir: string, onInvalid: (message: string) => void = () => {}): () => DocumentCatalogue {
  const path = join(docsDir, DOCUMENTS_FILE);
  let cached: { mtimeMs: number; size: number; catalogue: DocumentCatalogue } | null = null;
  return () => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      cached = null;
      return EMPTY;
    }
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.catalogue;
    let catalogue = EMPTY;
    try {
      const parsed = CatalogueSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (parsed.success) catalogue = new Map(Object.entries(parsed.data));
      else onInvalid(`${DOCUMENTS_FILE} is ignored: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
    } catch (err) {
      onInvalid(`${DOCUMENTS_FILE} is ignored: ${(err as Error).message}`);
    }
    cached = { mtimeMs: stat.mtimeMs, size: stat.size, catalogue };
    return catalogue;
  };
}
