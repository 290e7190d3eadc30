// The learned extractive reader: a sentence ranker over the sentences of the retrieved chunks, then a span ranker over
// the word spans of the chosen sentence. Both are gradient-boosted trees (trained by `npm run train:reader` on
// SQuAD, models/text/reader/) over cheap features (reader-features.ts); training and serving share that code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../../infra/paths.js';
import { type CompactEnsemble, compactEnsemble, ensembleFromOnnx, predictCompactMany, sigmoid } from '../../../infra/tree-ensemble.js';
import type { AnswerType } from './answer-type.js';
import { asksQuestion, inFaqQuestions, withoutAnswerMarker } from './faq.js';
import { termsOf } from './extractive.js';
import { checkFeatureNames, featureVector } from './features.js';
import { asksForSeveral } from './reader-question.js';
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
import { DEFAULT_AHEAD, DEFAULT_BEHIND, type StatedDefault, asksDefault, defaultSpan, statedDefault } from './stated-default.js';
import {
  POINTS_AHEAD,
  continuation,
  followOn,
  introduced,
  leadBefore,
  listed,
  loneWord,
  nearby,
  neighbour,
  otherwiseAfter,
  reasonAfter,
  withAnnounced,
} from './reader-context.js';
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
  /**
   * A factoid whose question asks for several things (its what/which noun is a plural): the answer shown is the whole
   * list its span is an item of (span-list.ts). Read here, where the question is tagged.
   */
  several?: true;
}

/** The sentence model's verdicts on the candidates: features, raw scores, probabilities and their order. */
interface SentenceScores {
  features: SentenceFeatures[];
  raw: number[];
  p: number[];
  order: number[];
}

