// A file whose lines are items with no stop between them (a list of tips, a config sample, a column of commands) is
// one sentence to the sentence splitter, and an answer read from it showed the whole file: "how do i change the perf
// sampling frequency" got 2,000 characters of tips. Such a sentence is shown as the few lines of it that hold most of
// the question's words, with a mark where it is cut; the learned decision still judges the whole of it.
import { bm25Tokens } from '../../search/bm25.js';
import { sentenceSpans } from '../../sentences.js';

/** A sentence longer than this, over at least MIN_LINES lines, is cut to its best lines. */
export const MAX_SENTENCE_CHARS = 480;
const MIN_LINES = 5;
/** The line that holds most of the question's words, and one line on each side of it. */
const AROUND = 1;

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
    if (s.text.length <= MAX_SENTENCE_CHARS || s.text.split('\n').length < MIN_LINES) continue;
    out += answer.slice(at, s.start) + bestLines(s.text, stems);
    at = s.end;
  }
  return at === 0 ? answer : out + answer.slice(at);
}
