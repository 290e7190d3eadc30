// Questions about the documents themselves rather than what they say: "Who gave the 1941 State of the Union
// address?", "Which president proposed a Job Corps?", "Who was president in 1983?", "In what year did Monroe deliver
// his address?". The text of an address rarely names its speaker or its year; the document catalogue
// (documents.json) does. Such a question is answered from the catalogue entry of the document it is about: the one
// its year or name picks out, else the one the best retrieved passage comes from.
import type { DocumentCatalogue, DocumentMeta } from '../documents.js';
import { DELIVERED, GIVING, NUMBER_WORDS, SAYING_BASE, YEARS, lastName, sameLastName, sameName } from './lexical.js';

/** Who gave a document, when, which documents one person gave, or how many documents (one person's or all). */
export type DocumentFact = 'author' | 'date' | 'documents' | 'count';

/** Words any collection's questions use for its documents and their authors; documents.json adds its own ("kind", "role"). */
const GENERIC_DOCUMENTS = ['document', 'text', 'file'];
const GENERIC_ROLES = ['author', 'writer'];
const COUNT_WORDS = NUMBER_WORDS.slice(1, 11);

const plural = (w: string) => (/(?:s|sh|ch|x|z)$/.test(w) ? `${w}es` : `${w}s`);
const escape = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternatives = (words: Iterable<string>) => [...new Set([...words].flatMap((w) => [w, plural(w)]))].map(escape).join('|');
const asList = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]).map((w) => w.trim().toLowerCase()).filter(Boolean);

/**
 * The patterns of questions about a catalogue's documents, in its own words: the kinds of document its entries declare
 * ("address", "speech") and the roles of their authors ("president"), beside the generic "document" and "author".
 * Only a catalogue that declares roles has its "who said ...?" questions answered from it: its documents are someone's
 * words. Elsewhere a person a document quotes is read from the text.
 */
interface Patterns {
  roles: boolean;
  role: string;
  document: string;
  author: RegExp[];
  date: RegExp[];
  documents: RegExp[];
  earliest: RegExp;
  latest: RegExp;
  whichInOrder: RegExp;
  howMany: RegExp;
  counted: RegExp;
  topic: RegExp;
}

const patternCache = new WeakMap<DocumentCatalogue, Patterns>();

