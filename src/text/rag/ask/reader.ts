// The learned extractive reader: a sentence ranker over the sentences of the retrieved chunks, then a span ranker over
// the word spans of the chosen sentence. Both are gradient-boosted trees (trained by `npm run train:reader` on
// SQuAD, models/text/reader/) over cheap features (reader-features.ts); training and serving share that code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../../infra/paths.js';
import { type CompactEnsemble, compactEnsemble, ensembleFromOnnx, predictCompactMany, sigmoid } from '../../../infra/tree-ensemble.js';
import { type AnswerType, numberedSet } from './answer-type.js';
import { asksQuestion, inFaqQuestions, withoutAnswerMarker } from './faq.js';
import { termsOf } from './extractive.js';
import { checkFeatureNames, featureVector } from './features.js';
import {
  type QuestionInfo,
  SENTENCE_FEATURES,
  SPAN_FEATURES,
  type SentenceCandidate,
  type SentenceFeatures,
  sentenceFeatures,
  spanCandidates,
  spanRows,
} from './reader-features.js';
import { type ConsensusSettings, consensus } from './span-consensus.js';
import { shapedSpan } from './answer-shape.js';
import { closeQuote, wholeName } from './span-names.js';

export * from './reader-features.js';
export { closeQuote, wholeName } from './span-names.js';

export const READER_DIR = 'models/text/reader';

export interface ReaderModels {
  sentence: CompactEnsemble;
  span: CompactEnsemble;
  /**
   * The features each model reads, by name, in the order of its input (its ONNX file lists them); without, the lists
   * the code computes (SENTENCE_FEATURES, SPAN_FEATURES), as training builds its models.
   */
  sentenceFeatures?: readonly string[];
  spanFeatures?: readonly string[];
  /** How many of the best sentences the span step looks into (chosen on the held-out half). */
  sentencesForSpans: number;
  /** How the best spans vote for the answer (chosen on the held-out half); without, the best-scoring span. */
  consensus?: ConsensusSettings;
}

export interface ReadResult {
  answerType: AnswerType;
  /** The answer: a span for a factoid question, one or two sentences for an open one. */
  answer: string;
  /**
   * For an open answer that goes on with the sentence after the one read (continuation), or quotes two excerpts, and
   * for a factoid's best sentence shown with the one after it: the sentences read, joined as they were when the learned
   * decision was fitted, which is what it judges.
   */
  core?: string;
  /** The sentence(s) the answer comes from. */
  sentence: string;
  /** Index into the candidates of the answer's (first) sentence. */
  candidate: number;
  /** The reader's probability that the chosen sentence holds the answer. */
  sentenceProbability: number;
  /** For a factoid answer, the span model's score (expected token F1 of the span); null for an open answer. */
  spanScore: number | null;
  /** A support score in [0, 1]: sentence probability x span score (factoid) or sentence probability (open). */
  support: number;
}

export class LearnedReader {
  private readonly sentenceNames: readonly string[];
  private readonly spanNames: readonly string[];

  constructor(readonly models: ReaderModels) {
    this.sentenceNames = models.sentenceFeatures ?? SENTENCE_FEATURES;
    this.spanNames = models.spanFeatures ?? SPAN_FEATURES;
  }

  /** The sentence model's raw score of each candidate (its features assembled by the model's own names). */
  private sentenceScores(features: SentenceFeatures[]): number[] {
    return [
      ...predictCompactMany(
        this.models.sentence,
        features.map((f) => featureVector(f, this.sentenceNames)),
      ),
    ];
  }

  /** Probability, for each candidate, that it contains the answer; 0 for a sentence that asks a question. */
  rankSentences(q: QuestionInfo, candidates: SentenceCandidate[], features = sentenceFeatures(q, candidates)): number[] {
    return probabilities(this.sentenceScores(features), candidates);
  }

  /**
   * The answer from the candidate sentences: the best sentence (and for an open question the runner-up too when it
   * is nearly as likely and from the same chunk); for a factoid question the span among those of the best sentences
   * that the best-scoring ones agree on (span-consensus.ts), or the best-scoring one.
   */
  read(q: QuestionInfo, candidates: SentenceCandidate[], spanStep?: 'none'): ReadResult | null {
    if (!candidates.length) return null;
    const features = sentenceFeatures(q, candidates);
    const raw = this.sentenceScores(features);
    const p = probabilities(raw, candidates);
    const order = p.map((_, i) => i).sort((a, b) => p[b]! - p[a]! || a - b);
    return q.answerType === 'open' || spanStep === 'none'
      ? this.readOpen(q, candidates, p, order)
      : this.readFactoid(q, candidates, { features, raw, p, order });
  }

