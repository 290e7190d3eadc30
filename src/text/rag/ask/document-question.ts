// Questions about the documents themselves rather than what they say: "Who gave the 1941 State of the Union
// address?", "Which president proposed a Job Corps?", "Who was president in 1983?", "In what year did Monroe deliver
// his address?". The text of an address rarely names its speaker or its year; the document catalogue
// (documents.json) does. Such a question is answered from the catalogue entry of the document it is about: the one
// its year or name picks out, else the one the best retrieved passage comes from.
import type { DocumentCatalogue, DocumentMeta } from '../documents.js';

export type DocumentFact = 'author' | 'date';

/** Verbs of giving an address or saying something in it, as "who ___" or "which president ___" asks them. */
const DELIVERED =
  'gave|delivered|wrote|said|says|spoke|talked|mentioned|proposed|asked|called|announced|promised|warned|urged|recommended|declared|addressed|praised|criticized|criticised|discussed|described|pledged|vowed|argued|noted|reported';
/** The one who gives the documents (a speaker, an author): "which president", "which speaker". */
const ROLE = 'president|presidents|speaker|author|writer|leader';
const GIVING = 'give|gave|given|deliver|delivered|write|wrote|written|make|made|send|sent|present|presented';
const DOCUMENT = 'address|addresses|speech|speeches|message|messages|letter';

const AUTHOR: RegExp[] = [
  // "Who gave the 1941 address?", "Who first proposed ...?" (the question word is the subject of the verb).
  new RegExp(`^who (?:\\w+ly |also |first |last |once )?(?:${DELIVERED})\\b`),
  // "Which president talked about the Interstate highways?", "What president proposed ...?"
  new RegExp(`^(?:which|what) (?:${ROLE})\\b`),
  // "Who was president in 1983?", "Who was the speaker in 1790?"
  new RegExp(`^who (?:was|is|were) (?:the )?(?:${ROLE})\\b`),
  // "Whose address mentions ...?"
  new RegExp(`^whose (?:${DOCUMENT})\\b`),
];

const DATE: RegExp[] = [
  // "When did Monroe deliver his address?", "In what year was the Clinton address given?"
  new RegExp(`^(?:when|(?:in )?(?:what|which) year)\\b.*\\b(?:${GIVING})\\b.*\\b(?:${DOCUMENT})\\b`),
  new RegExp(`^(?:when|(?:in )?(?:what|which) year)\\b.*\\b(?:${DOCUMENT})\\b.*\\b(?:${GIVING})\\b`),
  // "When was Reagan's address?", "What year is the Lincoln message from?"
  new RegExp(`^(?:when|(?:in )?(?:what|which) year) (?:was|is|were|are)\\b[^?]*\\b(?:${DOCUMENT})\\b(?: from)?\\s*\\??$`),
];

/** The fact of a document the question asks for, or null for a question about what the documents say. */
export function documentQuestion(question: string): DocumentFact | null {
  const q = question.toLowerCase().replace(/\s+/g, ' ').trim();
  if (AUTHOR.some((re) => re.test(q))) return 'author';
  if (DATE.some((re) => re.test(q))) return 'date';
  return null;
}

export interface DocumentAnswer {
  source: string;
  meta: DocumentMeta;
  /** The answer: the author, or the date (the year alone when the question asks for a year). */
  answer: string;
  /** How the document was found: a year or a name of the question matched its entry, or the retrieved passages. */
  by: 'year' | 'name' | 'retrieval';
}

/**
 * A year of the question that no entry has ("Who was president in 1950?"), or the name of a date question that is no
 * entry's author: not answered from another document.
 */
export interface NoDocument {
  missing: string[];
}

const YEAR = /\b(1[0-9]{3}|20[0-9]{2})\b/g;

/** "1823-12-02" as "December 2, 1823"; only the year for "in what year"; a bare year as it is. */
export function formatDate(date: string, yearOnly: boolean): string {
  if (yearOnly || date.length === 4) return date.slice(0, 4);
  const [y, m, d] = date.split('-').map(Number);
  const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'long', timeZone: 'UTC', ...(d ? { day: 'numeric' } : {}) };
  return new Date(Date.UTC(y!, m! - 1, d ?? 1)).toLocaleDateString('en-US', options);
}

/**
 * The document the question is about and the fact asked for: a year of the question that one entry's date has, or for
 * a date question a name of the question in an entry's author ("Monroe"), picks the entry; otherwise the first of
 * `retrieved` (sources of the passages that answer the question, best first) that the catalogue knows. Null when
 * nothing picks an entry that has the fact.
 */
export function answerFromCatalogue(
  question: string,
  fact: DocumentFact,
  catalogue: DocumentCatalogue,
  retrieved: string[],
): DocumentAnswer | NoDocument | null {
  const entries = [...catalogue.entries()].filter(([, m]) => (fact === 'author' ? m.author : m.date));
  if (!entries.length) return null;
  const yearOnly = /\b(what|which) year\b/i.test(question);
  const answer = (source: string, meta: DocumentMeta, by: DocumentAnswer['by']): DocumentAnswer => ({
    source,
    meta,
    answer: fact === 'author' ? meta.author! : formatDate(meta.date!, yearOnly),
    by,
  });
  const years = [...question.matchAll(YEAR)].map((m) => m[1]!);
  const byYear = entries.filter(([, m]) => m.date && years.includes(m.date.slice(0, 4)));
  if (years.length && !byYear.length) return { missing: years };
  let candidates = byYear;
  if (fact === 'date' && !candidates.length) {
    // The question's capitalised words past the first, other than the titles' ("State of the Union"): names.
    const titleWords = new Set(entries.flatMap(([, m]) => m.title?.toLowerCase().split(/\W+/) ?? []));
    const names = (question.match(/(?<=\s)\p{Lu}[\p{L}'’-]+/gu) ?? []).map((w) => w.replace(/['’]s$/, '')).filter((w) => !titleWords.has(w.toLowerCase()));
    const lower = new Set(names.map((w) => w.toLowerCase()));
    candidates = entries.filter(([, m]) => m.author && lower.has(m.author.split(/\s+/).at(-1)!.toLowerCase()));
    // "When did Kennedy give his address?": a name that is nobody's in the catalogue.
    if (names.length && !candidates.length) return { missing: names };
  }
  const by = byYear.length ? 'year' : 'name';
  if (candidates.length === 1) return answer(candidates[0]![0], candidates[0]![1], by);
  // Several documents of that year or by that name ("Roosevelt"): the retrieved passages say which.
  const pool = candidates.length ? new Set(candidates.map(([s]) => s)) : new Set(entries.map(([s]) => s));
  const source = retrieved.find((s) => pool.has(s));
  return source ? answer(source, catalogue.get(source)!, candidates.length ? by : 'retrieval') : null;
}
