// Document chunks of at most 2,048 characters overlapping by 150, cut at a paragraph, else a sentence, else a word.

export interface DocChunk {
  text: string;
  /** UTF-16 offsets into the document (JavaScript string indices), end exclusive. */
  start: number;
  end: number;
}

export const CHUNK_SIZE = 2048;
export const CHUNK_OVERLAP = 150;

/** Never cut between the two halves of a surrogate pair (a character outside the BMP). */
function safe(text: string, i: number): number {
  if (i <= 0 || i >= text.length) return Math.max(0, Math.min(i, text.length));
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
}

/** The best cut in (minEnd, maxEnd]: the last paragraph break, else sentence end, else whitespace, else maxEnd. */
function cutPoint(text: string, start: number, maxEnd: number): number {
  const window = text.slice(start, maxEnd);
  const min = Math.floor(window.length / 2); // do not make tiny chunks to reach a boundary
  const last = (re: RegExp) => {
    let found = -1;
    for (const m of window.matchAll(re)) if (m.index + m[0].length > min) found = m.index + m[0].length;
    return found;
  };
  for (const re of [/\n\s*\n/g, /[.!?…]["'”’)\]]*\s+/gu, /\s+/g]) {
    const at = last(re);
    if (at > 0) return start + at;
  }
  return safe(text, maxEnd);
}

export function chunkDocument(text: string, size = CHUNK_SIZE, overlap = CHUNK_OVERLAP): DocChunk[] {
  const chunks: DocChunk[] = [];
  let start = 0;
  while (start < text.length) {
    const maxEnd = start + size;
    const end = maxEnd >= text.length ? text.length : cutPoint(text, start, maxEnd);
    const piece = text.slice(start, end);
    if (piece.trim()) chunks.push({ text: piece, start, end });
    if (end >= text.length) break;
    // The next chunk starts `overlap` characters back, moved forward to a word start when one is near.
    let next = safe(text, end - overlap);
    const space = text.slice(next, end).search(/\s\S/);
    if (space >= 0 && space < overlap / 2) next += space + 1;
    start = next > start ? next : end;
  }
  return chunks;
}