  /** An open answer: the best sentence, with the runner-up, a lead, a list, an announced or a following sentence. */
  private readOpen(q: QuestionInfo, candidates: SentenceCandidate[], p: number[], order: number[]): ReadResult {
    const top = order[0]!;
    const second = order[1];
    const pair =
      second !== undefined && p[second]! >= 0.5 * p[top]! && candidates[second]!.chunkRank === candidates[top]!.chunkRank
        ? [top, second].sort((a, b) => candidates[a]!.position - candidates[b]!.position)
        : [top];
    const last = pair[pair.length - 1]!;
    const listedAfter = listed(q, candidates, last);
    const after = listedAfter.length ? listedAfter : introduced(candidates, last);
    const read = [...leadBefore(candidates, pair[0]!), ...pair, ...(after.length ? after : reasonAfter(q, candidates, pair))];
    const goesOn = after.length || read.length > pair.length ? [] : continuation(q, candidates, pair, p);
    // A sentence it goes on with that ends with a colon brings what it announces ("One way to do this is:" over the
    // command).
    const more = goesOn.length ? [...goesOn, ...introduced(candidates, goesOn[0]!)] : [];
    // A FAQ's answer marker ("A: ") of a sentence after the first is no part of the answer either. Shown, two
    // sentences that do not follow each other (the runner-up further on) are quoted as two excerpts.
    const quote = (ids: number[], excerpts: boolean) =>
      ids
        .map((i, k) => (excerpts && k && neighbour(candidates, candidates[ids[k - 1]!]!, 1) !== i ? '… ' : '') + withoutAnswerMarker(candidates[i]!.text))
        .join(' ');
    const text = quote([...read, ...more], true);
    const answered = {
      answerType: 'open' as const,
      answer: text,
      sentence: text,
      candidate: pair[0]!,
      sentenceProbability: p[top]!,
      spanScore: null,
      support: p[top]!,
    };
    const core = quote(read, false);
    return text === core ? answered : { ...answered, core };
  }

  /** A factoid's span: spans of the best few sentences compete, each span's features with its sentence's score, rank and gap. */
  private readFactoid(
    q: QuestionInfo,
    candidates: SentenceCandidate[],
    s: { features: SentenceFeatures[]; raw: number[]; p: number[]; order: number[] },
  ): ReadResult {
    const { features, raw, p, order } = s;
    const top = order[0]!;
    const spans: { i: number; text: string; score: number }[] = [];
    const rows: ArrayLike<number>[] = [];
    order.slice(0, this.models.sentencesForSpans).forEach((i, rank) => {
      const terms = termsOf(candidates[i]!.text);
      const found = spanCandidates(terms, q);
      if (!found.length) return;
      const standing = { score: raw[i]!, rank, gap: raw[top]! - raw[i]! };
      spanRows(terms, found, q, features[i]!, standing, this.spanNames).forEach((x, k) => {
        spans.push({ i, text: found[k]!.text, score: 0 });
        rows.push(x);
      });
    });
    predictCompactMany(this.models.span, rows).forEach((score, k) => (spans[k]!.score = score));
    if (!spans.length) {
      const text = withAnnounced(candidates, top);
      return { answerType: 'factoid', answer: text, sentence: text, candidate: top, sentenceProbability: p[top]!, spanScore: null, support: p[top]! * 0.1 };
    }
    const chosen = this.models.consensus ? spans[consensus(spans, this.models.consensus)]! : spans.reduce((a, b) => (b.score > a.score ? b : a));
    const best = shapedSpan(q.text, chosen, spans);
    // The span model's expected token F1 of the span.
    const spanScore = sigmoid(best.score);
    // The best sentence goes on with the one after it when that one is likely enough (followOn), as an open answer
    // does: a sentence that matches the question often names only what is asked, and the next one gives it.
    const follow = followOn(candidates, top, p);
    const joined = best.i === top && follow >= 0;
    // "add the following option to the configuration file:" over "VerifyHostKeyDNS yes": the span points at what its
    // sentence announces, which is the answer.
    const announced = POINTS_AHEAD.test(best.text) ? introduced(candidates, best.i) : [];
    const sentence = joined ? `${candidates[top]!.text} ${withAnnounced(candidates, follow)}` : withAnnounced(candidates, best.i);
    // Shown as a sentence (a doubtful span), the answer is judged by the learned decision on the best sentence alone.
    const core = joined ? { core: withAnnounced(candidates, top) } : {};
    return {
      answerType: 'factoid',
      answer: announced.length
        ? candidates[announced[0]!]!.text
        : closeQuote(candidates[best.i]!.text, wholeName(candidates[best.i]!.text, best.text, q.stems)),
      sentence,
      ...core,
      candidate: best.i,
      sentenceProbability: p[best.i]!,
      spanScore,
      support: p[best.i]! * spanScore,
    };
  }
}

export { asksQuestion } from './faq.js';

