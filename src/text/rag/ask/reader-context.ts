// The sentences that stand beside the one the reader chose: a lead before it, the reason or the list after it, the
// sentence it announces or goes on with. The reader ranks the sentence that matches the question; an answer often
// needs its neighbour too.
import { numberedSet } from './answer-type.js';
import { asksQuestion } from './faq.js';
import type { QuestionInfo, SentenceCandidate } from './reader-features.js';

/**
 * A lone word with no digit ("TRIGGERS.", "Introduction.", "Yes."): a heading or a reply, which answers nothing by
 * itself; the question's word in a heading would otherwise make it the best sentence.
 */
export const loneWord = (text: string) => !/\d/.test(text) && (text.match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu) ?? []).length <= 1;

/** Sentences that go through a list one by one ("The first is...", "Second, ..."). */
const LIST_ITEM = /^\W*(?:the )?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|next|last|finally)(?:ly)?\b/i;

/** A short reply that opens an answer in a FAQ or a dialogue ("Yes.", "No, not yet."): it belongs to the sentence after it. */
const REPLY = /^(?:yes|no|yep|nope|not (?:yet|really|quite|always|exactly))\b[^.!?]{0,24}[.!]$/i;
/** A sentence that opens by pointing back to the one before it for its cause ("As a result, ...", "That is why ..."). */
const POINTS_BACK =
  /^(?:as a (?:result|consequence)|the result (?:is|was)|therefore|thus|hence|consequently|for (?:this|that|these|those) reasons?|(?:this|that) is why|that's why|because of (?:this|that))\b/i;

/** The index of the sentence `offset` places from `c` in its chunk; -1 when the chunk has none there. */
export const neighbour = (candidates: SentenceCandidate[], c: SentenceCandidate, offset: number) =>
  candidates.findIndex((d) => d.chunkRank === c.chunkRank && d.position === c.position + offset);

/** The up to `n` sentences that follow `i` in its chunk (`step` 1) or precede it (`step` -1), nearest first. */
export function nearby(candidates: SentenceCandidate[], i: number, step: 1 | -1, n: number): number[] {
  const out: number[] = [];
  for (let at = neighbour(candidates, candidates[i]!, step); at >= 0 && out.length < n; at = neighbour(candidates, candidates[at]!, step)) out.push(at);
  return out;
}

/**
 * The sentence before `first` in its chunk when the answer needs it: a short reply that `first` explains, or the
 * cause that `first` points back to. The reader ranks the sentence that matches the question; these stand beside it.
 */
export function leadBefore(candidates: SentenceCandidate[], first: number): number[] {
  const c = candidates[first]!;
  const before = neighbour(candidates, c, -1);
  if (before < 0) return [];
  return REPLY.test(candidates[before]!.text.trim()) || POINTS_BACK.test(c.text.trim()) ? [before] : [];
}

/** Words that give a cause or a purpose. */
const CAUSAL = /\b(?:because|since|due to|owing to|so that|in order to|as a result|reasons?)\b/i;
/** A sentence that opens by pointing back to the one before it ("This default was picked because ..."). */
const ANAPHOR = /^(?:this|that|these|those|it|such)\b/i;

/**
 * A sentence that opens by saying how the one before it is done ("It does this by:", "This is done by ...", "To do so,
 * ...").
 */
const HOW_IT_IS_DONE =
  /^(?:(?:it|this|that|they) (?:does|do|did) (?:this|so|that|it) (?:by|using|through|with)\b|(?:this|that|it) (?:is|was) (?:done|achieved|accomplished) (?:by|using|through|with)\b|to do (?:this|so|that)\b)/i;

/**
 * For a "why" question answered by a sentence that gives no cause ("jemalloc is the default on Linux."): the next
 * sentence of its chunk when it points back to it and gives one ("This default was picked because ..."). For an open
 * "how" question: the next sentence when it says how the answer's sentence is done ("To gain speed, GNU find avoids
 * statting files whenever possible." over "It does this by:"), with what it announces.
 */
export function reasonAfter(q: QuestionInfo, candidates: SentenceCandidate[], pair: number[]): number[] {
  const next = neighbour(candidates, candidates[pair[pair.length - 1]!]!, 1);
  if (next < 0) return [];
  const text = candidates[next]!.text.trim();
  if (q.wh === 'how') return q.answerType === 'open' && HOW_IT_IS_DONE.test(text) ? [next, ...introduced(candidates, next)] : [];
  if (q.wh !== 'why' || pair.some((i) => CAUSAL.test(candidates[i]!.text))) return [];
  return ANAPHOR.test(text) && CAUSAL.test(text) ? [next] : [];
}

/**
 * The share of the best sentence's probability from which the sentence after it goes on with an open answer. Chosen
 * on the development sets (eval/trials, train/qa, the collections' development halves: answers that then hold the
 * answer) against SQuAD 1.1's odd half (token F1 lost to longer answers): every next sentence would have turned about
 * twice as many answers right as a quarter does, at forty times the odd half's loss of F1 (docs/text.md).
 */
export const CONTINUE_SHARE = 0.25;

/**
 * The sentence after `top` in its chunk when the sentence ranker gives it at least CONTINUE_SHARE of the best one's
 * probability (not a sentence that asks, nor a lone word: a heading); else -1. The sentence that matches the question
 * often only names its subject ("If you run the tests as root, ... 'nobody' by default."), and the one after it says
 * what the question asks ("If you want to use some other non-root username, specify it via ..."). It may open the next
 * paragraph: in a novel, the next line of a dialogue does. An open answer of one sentence goes on with it
 * (continuation); a factoid's best sentence is shown with it.
 */
export function followOn(candidates: SentenceCandidate[], top: number, p: number[]): number {
  const next = neighbour(candidates, candidates[top]!, 1);
  if (next < 0 || p[next]! < CONTINUE_SHARE * p[top]!) return -1;
  const text = candidates[next]!.text;
  return asksQuestion(text) || loneWord(text) ? -1 : next;
}

/** The sentence an open answer of one sentence goes on with (followOn), if any. */
export function continuation(q: QuestionInfo, candidates: SentenceCandidate[], pair: number[], p: number[]): number[] {
  if (q.answerType !== 'open' || pair.length > 1) return [];
  const next = followOn(candidates, pair[0]!, p);
  return next < 0 ? [] : [next];
}

/** A span that refers to what comes next ("the following option", "as follows", "below") rather than naming it. */
export const POINTS_AHEAD = /\b(?:following|follows|below)\b/i;

/**
 * A sentence with the one it announces (ANNOUNCES: "dpkg will run the postinst script as:" over the command): shown as
 * the answer when the span is doubtful, it would otherwise stop at the colon.
 */
export function withAnnounced(candidates: SentenceCandidate[], i: number): string {
  const next = introduced(candidates, i);
  return next.length ? `${candidates[i]!.text} ${candidates[next[0]!]!.text}` : candidates[i]!.text;
}

/**
 * A sentence that announces the next one: it ends with a colon, or breaks off after a preposition with no full stop
 * ("Send bug reports, comments, questions, etc. to" over an address on a line of its own).
 */
const ANNOUNCES = /(?::|\s(?:to|at|from|via|by|with|for|in|into))\s*$/i;
/** A sentence of prose that breaks off after a word in lower case, with no stop ("... can be found in the directory"). */
const BREAKS_OFF = /^(?:\S+\s+){4,}\p{Ll}[\p{L}'\u2019-]*$/u;
/** A numbered list item's marker, which the sentence splitter leaves as a sentence of its own ("1."). */
const LIST_NUMBER = /^\(?\d{1,2}[.)]$/;
/** A sentence that ends with a stop (or a closing quote or bracket after one): prose, which nothing announces. */
const ENDS_PROSE = /[.!?][\s"'\u201d\u2019)\]]*$/u;

/**
 * The sentence right after one that announces it ("Then subscribe to a topic:" over the command, "The options are:"
 * over the first of them), in the same chunk: without it the answer stops at the colon. A sentence that breaks off
 * announces what follows when that is no sentence of prose: a path, a command or an address on a line of its own
 * ("The upstream documentation can be found ... in the directory" over "/usr/share/doc/python3/html").
 */
export function introduced(candidates: SentenceCandidate[], last: number): number[] {
  const text = candidates[last]!.text.trim();
  const colon = ANNOUNCES.test(text);
  if (!colon && !BREAKS_OFF.test(text)) return [];
  const next = neighbour(candidates, candidates[last]!, 1);
  if (next < 0 || (!colon && ENDS_PROSE.test(candidates[next]!.text.trim()))) return [];
  // A numbered list's first marker comes with its item.
  const item = LIST_NUMBER.test(candidates[next]!.text.trim()) ? neighbour(candidates, candidates[next]!, 1) : -1;
  return item < 0 ? [next] : [next, item];
}

/**
 * For "What are the four freedoms?": the sentences right after the answer's (same chunk) that name the set's members
 * one by one, up to the number asked for. The sentence that announces a list ("...four essential human freedoms.")
 * does not hold it.
 */
export function listed(q: QuestionInfo, candidates: SentenceCandidate[], after: number): number[] {
  const n = numberedSet(q.text);
  if (!n) return [];
  const out: number[] = [];
  let at = candidates[after]!;
  while (out.length < n) {
    const next = neighbour(candidates, at, 1);
    if (next < 0 || !LIST_ITEM.test(candidates[next]!.text)) break;
    out.push(next);
    at = candidates[next]!;
  }
  return out;
}

/** A sentence that says what happens by default ("By default, the zlib methods will throw an error ...", "... 'nobody' by default."). */
const SAYS_DEFAULT = /\b(?:by default|per default|defaults? to)\b/i;
/**
 * A sentence that tells how to do otherwise: "However, ... it is possible to suppress ...", "If you want to use some
 * other user name, specify it via ...", "This behaviour can be disabled with ...", "To change it, ...".
 */
const TELLS_OTHERWISE =
  /^(?:however|instead|alternatively)\b|\bif you (?:want|need|wish|prefer|would like|'d like|'re not)\b|\bto (?:change|disable|override|avoid|prevent|stop|suppress|turn off|opt out)\b|\b(?:can|could|may) (?:be )?(?:changed|disabled|overridden|turned off|suppressed|switched off|configured|customi[sz]ed|set)\b|\bit is possible to\b|\byou can (?:change|disable|override|set|use|pass|specify|turn)\b/i;
/** How far after a sentence that says what happens by default the sentence that tells how to do otherwise may be. */
export const OTHERWISE_AHEAD = 3;

/**
 * For a "how" question read from a sentence that says what happens by default (of the ranked one or two): that
 * sentence (`from`) and those after it in its chunk (`after`) up to the first that tells how to do otherwise, within
 * OTHERWISE_AHEAD; null when none does. Asked "how can I decompress a truncated buffer without an error?", the
 * sentence that matches the question states the default ("By default, the zlib methods will throw an error when
 * decompressing truncated data."), and the next one says how to change it.
 */
export function otherwiseAfter(candidates: SentenceCandidate[], ranked: number[]): { from: number; after: number[] } | null {
  for (const from of ranked) {
    if (!SAYS_DEFAULT.test(candidates[from]!.text)) continue;
    const ahead = nearby(candidates, from, 1, OTHERWISE_AHEAD);
    const tells = ahead.findIndex((at) => TELLS_OTHERWISE.test(candidates[at]!.text));
    if (tells >= 0) return { from, after: ahead.slice(0, tells + 1) };
  }
  return null;
}
