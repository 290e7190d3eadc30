// The text domain's one sentence splitter (chunking for the classifiers, sentence vectors, answer sentences,
// grounding). A sentence ends at . ! ? or … (with any closing quotes or brackets) before whitespace, unless the
// period belongs to a known abbreviation or an initial ("Mr.", "U.S.", "e.g.", "e. g.", "J."), or after a remark in round
// brackets that follows the end and closes its line ("... the timeout. (Default: 60000)"); at 。！？ always; at a
// blank line; before a line that starts a list item ("- 5672: AMQP", "* item", "2) step"), so that a plain-text list
// is one sentence an item, not one run-on sentence with the line that announces it; and before a line of a plain-text
// definition list, a short term, a space and a colon ("  100     : init script ID unknown"), for the same reason; and
// after the term of an indented definition list, a short line that opens a paragraph and is followed by a line
// indented further ("   www-data\n          Some web servers run as www-data."). Intl.Segmenter was measured as the
// alternative: Node's ICU build has no abbreviation suppressions ("Mr." ends a sentence there) and took 23 ms on a
// 40 kB address where this takes under 1 ms.

export interface SentenceSpan {
  text: string;
  /** UTF-16 offsets into the input, end exclusive (trimmed of surrounding whitespace). */
  start: number;
  end: number;
}

/** Words whose period does not end a sentence, compared without the period and in lower case. */
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms messrs dr prof sr jr st mt ft gen col lt capt cmdr adm sgt gov sen rep hon pres rev ' +
    'jan feb apr jun jul aug sept oct nov dec tues thurs eds approx dept univ assn bros inc corp ltd plc ' +
    'v vs etc e.g i.e cf viz u.s u.k u.n a.m p.m d.c b.c a.d ph.d'
  ).split(' '),
);
/** Abbreviations that are also words ("no", "art"): not an end only when a number follows ("No. 5", "p. 12"). */
const BEFORE_NUMBERS = new Set('no nos vol vols fig figs ch sec art p pp'.split(' '));

/**
 * Candidate ends: terminal punctuation with closing marks, then whitespace; CJK terminators; blank lines; a line break
 * before a list item's marker (a bullet, or a number of one or two digits with "." or ")", then a space and a word), or
 * before a definition list's term (at most 25 characters without a colon or a stop, then spaces, ":" and a space: prose
 * puts no space before its colons).
 */
const BOUNDARY =
  /([.!?…]+["'”’)\]]*)(\s+)|([。！？]+["'”’)\]」』]*)(\s*)|\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*+•–]|\d{1,2}[.)])[ \t]+[\p{L}\p{N}"'`(])|\n(?=[ \t]*[^\s:.!?][^:\n.!?]{0,24}?[ \t]+:[ \t]+\S)/gu;

/**
 * The term of an indented definition list: a line of at most four words and 30 characters that opens the text or a
 * paragraph, starts with a letter, a digit or an option's dash ("-v", "--verbose") but no numbered list marker, and
 * ends with no punctuation, followed by a line indented further. A line of code ("{", "```js") is no term. The
 * captured indent is matched again so that only a deeper indent counts.
 */
const TERM_LINE = /(?:^|\n[ \t]*\n)([ \t]*)(?!\d{1,2}[.)][ \t])((?:[\p{L}\p{N}]|--?\p{L})(?:[^\n]{0,28}[^\s.!?,;:])?)[ \t]*\n(?=\1[ \t]+\S)/gu;

/** A remark in round brackets that ends its line (at most 100 characters, no brackets inside). */
const LINE_END_REMARK = /^\([^()\n]{1,100}\)(?=[ \t]*(?:\n|$))/;

interface Boundary {
  /** Where the sentence before it ends. */
  end: number;
  /** Where the next sentence may start. */
  next: number;
  /** The sentence's end is a period that may belong to an abbreviation: checked against the text. */
  period?: { at: number; after: string | undefined };
}

/** Every candidate end of a sentence, in order of position. */
function boundaries(text: string): Boundary[] {
  const out: Boundary[] = [];
  for (const m of text.matchAll(BOUNDARY)) {
    const at = m.index;
    const next = at + m[0].length;
    if (m[1] !== undefined) {
      // A blank line ends the sentence whatever the period belongs to ("Free Software Foundation, Inc." over the
      // next paragraph).
      const blankLine = /\n[ \t]*\n/.test(m[2]!);
      const period = !blankLine && m[1].startsWith('.') && m[1].replace(/["'”’)\]]+$/u, '') === '.';
      // A remark in brackets after the end that closes its line belongs to the sentence ("... within the timeout.
      // (Default: 60000)"), not to the next line's.
      const remark = m[2]!.includes('\n') ? null : LINE_END_REMARK.exec(text.slice(next, next + 120));
      if (remark) out.push({ end: next + remark[0].length, next: next + remark[0].length });
      else out.push({ end: at + m[1].length, next, ...(period ? { period: { at, after: text[next] } } : {}) });
    } else if (m[3] !== undefined) out.push({ end: at + m[3].length, next });
    else out.push({ end: at, next });
  }
  for (const m of text.matchAll(TERM_LINE)) {
    if (m[2]!.split(/\s+/).length > 4) continue;
    const end = m.index + m[0].length - 1;
    out.push({ end, next: end + 1 });
  }
  return out.sort((a, b) => a.end - b.end);
}

function endsWithAbbreviation(text: string, dot: number, next: string | undefined): boolean {
  // The word before the period (letters and inner periods: "U.S", "e.g", "Ph.D").
  let i = dot;
  while (i > 0 && /[\p{L}.]/u.test(text[i - 1]!)) i--;
  const word = text.slice(i, dot).toLowerCase();
  if (!word) return false;
  if (ABBREVIATIONS.has(word)) return true;
  if (BEFORE_NUMBERS.has(word) && next !== undefined && /\d/.test(next)) return true;
  if (spacedAbbreviation(text, i, dot)) return true;
  // A single capital letter is an initial ("John F. Kennedy").
  return /^\p{Lu}$/u.test(text.slice(i, dot));
}

/**
 * A letter of an abbreviation written with a space after each period ("e. g.", "i. e."): a single lower-case
 * letter whose period is followed by another such letter, or that follows one.
 */
function spacedAbbreviation(text: string, from: number, dot: number): boolean {
  if (dot - from !== 1 || !/\p{Ll}/u.test(text[from]!)) return false;
  const after = /^[ \t]+\p{Ll}\.(?!\p{L})/u.test(text.slice(dot + 1, dot + 8));
  const before = from >= 3 && /(?:^|[\s(])\p{Ll}\.[ \t]+$/u.test(text.slice(Math.max(0, from - 6), from));
  return after || before;
}

/** The sentences of a text with their offsets; text without any boundary is one sentence. */
export function sentenceSpans(text: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  let start = 0;
  const push = (end: number) => {
    const raw = text.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const piece = raw.trim();
    if (piece) out.push({ text: piece, start: start + lead, end: start + lead + piece.length });
  };
  for (const b of boundaries(text)) {
    if (b.end < start) continue;
    if (b.period && endsWithAbbreviation(text, b.period.at, b.period.after)) continue;
    push(b.end);
    start = b.next;
  }
  push(text.length);
  return out;
}

/** The sentences of a text, trimmed. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => s.text);
}