function patternsOf(catalogue: DocumentCatalogue): Patterns {
  const cached = patternCache.get(catalogue);
  if (cached) return cached;
  const metas = [...catalogue.values()];
  const declaredRoles = metas.flatMap((m) => asList(m.role));
  const ROLE = alternatives([...GENERIC_ROLES, ...declaredRoles]);
  const DOCUMENT = alternatives([...GENERIC_DOCUMENTS, ...metas.flatMap((m) => asList(m.kind))]);
  const roles = declaredRoles.length > 0;
  const orderTail = `(?: (?:in|of) (?:the|this) collection)?(?: (?:${GIVING}))?\\s*\\??$`;
  const inOrder = (words: string) =>
    new RegExp(`\\bthe (?:${words}) (?:${DOCUMENT})${orderTail}|^(?:which|what) (?:${DOCUMENT}) (?:is|was) the (?:${words})(?: one)?${orderTail}`);
  const patterns: Patterns = {
    roles,
    role: ROLE,
    document: DOCUMENT,
    author: [
      // "Who gave the 1941 address?", "Who first proposed ...?" (the question word is the subject of the verb): with
      // declared roles any saying verb; otherwise a verb of giving a document, and the document named.
      roles ? new RegExp(`^who (?:\\w+ly |also |first |last |once )?(?:${DELIVERED})\\b`) : new RegExp(`^who (?:${GIVING})\\b.*\\b(?:${DOCUMENT})\\b`),
      // "Which president talked about the Interstate highways?", "Which author wrote ...?"
      new RegExp(`^(?:which|what) (?:${ROLE})\\b`),
      // "Who was president in 1983?", "Who is the author of ...?"
      new RegExp(`^who (?:was|is|were) (?:the )?(?:${ROLE})\\b`),
      // "Whose address mentions ...?"
      new RegExp(`^whose (?:${DOCUMENT})\\b`),
    ],
    date: [
      // "When did Monroe deliver his address?", "In what year was the Clinton address given?"
      new RegExp(`^(?:when|(?:in )?(?:what|which) year)\\b.*\\b(?:${GIVING})\\b.*\\b(?:${DOCUMENT})\\b`),
      new RegExp(`^(?:when|(?:in )?(?:what|which) year)\\b.*\\b(?:${DOCUMENT})\\b.*\\b(?:${GIVING})\\b`),
      // "When was Reagan's address?", "What year is the Lincoln message from?"
      new RegExp(`^(?:when|(?:in )?(?:what|which) year) (?:was|is|were|are)\\b[^?]*\\b(?:${DOCUMENT})\\b(?: from)?\\s*\\??$`),
    ],
    // "Which addresses did Franklin Roosevelt give?", "What speeches did Lincoln deliver?"
    documents: [
      new RegExp(`^(?:which|what) (?:${DOCUMENT}) (?:did|does|has|have) .+ (?:${GIVING})\\b(?: (?:in|to) (?:the|this) collection)?\\s*\\??$`),
      new RegExp(`^(?:which|what) (?:${DOCUMENT}) (?:are|were|is|was) (?:by|from|given by|delivered by|written by) .+\\??$`),
    ],
    // A document picked by its place in time: "the oldest address", "Which speech is the most recent?". Only the whole
    // phrase counts: "Who first proposed ...?" is not "the first address".
    earliest: inOrder('oldest|earliest|first'),
    latest: inOrder('most recent|latest|newest|last'),
    whichInOrder: new RegExp(`^(?:which|what) (?:${DOCUMENT}) (?:is|was) the `),
    // "How many addresses did Franklin Roosevelt give?", "How many documents are in the collection?"
    howMany: new RegExp(`^how many (?:${DOCUMENT})\\b`),
    // "Which president gave two addresses?", "Who gave the most speeches?", "Who gave more than one address?"
    counted: new RegExp(`\\b(?:${GIVING}|has|had)\\s+(\\d+|${COUNT_WORDS.join('|')}|more than one|several|multiple|the most|most)\\s+(?:${DOCUMENT})\\b`),
    // "Who was president during the Civil War?" -> "during the Civil War?": the role is the answer, not the topic.
    topic: new RegExp(`^\\s*(?:who (?:was|is|were) (?:the )?(?:${ROLE})|who|whose (?:${DOCUMENT})|(?:which|what) (?:${ROLE}))\\s+(.+)$`, 'i'),
  };
  patternCache.set(catalogue, patterns);
  return patterns;
}

/** Documents listed at most in the answer to "how many". */
const COUNT_LISTED = 20;

/** Entries oldest first (undated ones first of all), in place. */
const inDateOrder = (entries: [string, DocumentMeta][]) => entries.sort(([, a], [, b]) => (a.date ?? '').localeCompare(b.date ?? ''));

const normalised = (question: string) => question.toLowerCase().replace(/\s+/g, ' ').trim();

/** The fact of a document the question asks for, or null for a question about what the documents say. */
export function documentQuestion(question: string, catalogue: DocumentCatalogue): DocumentFact | null {
  const q = normalised(question);
  const p = patternsOf(catalogue);
  if (p.howMany.test(q)) return 'count';
  if (p.documents.some((re) => re.test(q)) || (p.whichInOrder.test(q) && (p.earliest.test(q) || p.latest.test(q)))) return 'documents';
  if (p.author.some((re) => re.test(q))) return 'author';
  if (p.date.some((re) => re.test(q))) return 'date';
  return null;
}

/**
 * What a question about who said something says was said, for finding the sentence that says it: "Which president
 * talked about civil rights?" -> "talked about civil rights?". The reader, asked "which president", looks for a
 * sentence naming a president ("President Lincoln and President Garfield were killed..."), but an address rarely
 * names its speaker: the sentence wanted is the one about the topic. Null when the question has no such opening.
 */
export function saidTopic(question: string, catalogue: DocumentCatalogue): string | null {
  const m = patternsOf(catalogue).topic.exec(question);
  return m?.[1] && /\p{L}{3}/u.test(m[1]) ? m[1] : null;
}