/** A span of candidate `i` (words `from` to `to`) with its span model score. */
interface ScoredSpan {
  i: number;
  from: number;
  to: number;
  text: string;
  score: number;
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
    if (q.answerType === 'open' || spanStep === 'none') return this.readOpen(q, candidates, p, order);
    const read = this.readFactoid(q, candidates, { features, raw, p, order });
    return read?.answerType === 'factoid' && asksForSeveral(q.text) ? { ...read, several: true } : read;
  }

  /** An open answer: the best sentence, with the runner-up, a lead, a list, an announced or a following sentence. */
  private readOpen(q: QuestionInfo, candidates: SentenceCandidate[], p: number[], order: number[]): ReadResult {
    const top = order[0]!;
    const second = order[1];
    const ranked =
      second !== undefined && p[second]! >= 0.5 * p[top]! && candidates[second]!.chunkRank === candidates[top]!.chunkRank
        ? [top, second].sort((a, b) => candidates[a]!.position - candidates[b]!.position)
        : [top];
    // "How can I stop X?" read from the sentence that says X happens by default: it goes on to the sentence that says
    // how to do otherwise.
    const otherwise = q.wh === 'how' ? otherwiseAfter(candidates, ranked) : null;
    const pair = otherwise ? [otherwise.from] : ranked;
    const last = pair[pair.length - 1]!;
    const listedAfter = listed(q, candidates, last);
    const after = listedAfter.length ? listedAfter : introduced(candidates, last);
    const read = [...leadBefore(candidates, pair[0]!), ...pair, ...(after.length || otherwise ? after : reasonAfter(q, candidates, pair))];
    const goesOn = otherwise ? otherwise.after : after.length || read.length > pair.length ? [] : continuation(q, candidates, pair, p);
    // A sentence it goes on with that ends with a colon brings what it announces ("One way to do this is:" over the
    // command).
    const more = goesOn.length ? [...goesOn, ...introduced(candidates, goesOn[goesOn.length - 1]!)] : [];
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

  /** The spans of candidate `i` (the `rank`-th most likely sentence), each scored by the span model. */
  private scoredSpans(q: QuestionInfo, candidates: SentenceCandidate[], s: SentenceScores, i: number, rank: number): ScoredSpan[] {
    const terms = termsOf(candidates[i]!.text);
    const found = spanCandidates(terms, q);
    if (!found.length) return [];
    const top = s.order[0]!;
    const standing = { score: s.raw[i]!, rank, gap: s.raw[top]! - s.raw[i]! };
    const rows = spanRows(terms, found, q, s.features[i]!, standing, this.spanNames);
    return [...predictCompactMany(this.models.span, rows)].map((score, k) => ({ i, from: found[k]!.from, to: found[k]!.to, text: found[k]!.text, score }));
  }

  /**
   * For a question about a default: the span that gives the default stated in the chosen span's sentence, in one of
   * the DEFAULT_AHEAD sentences after it in its chunk or, when none of those states one, in one of the DEFAULT_BEHIND
   * sentences before it (stated-default.ts; "Default: 50" over "The width of the text before wrapping"), with the
   * sentences read between the two; null when none states one.
   */
  private statedDefaultSpan(
    q: QuestionInfo,
    candidates: SentenceCandidate[],
    s: SentenceScores,
    best: ScoredSpan,
    spans: ScoredSpan[],
  ): { span: ScoredSpan; read: number[] } | null {
    // The spans of a sentence read for spans already are scored; another's are scored here.
    const spansOf = (at: number) => {
      const own = spans.filter((x) => x.i === at);
      return own.length ? own : this.scoredSpans(q, candidates, s, at, s.order.indexOf(at));
    };
    const found = (read: number[], at: number, stated: StatedDefault) => {
      const span = defaultSpan(stated, spansOf(at));
      return span ? { span, read } : null;
    };
    // A default stated under another heading is another setting's ("resolve([options]): files defaults to ...").
    const section = candidates[best.i]!.section;
    const inSection = (run: number[]) => {
      const other = run.findIndex((at) => section && candidates[at]!.section && candidates[at]!.section !== section);
      return other < 0 ? run : run.slice(0, other);
    };
    const ahead = [best.i, ...inSection(nearby(candidates, best.i, 1, DEFAULT_AHEAD))];
    for (const [k, at] of ahead.entries()) {
      const stated = statedDefault(termsOf(candidates[at]!.text));
      if (!stated) continue;
      // "By default, ..." opening the chosen sentence marks no place in it: the chosen span stands.
      if (at === best.i && stated.after === undefined && stated.before === undefined) return null;
      return found(ahead.slice(0, k + 1), at, stated);
    }
    const behind = inSection(nearby(candidates, best.i, -1, DEFAULT_BEHIND));
    for (const [k, at] of behind.entries()) {
      const stated = statedDefault(termsOf(candidates[at]!.text));
      if (stated?.after !== undefined) return found([...behind.slice(0, k + 1).reverse(), best.i], at, stated);
    }
    return null;
  }

  /**
   * A default stated in a sentence near the chosen one: its span, shown with the sentences from one to the other. The
   * learned decision judges the chosen sentence (`chosen`), as it does when no default is stated.
   */
  private readStated(q: QuestionInfo, candidates: SentenceCandidate[], s: SentenceScores, span: ScoredSpan, read: number[], chosen: number): ReadResult {
    const text = candidates[span.i]!.text;
    const spanScore = sigmoid(span.score);
    return {
      answerType: 'factoid',
      answer: closeQuote(text, wholeName(text, span.text, q.stems)),
      sentence: read.map((i) => candidates[i]!.text).join(' '),
      core: withAnnounced(candidates, chosen),
      candidate: chosen,
      sentenceProbability: s.p[chosen]!,
      spanScore,
      support: s.p[chosen]! * spanScore,
    };
  }

  /** A factoid's span: spans of the best few sentences compete, each span's features with its sentence's score, rank and gap. */
  private readFactoid(q: QuestionInfo, candidates: SentenceCandidate[], s: SentenceScores): ReadResult {
    const { p, order } = s;
    const top = order[0]!;
    const spans = order.slice(0, this.models.sentencesForSpans).flatMap((i, rank) => this.scoredSpans(q, candidates, s, i, rank));
    if (!spans.length) {
      const text = withAnnounced(candidates, top);
      return { answerType: 'factoid', answer: text, sentence: text, candidate: top, sentenceProbability: p[top]!, spanScore: null, support: p[top]! * 0.1 };
    }
    const chosen = this.models.consensus ? spans[consensus(spans, this.models.consensus)]! : spans.reduce((a, b) => (b.score > a.score ? b : a));
    const shaped = shapedSpan(q.text, chosen, spans);
    // A question about a default takes the span that gives the one stated in the sentence, or a few sentences on.
    const stated = asksDefault(q.text) ? this.statedDefaultSpan(q, candidates, s, shaped, spans) : null;
    if (stated && stated.span.i !== shaped.i) return this.readStated(q, candidates, s, stated.span, stated.read, shaped.i);
    const best = stated?.span ?? shaped;
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
 * The sentence model's probability of each candidate from its raw score; 0 for a sentence that asks a question (a FAQ
 * question's sentences among them) or is a lone word.
 */
function probabilities(raw: number[], candidates: SentenceCandidate[]): number[] {
  const asking = inFaqQuestions(candidates);
  return raw.map((x, i) => (asking.has(i) || asksQuestion(candidates[i]!.text) || loneWord(candidates[i]!.text) ? 0 : sigmoid(x)));
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