/**
 * A lone word with no digit ("TRIGGERS.", "Introduction.", "Yes."): a heading or a reply, which answers nothing by
 * itself; the question's word in a heading would otherwise make it the best sentence.
 */
const loneWord = (text: string) => !/\d/.test(text) && (text.match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu) ?? []).length <= 1;

/**
 * The sentence model's probability of each candidate from its raw score; 0 for a sentence that asks a question (a FAQ
 * question's sentences among them) or is a lone word.
 */
function probabilities(raw: number[], candidates: SentenceCandidate[]): number[] {
  const asking = inFaqQuestions(candidates);
  return raw.map((x, i) => (asking.has(i) || asksQuestion(candidates[i]!.text) || loneWord(candidates[i]!.text) ? 0 : sigmoid(x)));
}

/** Sentences that go through a list one by one ("The first is...", "Second, ..."). */
const LIST_ITEM = /^\W*(?:the )?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|next|last|finally)(?:ly)?\b/i;

/** A short reply that opens an answer in a FAQ or a dialogue ("Yes.", "No, not yet."): it belongs to the sentence after it. */
const REPLY = /^(?:yes|no|yep|nope|not (?:yet|really|quite|always|exactly))\b[^.!?]{0,24}[.!]$/i;
/** A sentence that opens by pointing back to the one before it for its cause ("As a result, ...", "That is why ..."). */
const POINTS_BACK =
  /^(?:as a (?:result|consequence)|the result (?:is|was)|therefore|thus|hence|consequently|for (?:this|that|these|those) reasons?|(?:this|that) is why|that's why|because of (?:this|that))\b/i;

/** The index of the sentence `offset` places from `c` in its chunk; -1 when the chunk has none there. */
const neighbour = (candidates: SentenceCandidate[], c: SentenceCandidate, offset: number) =>
  candidates.findIndex((d) => d.chunkRank === c.chunkRank && d.position === c.position + offset);

/**
 * The sentence before `first` in its chunk when the answer needs it: a short reply that `first` explains, or the
 * cause that `first` points back to. The reader ranks the sentence that matches the question; these stand beside it.
 */
function leadBefore(candidates: SentenceCandidate[], first: number): number[] {
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
function reasonAfter(q: QuestionInfo, candidates: SentenceCandidate[], pair: number[]): number[] {
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
function followOn(candidates: SentenceCandidate[], top: number, p: number[]): number {
  const next = neighbour(candidates, candidates[top]!, 1);
  if (next < 0 || p[next]! < CONTINUE_SHARE * p[top]!) return -1;
  const text = candidates[next]!.text;
  return asksQuestion(text) || loneWord(text) ? -1 : next;
}

/** The sentence an open answer of one sentence goes on with (followOn), if any. */
function continuation(q: QuestionInfo, candidates: SentenceCandidate[], pair: number[], p: number[]): number[] {
  if (q.answerType !== 'open' || pair.length > 1) return [];
  const next = followOn(candidates, pair[0]!, p);
  return next < 0 ? [] : [next];
}

/** A span that refers to what comes next ("the following option", "as follows", "below") rather than naming it. */
const POINTS_AHEAD = /\b(?:following|follows|below)\b/i;

/**
 * A sentence with the one it announces (ANNOUNCES: "dpkg will run the postinst script as:" over the command): shown as
 * the answer when the span is doubtful, it would otherwise stop at the colon.
 */
function withAnnounced(candidates: SentenceCandidate[], i: number): string {
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
function introduced(candidates: SentenceCandidate[], last: number): number[] {
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
function listed(q: QuestionInfo, candidates: SentenceCandidate[], after: number): number[] {
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

export type ReaderSettings = Pick<ReaderModels, 'sentencesForSpans' | 'consensus'>;

/** The shipped reader (the two ONNX tree ensembles and the settings chosen with them). */
export function loadLearnedReader(dir = fromRoot(READER_DIR)): LearnedReader {
  // Each model's input is assembled by the feature names its file lists: every one must be a feature the code computes.
  const read = (name: string, computed: readonly string[]) => {
    const file = join(dir, name);
    const { model, meta } = ensembleFromOnnx(new Uint8Array(readFileSync(file)));
    const names = meta.featureNames.length ? meta.featureNames : computed;
    if (model.nFeatures !== names.length)
      throw new Error(`${file} takes ${model.nFeatures} features and names ${names.length}: retrain it (npm run train:reader)`);
    checkFeatureNames(file, names, computed);
    return { model: compactEnsemble(model), names };
  };
  const settings = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as ReaderSettings;
  const sentence = read('sentence.onnx', SENTENCE_FEATURES);
  const span = read('span.onnx', SPAN_FEATURES);
  return new LearnedReader({ sentence: sentence.model, span: span.model, sentenceFeatures: sentence.names, spanFeatures: span.names, ...settings });
}