export interface DocumentAnswer {
  source: string;
  meta: DocumentMeta;
  /** The answer: the author, or the date (the year alone when the question asks for a year). */
  answer: string;
  /**
   * How the document was found: a year or a name of the question matched its entry, its place in time ("the oldest
   * address"), or the retrieved passages.
   */
  by: 'year' | 'name' | 'order' | 'count' | 'retrieval';
  /** For a question about which documents someone gave: all of them, in date order (`source` is the first). */
  sources?: string[];
}

/**
 * A year of the question that no entry has ("Who was president in 1950?"), or the name of a date question that is no
 * entry's author: not answered from another document.
 */
export interface NoDocument {
  missing: string[];
}

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
  const entries = [...catalogue.entries()].filter(([, m]) => (fact === 'count' ? true : fact === 'date' ? m.date : m.author));
  if (!entries.length) return null;
  const yearOnly = /\b(what|which) year\b/i.test(question);
  const answer = (source: string, meta: DocumentMeta, by: DocumentAnswer['by']): DocumentAnswer => ({
    source,
    meta,
    answer: fact === 'date' ? formatDate(meta.date!, yearOnly) : meta.author!,
    by,
  });
  // "Who gave the oldest address?", "When was the most recent speech given?": the entry first or last in time.
  const q = normalised(question);
  const p = patternsOf(catalogue);
  const order = p.earliest.test(q) ? 1 : p.latest.test(q) ? -1 : 0;
  const dated = entries.filter(([, m]) => m.date);
  const first = order && dated.length ? dated.sort(([, a], [, b]) => order * a.date!.localeCompare(b.date!))[0]! : null;
  if (fact === 'documents' && first) {
    // "Which speech is the most recent?": the document, by its title, author and date.
    const [source, m] = first;
    return { source, meta: m, answer: [m.title ?? source, m.author, formatDate(m.date!, false)].filter(Boolean).join(', '), by: 'order' };
  }
  if (fact === 'count') {
    // One person's documents when the question names an author, else the whole catalogue.
    const found = byName(question, entries);
    if (found.names.length && !found.entries.length) return { missing: found.names };
    const counted = inDateOrder(found.names.length ? found.entries : entries);
    const list = counted.map(([source, m]) => [m.title ?? source, m.author, m.date ? formatDate(m.date, true) : null].filter(Boolean).join(', '));
    return {
      source: counted[0]![0],
      meta: counted[0]![1],
      // A large catalogue is counted, not listed in full.
      answer: `${counted.length}: ${list.slice(0, COUNT_LISTED).join('; ')}${list.length > COUNT_LISTED ? `; and ${list.length - COUNT_LISTED} more` : ''}`,
      by: found.names.length ? 'name' : 'count',
      sources: counted.map(([source]) => source),
    };
  }
  if (fact === 'documents') {
    const found = byName(question, entries);
    if (!found.names.length) return null;
    if (!found.entries.length) return { missing: found.names };
    const sorted = inDateOrder(found.entries);
    const list = sorted.map(([source, m]) => [m.title ?? source, m.date ? formatDate(m.date, false) : null].filter(Boolean).join(', '));
    return { source: sorted[0]![0], meta: sorted[0]![1], answer: list.join('; '), by: 'name', sources: sorted.map(([source]) => source) };
  }
  if (first) return answer(first[0], first[1], 'order');
  const count = countAsked(q, p.counted);
  if (fact === 'author' && count) return byCount(count, entries);
  const years = [...question.matchAll(YEARS)].map((m) => m[1]!);
  const byYear = entries.filter(([, m]) => m.date && years.includes(m.date.slice(0, 4)));
  if (years.length && !byYear.length) return { missing: years };
  let candidates = byYear;
  if (fact === 'date' && !candidates.length) {
    const found = byName(question, entries);
    candidates = found.entries;
    // "When did Kennedy give his address?": a name that is nobody's in the catalogue.
    if (found.names.length && !candidates.length) return { missing: found.names };
  }
  const by = byYear.length ? 'year' : 'name';
  if (candidates.length === 1) return answer(candidates[0]![0], candidates[0]![1], by);
  // Several documents of that year or by that name ("Roosevelt"): the retrieved passages say which.
  const pool = candidates.length ? new Set(candidates.map(([s]) => s)) : new Set(entries.map(([s]) => s));
  const source = retrieved.find((s) => pool.has(s));
  return source ? answer(source, catalogue.get(source)!, candidates.length ? by : 'retrieval') : null;
}

