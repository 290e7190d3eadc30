// Questions a document asks itself. A FAQ (and many READMEs) states its questions and answers them underneath: when
// one of its questions asks what the user asks, the answer is what follows it, up to the next question. The reader's
// rankers, trained on prose, give that answer a low score (it rarely repeats the question's words: "Nothing. They are
// just two letters..."), and rank the FAQ's own question, which repeats them all but answers nothing, first.
import { bm25Tokens } from '../../search/bm25.js';

/** A FAQ's question line, which may end without a question mark ("Q: configure does not find the library."). */
export const FAQ_QUESTION = /^\W{0,3}(?:Q|Question)\s*\d*\s*[:)]\s/;
/** A FAQ's answer marker ("A: XIO means ...", "Answer: ..."), which opens the answer's first sentence. */
export const ANSWER_MARKER = /^\W{0,3}(?:A|Answer)\s*\d*\s*[:)]\s+(?=\S)/;
/** A FAQ's answer marker ("A: XIO means ...", "Answer: ...") opens the sentence; it is not part of the answer. */
export const withoutAnswerMarker = (sentence: string) => sentence.replace(ANSWER_MARKER, '');
/** A FAQ's question marker after the heading the document's reading put before it ("XZ Utils FAQ: Q: What ..."). */
const HEADED_QUESTION = /^[^:?]{1,80}:\s+(?:Q|Question)\s*\d*\s*[:)]\s/;
/** A numbered entry of a FAQ ("1. ", "4.2 ", "(3) "), which opens its question. */
const NUMBERING = /^\W{0,3}(?:\(?\d+(?:\.\d+)*[.)]?\s+)/;
/** An entry's number left alone by the sentence splitter ("2." before "Where can I get ...?"): the next entry begins. */
const BARE_NUMBER = /^\W{0,3}\(?\d+(?:\.\d+)*[.)]?$/;

/**
 * A sentence that ends in a question mark (a FAQ's question, a rhetorical one), or a FAQ's question line, asks rather
 * than answers: it repeats the user's words, so it ranks high, but never holds the answer.
 */
