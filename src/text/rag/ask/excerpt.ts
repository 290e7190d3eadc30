// A file whose lines are items with no stop between them (a list of tips, a config sample, a column of commands) is
// one sentence to the sentence splitter, and an answer read from it showed the whole file: "how do i change the perf
// sampling frequency" got 2,000 characters of tips. Such a sentence, when its lines are items and not prose wrapped at
// a width, is shown as the few lines of it that hold most of the question's words, with a mark where it is cut; the
// learned decision still judges the whole of it.
import { bm25Tokens } from '../../search/bm25.js';
import { sentenceSpans } from '../../sentences.js';

/** A sentence longer than this, over at least MIN_LINES lines, is cut to its best lines. */
export const MAX_SENTENCE_CHARS = 480;
const MIN_LINES = 5;
/** The share of lines that may go on in lower case: a wrapped sentence has many. */
const ITEM_LOWER_SHARE = 0.1;
/** The line that holds most of the question's words, and one line on each side of it. */
const AROUND = 1;

/**
 * Lines that are items, not prose wrapped at a width: almost no line goes on in lower case with the sentence of the one
 * before it, the text is not written in capitals (a licence's disclaimer is wrapped prose too), and it is no table.
 */
function linesAreItems(lines: string[]): boolean {
  const next = lines.slice(1).filter((line) => line.trim());
  const lower = next.filter((line) => /^\s*\p{Ll}/u.test(line)).length;
  const letters = lines.join('').replace(/[^\p{L}]/gu, '');
  const capitals = letters.replace(/[^\p{Lu}]/gu, '').length;
  // A table drawn in boxes reads by its header, which a cut would leave out.
  const boxed = lines.some((line) => /[\u2500-\u257f]/u.test(line));
  return !boxed && lower <= ITEM_LOWER_SHARE * next.length && capitals < 0.8 * letters.length;
}

/** The lines of `sentence` around the one that holds most of the question's stems (the first of equals). */
function bestLines(sentence: string, stems: ReadonlySet<string>): string {
  const lines = sentence.split('\n');
  const held = lines.map((line) => new Set(bm25Tokens(line).filter((t) => stems.has(t))).size);
  const best = held.indexOf(Math.max(...held));
  const from = Math.max(0, best - AROUND);
  const to = Math.min(lines.length, best + AROUND + 1);
  const shown = lines.slice(from, to).join('\n').trim();
  return `${from > 0 ? '… ' : ''}${shown}${to < lines.length ? ' …' : ''}`;
}

/** The answer with each over-long sentence of many lines cut to its best lines (see the header); else unchanged. */
export function excerpt(answer: string, question: string): string {
  if (answer.length <= MAX_SENTENCE_CHARS) return answer;
  const stems = new Set(bm25Tokens(question));
  let out = '';
  let at = 0;
  for (const s of sentenceSpans(answer)) {
    const lines = s.text.split('\n');
    if (s.text.length <= MAX_SENTENCE_CHARS || lines.length < MIN_LINES || !linesAreItems(lines)) continue;
    out += answer.slice(at, s.start) + bestLines(s.text, stems);
    at = s.end;
  }
  return at === 0 ? answer : out + answer.slice(at);
}