/** How many documents the question asks about per author: a number, at least 2, or the most. */
function countAsked(q: string, counted: RegExp): { exactly: number } | { atLeast: number } | 'most' | null {
  const m = counted.exec(q)?.[1];
  if (!m) return null;
  if (/most/.test(m)) return 'most';
  if (/more than one|several|multiple/.test(m)) return { atLeast: 2 };
  return { exactly: /^\d+$/.test(m) ? Number(m) : COUNT_WORDS.indexOf(m) + 1 };
}

/** The authors with that many documents in the catalogue, or the phrase as missing when none has. */
function byCount(count: NonNullable<ReturnType<typeof countAsked>>, entries: [string, DocumentMeta][]): DocumentAnswer | NoDocument {
  const byAuthor = new Map<string, [string, DocumentMeta][]>();
  for (const e of entries) byAuthor.set(e[1].author!, [...(byAuthor.get(e[1].author!) ?? []), e]);
  const most = Math.max(...[...byAuthor.values()].map((es) => es.length));
  const fits = (n: number) => (count === 'most' ? n === most : 'exactly' in count ? n === count.exactly : n >= count.atLeast);
  const authors = [...byAuthor.entries()].filter(([, es]) => fits(es.length));
  if (!authors.length)
    return {
      missing: [count === 'most' ? 'the most documents' : 'exactly' in count ? `${count.exactly} documents by one author` : 'several documents by one author'],
    };
  const documents = inDateOrder(authors.flatMap(([, es]) => es));
  return {
    source: documents[0]![0],
    meta: documents[0]![1],
    answer: authors.map(([author]) => author).join(', '),
    by: 'count',
    sources: documents.map(([source]) => source),
  };
}

/**
 * The entries whose author a name of the question names: its capitalised words past the first, other than the
 * titles' ("State of the Union"), and its lower-case words that are an author's last name, matched against each
 * author's last name ("Monroe", "Roosevelt"), and of those the ones whose other names the question has too.
 */
function byName(question: string, entries: [string, DocumentMeta][]): { names: string[]; entries: [string, DocumentMeta][] } {
  const titleWords = new Set(entries.flatMap(([, m]) => m.title?.toLowerCase().split(/\W+/) ?? []));
  const lastNames = new Set(entries.flatMap(([, m]) => (m.author ? [lastName(m.author)] : [])));
  const names = [
    ...(question.match(/(?<=\s)\p{Lu}[\p{L}'’-]+/gu) ?? []).map((w) => w.replace(/['’]s$/, '')).filter((w) => !titleWords.has(w.toLowerCase())),
    // A question typed in lower case names an author by their last name exactly ("when did lincoln give his address").
    ...(question.match(/(?<=\s)\p{Ll}[\p{L}'’-]+/gu) ?? []).map((w) => w.replace(/['’]s$/, '')).filter((w) => lastNames.has(w)),
  ];
  const lower = new Set(names.map((w) => w.toLowerCase()));
  const byLast = entries.filter(([, m]) => m.author && [...lower].some((w) => sameName(w, lastName(m.author!))));
  // "Franklin Roosevelt" is not Theodore: of the authors with that last name, those the question names most fully.
  const named = (m: DocumentMeta) =>
    m
      .author!.toLowerCase()
      .split(/[\s.]+/)
      .filter((w) => lower.has(w)).length;
  const most = Math.max(0, ...byLast.map(([, m]) => named(m)));
  return { names, entries: byLast.filter(([, m]) => named(m) === most) };
}

/** "What did John F. Kennedy say about ...?": the person whose words the question asks for. */
const WORDS_OF = new RegExp(`^(?:what|how|why) (?:did|does|do|has|had) (.+?) (?:${SAYING_BASE})\\b`);

/**
 * The person a "What did X say/propose ...?" question asks about when the catalogue has authors and none of them is
 * that person: the collection holds X's words only as others quote them, and a passage that names X is not X speaking.
 * `people` are the question's person names (the tagger's); null when the question is not of that kind.
 */
