// The extractive answer from passages: the learned reader ranks the sentences of the best chunks; a factoid question
// gets the best span (from READER_MODEL when set, else the learned span ranker) with its sentence as the passage, an
// open question its best one or two sentences. The reader runs in a worker thread when one is configured; its models
// (and the part-of-speech tagger) are loaded on this thread only without one.
import type { QaReader } from '../../qa-reader.js';
import { bm25Tokens } from '../../search/bm25.js';
import { sentenceSpans } from '../../sentences.js';
import type { RagService, SearchHit } from '../service.js';
import type { AnswerType } from './answer-type.js';
import type { CorpusVocabulary } from './corpus.js';
import { excerpt } from './excerpt.js';
import { faqAnswer, withoutAnswerMarker } from './faq.js';
import { completeFragment, titleStems } from './passages.js';
import type { LearnedReader, ReadResult, SentenceCandidate, analyseQuestion } from './reader.js';
import type { ReadArgs } from './reader-task.js';
import { reflowed } from './reflow.js';
import { wholeList } from './span-list.js';
import { contextStems, headingBefore, sectionHeadings, sectionTerms } from './sections.js';

/** What an answer is: a span (factoid), sentences (open), or the sentence of a doubtful span (sentence). */
export type ShownType = AnswerType | 'sentence';

export interface PassageRef {
  text: string;
  source: string;
  chunk_index: number;
}

/** An extractive reading: the answer, the passage it comes from, its type and the reader's support for it. */
export interface PassageReading {
  answer: string;
  /** The answer without the sentence it goes on with, when it does (ReadResult.core): what the learned decision judges. */
  core?: string;
  passage: PassageRef;
  answerType: ShownType;
  support: number;
  warnings: string[];
}

/** A window of text (a sentence with its neighbours in the chunk), for the support check near the answer. */
export interface Window {
  text: string;
  source: string;
  parts: string[];
}

/** Whether each window supports the question on its own. */
export type WindowSupport = (windows: Window[]) => Promise<boolean[]>;

/** Retrieved chunks whose sentences the extractive reader ranks. */
const READER_CHUNKS = 5;
/** Best sentences a READER_MODEL reads for the span (joined in their order in the chunks). */
const MODEL_READER_SENTENCES = 3;

/** A sentence to read, with its chunk and the indented term it describes (sectionTerms), if any. */
type Candidate = SentenceCandidate & { hit: SearchHit; term?: string | null };
type Analysed = () => Promise<{ reader: LearnedReader; question: ReturnType<typeof analyseQuestion> }>;

/**
 * A span that starts inside a number takes the number's start: the reader's spans are word runs, and "1 1/2 million"
 * or "2 million" is several words ("1/2 million" of "another 1 1/2 million jobs" would say half a million).
 */
export function wholeNumber(answer: string, sentence: string): string {
  const at = sentence.indexOf(answer);
  if (at <= 0 || !/^(?:\d+\/\d+|hundred|thousand|million|billion|trillion)\b/i.test(answer)) return answer;
  const before = /(?:^|\s)(\d[\d,.]*\s+)$/.exec(sentence.slice(0, at));
  return before ? `${before[1]}${answer}` : answer;
}

export interface PassageReaderOptions {
  /** READER_MODEL: a question-answering model for the span of a factoid (else the learned span ranker). */
  reader?: (() => Promise<QaReader>) | null;
  /** Runs the learned reader in a worker thread; without, it runs here. */
  readInWorker?: (args: ReadArgs) => Promise<ReadResult | null>;
  /** The span's expected token F1 below which a factoid is answered with its sentence. */
  spanDoubt: () => number;
}

export class PassageReader {
  private learned: Promise<{ reader: LearnedReader; analyse: typeof analyseQuestion }> | null = null;

  constructor(
    private readonly rag: Pick<RagService, 'chunk'>,
    private readonly corpus: CorpusVocabulary,
    private readonly options: PassageReaderOptions,
  ) {}

  /** The learned reader on this thread (without a worker, or for READER_MODEL's sentence ranking), loaded on first use. */
  private inlineReader() {
    this.learned ??= import('./reader.js').then((m) => ({ reader: m.loadLearnedReader(), analyse: m.analyseQuestion }));
    return this.learned;
  }

  /**
   * The extractive answer from the best of `kept`; with `windowSupport`, null when no sentence's window supports the
   * question on its own.
   */
  async read(question: string, type: AnswerType, kept: SearchHit[], windowSupport?: WindowSupport): Promise<PassageReading | null> {
    const read = await this.readAnswer(question, type, kept, windowSupport);
    if (!read) return null;
    // The answer as it reads, without the line breaks of a hard-wrapped file (reflow.ts), or a sentence of many lines
    // cut to those that answer (excerpt.ts); the passage stays as it is, and the learned decision judges the whole.
    const shown = excerpt(read.answer, question);
    if (shown === read.answer) return { ...read, answer: reflowed(shown) };
    // The lines of such a sentence are its items: they stay lines.
    return { ...read, core: read.core ?? reflowed(read.answer), answer: shown };
  }

