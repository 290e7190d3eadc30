// A tagged sentence in little memory. The reader remembers the tags of a whole collection (read-ahead.ts), so a
// sentence's terms are kept packed: their text, spacing and stems in one string, their tag sets as numbers into a
// shared list (a few hundred combinations occur). About a fifth of the memory of the term objects themselves.
import type { Term } from './extractive.js';

const tagSetList: ReadonlySet<string>[] = [];
const tagSetIds = new Map<string, number>();

/** The shared id of a combination of tags (order and repeats do not matter). */
export function tagSetId(tags: Iterable<string>): number {
  const key = [...new Set(tags)].sort().join(' ');
  let id = tagSetIds.get(key);
  if (id === undefined) {
    id = tagSetList.length;
    tagSetList.push(new Set(key.split(' ').filter(Boolean)));
    tagSetIds.set(key, id);
  }
  return id;
}

/** The shared, read-only set of tags of an id. */
export const tagSetOf = (id: number): ReadonlySet<string> => tagSetList[id]!;

export interface PackedTerms {
  /** Each term's text, pre, post and stem, separated by FIELD. */
  fields: string;
  tags: Uint16Array;
}

const FIELD = '\u0001';
const FIELDS_PER_TERM = 4;

/** Packs terms whose tag sets came from tagSetOf; a sentence holding the separator stays as it is. */
export function pack(terms: { text: string; pre: string; post: string; stem: string; tagId: number }[]): PackedTerms | Term[] {
  const fields = terms.flatMap((t) => [t.text, t.pre, t.post, t.stem]);
  if (fields.some((f) => f.includes(FIELD)) || tagSetList.length > 0xffff) return unpackedOf(terms);
  return { fields: fields.join(FIELD), tags: Uint16Array.from(terms, (t) => t.tagId) };
}

/** The terms of a packed sentence, as new objects (their tag sets shared). */
export function unpack(p: PackedTerms | Term[]): Term[] {
  if (Array.isArray(p)) return p;
  const f = p.fields.split(FIELD);
  return Array.from(p.tags, (id, i) => {
    const k = i * FIELDS_PER_TERM;
    return { text: f[k]!, pre: f[k + 1]!, post: f[k + 2]!, stem: f[k + 3]!, tags: tagSetOf(id) };
  });
}

const unpackedOf = (terms: { text: string; pre: string; post: string; stem: string; tagId: number }[]): Term[] =>
  terms.map((t) => ({ text: t.text, pre: t.pre, post: t.post, stem: t.stem, tags: tagSetOf(t.tagId) }));