export function speakerMissing(question: string, people: string[], catalogue: DocumentCatalogue): string | null {
  // Only a catalogue of people's own words (it declares their roles) says whose words are not in it.
  if (!patternsOf(catalogue).roles) return null;
  const subject = speakerSubject(question);
  if (!subject) return null;
  const authors = [...catalogue.values()].flatMap((m) => (m.author ? [m.author] : []));
  if (!authors.length) return null;
  // The tagger's person, or a subject of capitalised words only ("Bush", "George W. Bush": a bare capitalised noun is
  // a name there), not a plural ("Americans", "Congress" end like one).
  const person =
    people.find((p) => subject.lower.includes(p.toLowerCase().replace(/['’]s$/, ''))) ??
    (/^(?:\p{Lu}[\p{L}'’-]*\.?\s*)+$/u.test(subject.written) && !/s$/.test(subject.written) ? subject.written : undefined);
  if (!person) return null;
  return authors.some((a) => sameLastName(a, person)) ? null : person;
}

/**
 * The subject of a "What did X say/warn/propose ...?" question, lower case and as the question writes it (capitals
 * kept, for the names in it); null when the question is not of that kind.
 */
function speakerSubject(question: string): { lower: string; written: string } | null {
  const lower = WORDS_OF.exec(normalised(question))?.[1];
  if (!lower) return null;
  const at = normalised(question).indexOf(lower);
  return {
    lower,
    written: question
      .replace(/\s+/g, ' ')
      .trim()
      .slice(at, at + lower.length),
  };
}

/** The words of the speaker a "What did X say ...?" question names, lower case ("bill", "clinton"); empty otherwise. */
export function speakerWords(question: string): string[] {
  return (
    speakerSubject(question)
      ?.lower.match(/[\p{L}'’-]+/gu)
      ?.map((w) => w.replace(/['’]s$/, '')) ?? []
  );
}

/**
 * The documents of the author whose words a "What did X say/warn/propose ...?" question asks for, when the catalogue
 * names X as an author ("What did Eisenhower warn about?" -> his 1961 address; "Roosevelt" -> both Roosevelts'): the
 * question is about those documents only. Null otherwise.
 */
export function speakerDocuments(question: string, catalogue: DocumentCatalogue): Set<string> | null {
  const subject = speakerSubject(question);
  if (!subject) return null;
  const entries = [...catalogue.entries()].filter(([, meta]) => meta.author);
  const found = byName(` ${subject.written}`, entries);
  return found.entries.length ? new Set(found.entries.map(([source]) => source)) : null;
}

/** Words that place a question in the asker's present: "today", "right now", "the current president", "tomorrow". */
const PRESENT =
  /\b(?:today|tonight|tomorrow|yesterday|right now|nowadays|these days|currently|current|latest|this (?:week|month|year)|next (?:week|month|year)|last (?:night|week|month))\b/i;

/**
 * The date of the newest document when a question asks about the present ("Who is the current president?", "What
 * will the weather be like tomorrow?") and every dated document of the catalogue is more than a year old: such a
 * collection cannot say what is current, and a passage that happens to say "current" or "tomorrow" is from its own
 * time. Null when the question is not about the present, when it asks what an author said ("What did Obama say about
 * the current crisis?"), or when the catalogue has no dates or a recent one.
 */
export function outdatedFor(question: string, catalogue: DocumentCatalogue, now = new Date()): string | null {
  if (!PRESENT.test(question) || WORDS_OF.test(normalised(question))) return null;
  // Only a question about the present holder of a role the catalogue declares ("the current president"): "How do I
  // install the latest firmware?" is read from the documents.
  const p = patternsOf(catalogue);
  if (!p.roles || !new RegExp(`\\b(?:${p.role})\\b`, 'i').test(question)) return null;
  const dates = [...catalogue.values()].flatMap((m) => (m.date ? [m.date] : [])).sort();
  const newest = dates.at(-1);
  if (!newest) return null;
  const yearAgo = new Date(now);
  yearAgo.setFullYear(now.getFullYear() - 1);
  return newest < yearAgo.toISOString().slice(0, 10) ? newest : null;
}