export const asksQuestion = (sentence: string) => /\?[\s"'\u201d\u2019)\]]*$/u.test(sentence) || FAQ_QUESTION.test(sentence);

/** A sentence's place among the retrieved chunks' sentences. */
export interface PlacedSentence {
  text: string;
  chunkRank: number;
  position: number;
}

/**
 * The sentences of FAQ questions that run over several sentences: a "Q:" line and every sentence after it up to the
 * "A:" marker that opens its answer in the same chunk ("Q: When I specify a dual address (... "!!") on the command
 * line, I get some message ..."). They ask, as the question line does. A "Q:" line with no answer marker after it in
 * its chunk marks only itself.
 */
export function inFaqQuestions(sentences: readonly PlacedSentence[]): Set<number> {
  const out = new Set<number>();
  const byChunk = new Map<number, number[]>();
  sentences.forEach((s, i) => {
    const indices = byChunk.get(s.chunkRank);
    if (indices) indices.push(i);
    else byChunk.set(s.chunkRank, [i]);
  });
  for (const indices of byChunk.values()) {
    const ordered = indices.sort((a, b) => sentences[a]!.position - sentences[b]!.position);
    let open: number[] | null = null;
    for (const i of ordered) {
      const text = sentences[i]!.text;
      if (ANSWER_MARKER.test(text)) {
        for (const j of open ?? []) out.add(j);
        open = null;
      } else if (FAQ_QUESTION.test(text) || HEADED_QUESTION.test(text)) open = [i];
      else open?.push(i);
    }
  }
  return out;
}

/** The share of the question's and the FAQ question's words (stemmed, without stop words) that they have in common. */
export const MIN_FAQ_OVERLAP = 0.6;
/**
 * Or the share of the user's words (three at least) that the FAQ question holds: a FAQ question often says more than
 * the user asks ("When I specify a dual address ... on the command line, I get some message "event not found", and my
 * shell history has the line truncated. Not even protecting the '!'s with '\' helps.").
 */
export const MIN_FAQ_CONTAINED = 0.75;
/** Sentences of a FAQ's answer shown at most, and words. */
const ANSWER_SENTENCES = 3;
const ANSWER_WORDS = 90;

export interface FaqSentence {
  text: string;
  /** The chunk the sentence comes from (its rank among the retrieved ones) and its place in it. */
  chunkRank: number;
  position: number;
  /** The chunk's text, to tell a question on a line of its own from one inside a paragraph. */
  chunk: string;
}

export interface FaqAnswer {
  /** Index of the FAQ's question among the sentences, and of its answer's sentences. */
  question: number;
  answer: number[];
  /** Jaccard overlap of the two questions' words, in [MIN_FAQ_OVERLAP, 1]. */
  overlap: number;
}

/**
 * Whether the sentence at `i` is a FAQ's question rather than one asked inside prose or dialogue: a question line
 * ("Q: ..."), a question followed by an answer marker, or a question that ends its line with the answer below it.
 */
function isFaqQuestion(sentences: FaqSentence[], i: number, next: number): boolean {
  const s = sentences[i]!;
  if (FAQ_QUESTION.test(s.text) || HEADED_QUESTION.test(s.text)) return true;
  if (!asksQuestion(s.text)) return false;
  if (next >= 0 && ANSWER_MARKER.test(sentences[next]!.text)) return true;
  const at = s.chunk.indexOf(s.text);
  return at >= 0 && /^[ \t]*\r?\n/.test(s.chunk.slice(at + s.text.length));
}

const wordsOf = (question: string) => new Set(bm25Tokens(question.replace(HEADED_QUESTION, '').replace(FAQ_QUESTION, '').replace(NUMBERING, '')));

/**
 * How well a FAQ question (b) asks what the user asks (a): the share of their words in common (Jaccard), or, when the
 * FAQ question holds at least MIN_FAQ_CONTAINED of the user's words (three at least), that share.
 */
function overlapOf(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  const jaccard = shared / (a.size + b.size - shared || 1);
  const contained = a.size >= 3 ? shared / a.size : 0;
  return contained >= MIN_FAQ_CONTAINED ? Math.max(jaccard, contained) : jaccard;
}

/** The sentence after `i` in its chunk, or -1. */
const nextIn = (sentences: FaqSentence[], i: number) =>
  sentences.findIndex((d) => d.chunkRank === sentences[i]!.chunkRank && d.position === sentences[i]!.position + 1);

/** The sentences after a FAQ's question, up to its next question, ANSWER_SENTENCES or ANSWER_WORDS. */
function answerAfter(sentences: FaqSentence[], i: number): number[] {
  const out: number[] = [];
  let words = 0;
  for (let at = nextIn(sentences, i); at >= 0 && out.length < ANSWER_SENTENCES; at = nextIn(sentences, at)) {
    const text = sentences[at]!.text;
    if (BARE_NUMBER.test(text) || FAQ_QUESTION.test(text) || (asksQuestion(text) && isFaqQuestion(sentences, at, nextIn(sentences, at)))) break;
    words += text.split(/\s+/).length;
    if (out.length && words > ANSWER_WORDS) break;
    out.push(at);
  }
  return out;
}

/** Sentences a FAQ question may run over after its "Q:" line, before its answer marker. */
const QUESTION_SENTENCES = 4;

/**
 * The sentences of the FAQ question at `i`: a "Q:" line runs up to the "A:" marker that opens its answer, when one
 * follows within a few sentences of the same chunk ("Q: When I specify ... truncated." "Not even protecting ... helps."
 * "A: ..."); a question goes on with the questions right after it in its paragraph ("43. Is zlib subject to export
 * controls?  What is its ECCN?"), which ask with it; any other question is its one sentence.
 */
function questionBlock(sentences: FaqSentence[], i: number): number[] {
  const block = [i];
  if (!FAQ_QUESTION.test(sentences[i]!.text) && !HEADED_QUESTION.test(sentences[i]!.text)) return withFollowingQuestions(sentences, block);
  for (let at = nextIn(sentences, i); at >= 0 && block.length <= QUESTION_SENTENCES; at = nextIn(sentences, at)) {
    const text = sentences[at]!.text;
    if (ANSWER_MARKER.test(text)) return block;
    if (FAQ_QUESTION.test(text)) break;
    block.push(at);
  }
  return [i];
}

/** The block with the questions that follow its last sentence in the same paragraph of its chunk (no blank line). */
function withFollowingQuestions(sentences: FaqSentence[], block: number[]): number[] {
  for (let at = nextIn(sentences, block[block.length - 1]!); at >= 0 && block.length < QUESTION_SENTENCES; at = nextIn(sentences, at)) {
    const [last, s] = [sentences[block[block.length - 1]!]!, sentences[at]!];
    if (!asksQuestion(s.text) || FAQ_QUESTION.test(s.text)) break;
    const from = s.chunk.indexOf(last.text);
    if (from < 0) break;
    const end = from + last.text.length;
    const gap = s.chunk.indexOf(s.text, end);
    if (gap < 0 || /\n[ \t]*\n/.test(s.chunk.slice(end, gap))) break;
    block.push(at);
  }
  return block;
}

/** The FAQ question among the sentences that asks what `question` asks (the closest, first in rank), with its answer. */
export function faqAnswer(question: string, sentences: FaqSentence[]): FaqAnswer | null {
  const asked = wordsOf(question);
  if (asked.size < 2) return null;
  let best: FaqAnswer | null = null;
  sentences.forEach((s, i) => {
    if (!asksQuestion(s.text)) return;
    const block = questionBlock(sentences, i);
    const overlap = overlapOf(asked, wordsOf(block.map((j) => sentences[j]!.text).join(' ')));
    if (overlap < MIN_FAQ_OVERLAP || (best && overlap <= best.overlap)) return;
    const last = block[block.length - 1]!;
    // A question that others follow on its line is a FAQ's when the last of them is.
    if (!isFaqQuestion(sentences, i, nextIn(sentences, last)) && !(last !== i && isFaqQuestion(sentences, last, nextIn(sentences, last)))) return;
    const answer = answerAfter(sentences, last);
    if (answer.length) best = { question: i, answer, overlap };
  });
  return best;
}
