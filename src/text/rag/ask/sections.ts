// The heading a sentence stands under. A reference page, a README or a FAQ names its subject once, in the heading of
// a section ("32 bit time_t build failures", a configuration key over its indented description), and the sentences
// under it speak of that subject without naming it again ("This can be allowed by passing TIME_T_32_BIT_OK=yes to
// configure.", "Default value is 5 seconds."). The reader counts a question word that the heading holds as held by
// each sentence of the section, as it does for the words of the document's name (sentence-features.ts, titleStems).
// Headings are found by the shape of the text alone, never by their words:
// - a short line of its own, not indented, after a blank line (or at the document's start), followed by a blank line
//   or by lines indented under it (a term over its description), which ends with no sentence mark and looks like no
//   code;
// - the opening words of a paragraph before a colon ("Checksum validation: By default, ...", "create(filename,
//   options): Create ..."), as readable.ts writes a Markdown heading, or a plain-text heading over its underline,
//   before the section's first paragraph.
// A line of code under a heading gets none: the heading's words would make every example of a section look like the
// answer to a question on its subject.
import { bm25Tokens } from '../../search/bm25.js';
import type { SentenceSpan } from '../../sentences.js';
import { memoise } from './lexical.js';

export interface Heading {
  /** Where the heading starts in the chunk. */
  start: number;
  text: string;
  /** An indented term over its description (a manual's option or setting), not a section's title. */
  term?: true;
  /** Where a term's description ends: at the next line indented no deeper than the term. */
  end?: number;
}