  private async readAnswer(question: string, type: AnswerType, kept: SearchHit[], windowSupport?: WindowSupport): Promise<PassageReading | null> {
    const rarity = this.corpus.rarity();
    // The question's analysis (word vectors, the reader's models) is made where the reader runs: in a worker, the
    // event loop's thread does not load them at all.
    const analysed: Analysed = async () => {
      const inline = await this.inlineReader();
      return { reader: inline.reader, question: inline.analyse(question, rarity) };
    };
    const candidates = this.candidates(kept.slice(0, READER_CHUNKS));
    const warnings: string[] = [];
    if (windowSupport && candidates.length && !(await supportedNear(candidates, windowSupport))) return null;
    const faq = fromFaq(question, type, candidates);
    if (faq) return { ...faq, warnings };
    if (type === 'factoid' && this.options.reader) {
      const found = await this.modelSpan(question, candidates, analysed, warnings);
      if (found) return found;
    }
    const read = await this.readSentences(question, analysed, candidates, rarity);
    if (!read) {
      const top = kept[0]!;
      return {
        answer: top.text.slice(0, 300),
        passage: { text: top.text, source: top.source, chunk_index: top.chunk_index },
        answerType: type,
        support: 0,
        warnings,
      };
    }
    const passage = passageOf(candidates, read.candidate, read.sentence);
    // A span the reader doubts (its expected token F1 below spanDoubt) is not shown alone: its sentence is the answer.
    const doubtful = read.answerType === 'factoid' && read.spanScore !== null && read.spanScore < this.options.spanDoubt();
    if (read.answerType === 'factoid' && !doubtful) {
      const span = wholeNumber(read.answer, read.sentence);
      const answer = read.several ? wholeList(span, read.sentence, question) : span;
      return { answer, passage, answerType: 'factoid', support: read.support, warnings };
    }
    const shown = withoutAnswerMarker(doubtful ? read.sentence : read.answer);
    const answer = underTerm(shown, candidates[read.candidate]!.term);
    // The learned decision judges the reader's own answer; the user sees the term a description's sentence is under.
    const core = read.core !== undefined ? { core: withoutAnswerMarker(read.core) } : answer !== shown ? { core: reflowed(shown) } : {};
    return { answer, ...core, passage, answerType: doubtful ? 'sentence' : read.answerType, support: read.support, warnings };
  }

  /** The best passage of one document for the question: among its retrieved chunks, else its first chunk. */
  async documentPassage(question: string, source: string, kept: SearchHit[]): Promise<PassageReading | null> {
    const own = kept.filter((h) => h.source === source);
    const first = this.rag.chunk(source, 0);
    const evidence = own.length ? own : first ? [{ ...first, semantic_score: 0, bm25_score: 0, combined_score: 0, start: 0, end: first.text.length }] : [];
    return evidence.length ? this.read(question, 'open', evidence) : null;
  }

  /** The sentences of the chunks, in order, each with its chunk's rank, its BM25 share and its document's title stems. */
  private candidates(hits: SearchHit[]): Candidate[] {
    const topBm25 = Math.max(0, ...hits.map((h) => h.bm25_score));
    return hits.flatMap((hit, chunkRank) => {
      const spans = sentenceSpans(hit.text);
      const found = spans.map((s) => s.text);
      const previous = hit.chunk_index > 0 ? this.rag.chunk(hit.source, hit.chunk_index - 1) : undefined;
      // A chunk cut mid-sentence opens with a fragment ("of the forest reserves should...", or "Americans a chance to
      // choose..." after "...small businesses and uninsured"): read it whole. The previous chunk, which overlaps it,
      // says whether its first words start a sentence.
      if (found.length && previous) {
        const whole = completeFragment(previous.text, found[0]!);
        if (whole) found[0] = whole;
      }
      const chunkBm25 = topBm25 > 0 ? hit.bm25_score / topBm25 : 1;
      const title = titleStems(hit.source);
      if (!found.length) return [{ text: hit.text, chunkRank, chunkBm25, position: 0, titleStems: title, hit }];
      // Each sentence holds its document's name's words and its section heading's (sections.ts).
      const before = previous ? headingBefore(previous.text, hit.text, hit.chunk_index === 1) : null;
      const headings = sectionHeadings(hit.text, spans, before, hit.chunk_index === 0);
      const terms = sectionTerms(hit.text, spans, hit.chunk_index === 0);
      return found.map((text, position) => ({
        term: terms[position]!,
        text,
        chunkRank,
        chunkBm25,
        position,
        titleStems: contextStems(title, headings[position]!),
        section: headings[position]!,
        hit,
      }));
    });
  }

