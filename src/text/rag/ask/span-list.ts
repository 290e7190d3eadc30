// A question that asks for several things ("which versions of the protocol does it support?", "what values can the
// option take?") is answered by a list, while the span reader picks one phrase: "5.0" of "a server for version 5.0,
// 3.1.1, and 3.1 of the protocol". When the question's noun is a plural and the span is an item of a list in its
// sentence (items as long as the span, separated by commas, with "and" or "or" before the last; two items with no comma), the answer is
// the whole list. Whether the noun is a plural is read where the question is tagged, in the reader's worker
// (reader-question.ts, asksForSeveral): this module has no tagger, so the event loop's thread can use it.

/** Words that end an item: what follows them is no longer the item ("3.1 of the protocol"). */
const ENDS_ITEM = new Set([
  'and',
  'or',
  'of',
  'in',
  'for',
  'to',
  'with',
  'on',
  'at',
  'by',
  'from',
  'is',
  'are',
  'was',
  'were',
  'be',
  'that',
  'which',
  'as',
  'than',
  'if',
  'when',
  'can',
  'will',
]);
const SEP_AFTER = /^(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)/i;
const SEP_BEFORE = /(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)$/i;
const QUOTES = `'"\`\u2018\u2019\u201c\u201d`;
/** Longest list shown, in words. */
const MAX_WORDS = 14;

/** Lower case, anything but letters and digits as one space. */
const plain = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ');

/** The words that make an item, read from the list's separator outwards: at most `width`, up to an item's end word. */
function itemWords(outwards: string[], width: number): string[] {
  const out: string[] = [];
  for (const w of outwards) {
    if (out.length >= width || ENDS_ITEM.has(w.toLowerCase().replace(/[^\w]/g, ''))) break;
    out.push(w);
  }
  return out;
}

/** The first words of `text` that make an item, up to a comma or bracket. */
const itemAfter = (text: string, width: number) =>
  itemWords(/^[^,;:()[\]]*/.exec(text)![0].split(/\s+/).filter(Boolean), width)
    .join(' ')
    .replace(/[.!?]+$/, '');

/** The last words of `text` that make an item, back to a comma or bracket. */
const itemBefore = (text: string, width: number) =>
  itemWords(/[^,;:()[\]]*$/.exec(text)![0].split(/\s+/).filter(Boolean).reverse(), width)
    .reverse()
    .join(' ');

/** The list of `sentence` that `answer` is an item of, or `answer` itself when it is none. */
export function wholeList(answer: string, sentence: string, question = ''): string {
  const at = sentence.indexOf(answer);
  if (at < 0 || !answer.trim()) return answer;
  const width = answer.split(/\s+/).length;
  let [start, end] = [at, at + answer.length];
  // A quoted item takes its quotes, as the other items have theirs ("'top', 'bottom' or 'center'").
  if (start > 0 && QUOTES.includes(sentence[start - 1]!) && QUOTES.includes(sentence[end] ?? '')) [start, end] = [start - 1, end + 1];
  let items = 1;
  let conjunction = false;
  let commas = false;
  for (;;) {
    const sep = SEP_AFTER.exec(sentence.slice(end));
    if (!sep) break;
    const item = itemAfter(sentence.slice(end + sep[0].length), width);
    if (!item) break;
    const joined = /\b(?:and|or)\b/i.test(sep[0]);
    conjunction ||= joined;
    commas ||= sep[0].includes(',');
    end += sep[0].length + item.length;
    items++;
    // The item after "and"/"or" is the list's last.
    if (joined) break;
  }
  for (;;) {
    const sep = SEP_BEFORE.exec(sentence.slice(0, start));
    if (!sep) break;
    const item = itemBefore(sentence.slice(0, sep.index), width);
    if (!item) break;
    conjunction ||= /\b(?:and|or)\b/i.test(sep[0]);
    commas ||= sep[0].includes(',');
    start = sep.index - item.length;
    items++;
  }
  const list = sentence.slice(start, end);
  // "Along with trusts, what other non-profits ...?": an item the question names is not asked for.
  const asked = ` ${plain(question)} `;
  const others = list.slice(0, at - start) + ' ' + list.slice(at - start + answer.length);
  const named = others
    .split(/,|\b(?:and|or)\b/i)
    .map((i) => plain(i).trim())
    .some((i) => i && asked.includes(` ${i} `));
  if (named) return answer;
  // Two items with a comma between them ("Rice University, and Administrator Webb") are two clauses, not a list.
  if (items < 2 || !conjunction || (items === 2 && commas) || list.split(/\s+/).length > MAX_WORDS) return answer;
  return list.replace(/\s+/g, ' ');
}