const MAX_WORDS = 8;
const MAX_CHARS = 80;
const MAX_TERM_LINES = 3;
/** Signs of a line of code or a command rather than a heading. */
const CODE_LIKE = /[=(){}[\];<>|]|\s--?[a-z]|^\s*(?:\$|#|\/\/|--?\w|[-*+•]\s|['"`])/;
/**
 * A sentence of code (a statement, a call, an object): the heading's words would make any example under it look like
 * an answer to a question on the section's subject.
 */
const CODE_LINE = /[;{}[,]\s*$|=>|^\s*(?:const|let|var|import|export|return)\b|^\s*[\w.$]+\(|^\s*[{[]/;
/** A paragraph that opens with a few words and a colon: its heading (readable.ts). */
const LEAD = /^([^\s:][^:.!?\n]{0,60}?):\s+\S/;

const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean);
const blank = (line: string | undefined) => line === undefined || !line.trim();
const indent = (line: string) => line.length - line.trimStart().length;
/** A heading says something with letters: at least two in a row ("Q:" and "A:" of a FAQ are no headings). */
const worded = (text: string) => /\p{L}{2}/u.test(text) && wordsOf(text).length <= MAX_WORDS;

/**
 * The headings of a chunk, in order (see the header). Its first line counts as after a blank line only at the
 * document's start (`opensDocument`): a later chunk may start in the middle of a paragraph, and its heading there is
 * the previous chunk's (headingBefore).
 */
export function headingsOf(chunk: string, opensDocument = false): Heading[] {
  const out: Heading[] = [];
  const lines = chunk.split('\n');
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
  }
  at = 0;
  lines.forEach((line, i) => {
    const start = at;
    at += line.length + 1;
    if (blank(line)) return;
    const previous = lines[i - 1];
    // An indented term may follow its section's shallower heading line directly ("OPTIONS" over "       -q").
    const opens = i === 0 ? opensDocument : blank(previous) || (indent(line) > 0 && indent(previous!) < indent(line));
    if (!opens) return;
    if (indent(line) > 0) {
      const term = indentedTerm(lines, i);
      if (term) out.push({ start, text: term.text, term: true, end: starts[term.endLine] ?? chunk.length });
      return;
    }
    const text = line.trim();
    const lead = LEAD.exec(text);
    if (lead && worded(lead[1]!)) {
      out.push({ start, text: lead[1]!.trim() });
      return;
    }
    const next = lines[i + 1];
    const underIt = next !== undefined && (blank(next) || indent(next) > 0);
    if (!underIt || text.length > MAX_CHARS || !worded(text) || /[.,;!?]$/.test(text) || CODE_LIKE.test(text)) return;
    out.push({ start, text: text.replace(/:$/, '') });
  });
  return out;
}

/**
 * An indented term over its deeper-indented description, as a manual page lists its options and settings: up to
 * MAX_TERM_LINES lines at the term's indent ("-s strsize", "--string-limit=strsize"), then a deeper one. The lines
 * join into one heading. An option's dashes, "=" and brackets belong to such a term; a line of code does not.
 */
function indentedTerm(lines: string[], i: number): { text: string; endLine: number } | null {
  const depth = indent(lines[i]!);
  const terms: string[] = [];
  let k = i;
  for (; k < lines.length && terms.length < MAX_TERM_LINES && !blank(lines[k]) && indent(lines[k]!) === depth; k++) {
    const text = lines[k]!.trim();
    // A term's later line may go on with its brackets ("[<stash>]"); a first line that opens with one is code.
    const code = CODE_LINE.test(k > i ? text.replace(/^[[<]/, '') : text);
    if (text.length > MAX_CHARS || /\S\s{4,}\S/.test(text) || /[.,;!?]$/.test(text) || code || /^(?:\$|#|\/\/|[*+•]\s)/.test(text)) return null;
    terms.push(text);
  }
  const description = lines[k];
  if (description === undefined || blank(description) || indent(description) <= depth) return null;
  const text = terms.join(' ');
  if (!/\p{L}{2}/u.test(text) || wordsOf(text).length > MAX_WORDS) return null;
  let endLine = k;
  while (endLine < lines.length && (blank(lines[endLine]) || indent(lines[endLine]!) > depth)) endLine++;
  return { text: text.replace(/:$/, ''), endLine };
}

/** The heading in force at a place of the chunk: the last one at or before it whose description, if a term's, holds it. */
const inForce = (headings: Heading[], at: number) => headings.findLast((h) => h.start <= at && (h.end === undefined || at < h.end));

/**
 * The heading each sentence of a chunk stands under: the last heading of the chunk in force there (a term's only over
 * its description), else
 * `before` (the heading the chunk starts under, from the chunk before it: headingBefore); null when there is none. A sentence that is
 * its own heading, or opens with it, stands under it too, which adds nothing it does not hold.
 */
export function sectionHeadings(
  chunk: string,
  sentences: readonly Pick<SentenceSpan, 'start' | 'text'>[],
  before: string | null,
  opensDocument: boolean,
): (string | null)[] {
  const headings = headingsOf(chunk, opensDocument);
  return sentences.map((s) => {
    const h = inForce(headings, s.start);
    if (h?.start !== s.start && CODE_LINE.test(s.text)) return null;
    return h ? h.text : before;
  });
}

/**
 * The indented term each sentence of a chunk stands under (indentedTerm): the option or setting it describes, when
 * the chunk's last heading at or before it is one; null otherwise.
 */
export function sectionTerms(chunk: string, sentences: readonly Pick<SentenceSpan, 'start'>[], opensDocument: boolean): (string | null)[] {
  const headings = headingsOf(chunk, opensDocument);
  return sentences.map((s) => {
    const h = inForce(headings, s.start);
    return h?.term ? h.text : null;
  });
}

/**
 * The heading a chunk starts under, from the chunk before it: the last heading of `previous` before the place where
 * `chunk` starts in it (chunks overlap, and a heading in the overlap is the chunk's own); null when it has none.
 */
export function headingBefore(previous: string, chunk: string, previousOpensDocument: boolean): string | null {
  const probe = chunk.trimStart().slice(0, 40);
  const at = probe ? previous.lastIndexOf(probe) : -1;
  // A heading on the chunk's first line is found here, in its context.
  const end = at < 0 ? previous.length : at;
  return (
    headingsOf(previous, previousOpensDocument)
      .filter((h) => h.start <= end && (h.end === undefined || end < h.end))
      .at(-1)?.text ?? null
  );
}

const headingStems = memoise(10_000, (heading: string) => bm25Tokens(heading));
const withHeading = memoise(10_000, (key: string) => {
  const [heading, ...title] = key.split('\n');
  return new Set([...title, ...headingStems(heading!)]);
});

/** The stems a sentence counts as holding beyond its own words: its document's name's (`title`) and its heading's. */
export const contextStems = (title: ReadonlySet<string>, heading: string | null): ReadonlySet<string> =>
  heading === null ? title : withHeading([heading, ...title].join('\n'));