  /**
   * READER_MODEL's span among the best sentences by the learned sentence ranker (joined in reading order); null when
   * it finds none, or with a warning when it cannot be used (the learned reader answers then).
   */
  private async modelSpan(question: string, candidates: Candidate[], analysed: Analysed, warnings: string[]): Promise<PassageReading | null> {
    try {
      const reader = await this.options.reader!();
      const { reader: learned, question: q } = await analysed();
      const p = learned.rankSentences(q, candidates);
      const best = p
        .map((_, i) => i)
        .sort((a, b) => p[b]! - p[a]! || a - b)
        .slice(0, MODEL_READER_SENTENCES)
        .sort((a, b) => candidates[a]!.chunkRank - candidates[b]!.chunkRank || candidates[a]!.position - candidates[b]!.position);
      // The best sentences in reading order, and where each starts in the joined context.
      let context = '';
      const starts = best.map((i) => {
        context += (context ? ' ' : '') + candidates[i]!.text;
        return context.length - candidates[i]!.text.length;
      });
      const found = await reader.answer(question, context);
      if (!found.answer) return null;
      let k = 0;
      while (k + 1 < starts.length && starts[k + 1]! <= found.start) k++;
      const i = best[k]!;
      return { answer: found.answer, passage: passageOf(candidates, i, candidates[i]!.text), answerType: 'factoid', support: p[i]! * found.score, warnings };
    } catch (err) {
      warnings.push(`The question-answering model (READER_MODEL) could not be used (${(err as Error).message}); the learned reader answered.`);
      return null;
    }
  }

  /**
   * The learned reader's answer: in a worker when one is configured (a full queue is a 503 with Retry-After, as for
   * every heavy step), else here.
   */
  private async readSentences(question: string, analysed: Analysed, candidates: Candidate[], rarity: (stem: string) => number): Promise<ReadResult | null> {
    if (this.options.readInWorker) {
      const args: ReadArgs = {
        question,
        rarity: Object.fromEntries([...new Set(bm25Tokens(question))].map((s) => [s, rarity(s)])),
        candidates: candidates.map(({ text, chunkRank, chunkBm25, position, titleStems, section }) => ({
          text,
          chunkRank,
          chunkBm25,
          position,
          section,
          ...(titleStems ? { titleStems: [...titleStems] } : {}),
        })),
      };
      return this.options.readInWorker(args);
    }
    const { reader, question: q } = await analysed();
    return reader.read(q, candidates);
  }
}

/**
 * The answer a FAQ among the passages gives to its own question, when that question asks what the user asks
 * (faq.ts): the sentences under it, for any type of question (a factoid's is shown as sentences). Its support is the
 * two questions' overlap, which the learned decision weighs as it weighs the reader's.
 */
function fromFaq(question: string, type: AnswerType, candidates: Candidate[]): Omit<PassageReading, 'warnings'> | null {
  const found = faqAnswer(
    question,
    candidates.map((c) => ({ text: c.text, chunkRank: c.chunkRank, position: c.position, chunk: c.hit.text })),
  );
  if (!found) return null;
  const answer = found.answer.map((i, k) => (k ? candidates[i]!.text : withoutAnswerMarker(candidates[i]!.text))).join(' ');
  const passage = passageOf(candidates, found.question, `${candidates[found.question]!.text} ${answer}`);
  return { answer, passage, answerType: type === 'open' ? 'open' : 'sentence', support: found.overlap };
}

/**
 * Sentences from a manual's description of an option or setting, led by the term they describe ("-w, --wait,
 * --timeout seconds: Fail if the lock cannot be acquired within seconds."): the description seldom names it again.
 */
function underTerm(answer: string, term: string | null | undefined): string {
  return term && !answer.replace(/\s+/g, ' ').startsWith(term) ? `${term}: ${answer}` : answer;
}

const passageOf = (candidates: Candidate[], i: number, text: string): PassageRef => ({
  text,
  source: candidates[i]!.hit.source,
  chunk_index: candidates[i]!.hit.chunk_index,
});

/**
 * The passages support the question only when some sentence and the two either side of it in the chunk hold the
 * question's key content together: a chunk that names France in one paragraph and a capital in another does not
 * answer "the capital of France". The reader then reads every sentence of those passages: it weighs a sentence's
 * nearness to the question's words itself, and reading only the windows' sentences lost it answers one sentence
 * further on (SQuAD F1 0.450 against 0.454, natural set 94 against 96 of 106).
 */
async function supportedNear(candidates: Candidate[], windowSupport: WindowSupport): Promise<boolean> {
  const windows = candidates.map((c, i) => {
    const parts = [candidates[i - 2], candidates[i - 1], c, candidates[i + 1], candidates[i + 2]].filter((n) => n && n.hit === c.hit).map((n) => n!.text);
    return { text: parts.join(' '), parts, source: c.hit.source };
  });
  // Chunk by chunk, the best-ranked first, up to the first supported window: each window is judged on its own, so
  // the outcome is that of judging them all at once, and the other chunks' windows are seldom read.
  for (let from = 0; from < windows.length;) {
    let to = from + 1;
    while (to < windows.length && candidates[to]!.hit === candidates[from]!.hit) to++;
    if ((await windowSupport(windows.slice(from, to))).some(Boolean)) return true;
    from = to;
  }
  return false;
}
