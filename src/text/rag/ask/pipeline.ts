// Question answering as a list of named steps over one context (context.ts), each in steps/: guard the question,
// rewrite it, retrieve, keep the relevant passages, check their support, answer from the documents' catalogue, let a
// learned part reconsider a refusal, refuse, answer (LLM with citations, or extractive), check grounding, score
// confidence. Each step records what it decided in the context (and so in the response's guardrails and the step
// events); the first that has a response ends the question.
import type { Llm } from '../../llm/llm.js';
import type { QaReader } from '../../qa-reader.js';
import type { DocumentCatalogue } from '../documents.js';
import type { RagService, SearchHit } from '../service.js';
import type { Answerability } from './answerability.js';
import { AskContext, type StepListener } from './context.js';
import { CorpusVocabulary } from './corpus.js';
import { type Lexicon, loadLexicon } from './lexicon.js';
import type { QuestionNlp } from './question-nlp.js';
import { type ReadAhead, type TagAhead, readAhead } from './read-ahead.js';
import { PassageReader } from './read-passages.js';
import type { ReadResult } from './reader.js';
import type { ReadArgs } from './reader-task.js';
import type { AskResponse } from './response.js';
import { AnswerStep } from './steps/answer.js';
import { CatalogueStep } from './steps/catalogue.js';
import { GateStep } from './steps/gate.js';
import { GroundStep } from './steps/ground.js';
import { GuardStep } from './steps/guard.js';
import { RefuseStep } from './steps/refuse.js';
import { RelevanceStep, isRelevant } from './steps/relevance.js';
import { RetrieveStep } from './steps/retrieve.js';
import { RewriteStep } from './steps/rewrite.js';
import { ScoreStep } from './steps/score.js';
import type { AskStep, LearnedParts } from './steps/step.js';
import { SupportStep } from './steps/support.js';
import type { SupportGate } from './support-gate.js';
import { DEFAULT_SUPPORT, type SupportSettings, WordVectorCache, type WordVectors } from './support.js';
import type { TableVectors } from './word-vectors.js';

export type { StepListener } from './context.js';
export type { ShownType } from './read-passages.js';
export type { AskResponse } from './response.js';
export { wholeNumber } from './read-passages.js';
export { withoutAnswerMarker } from './faq.js';
export { entityCoverage, entityStatistics } from './response.js';

export interface AskSettings {
  minSemantic: number;
  minBm25: number;
  groundingThreshold: number;
  abbreviations: Record<string, string>;
  llmRewrite: boolean;
  /** RAG_RERANK: reorder the retrieved passages with the cross-encoder before the relevance filter. */
  rerank?: boolean;
  /** The support check's thresholds (DEFAULT_SUPPORT without). */
  support?: SupportSettings;
  /** Reconsiders the support rule's refusals for missing words (support-gate.ts); without, the rule alone decides. */
  supportGate?: SupportGate | null;
  /** "Not in the collection" as a learned decision (answerability.ts); it replaces the support gate when given. */
  answerability?: Answerability | null;
  /** General English words, which typo fixing never changes (the shipped embedder's vocabulary without). */
  lexicon?: Lexicon;
  /** Single-word vectors for the support check's close equivalents; without, only same-stem words count. */
  wordVectors?: WordVectors;
  /** Vectors from the shipped embedder's word table, for the words it holds as one entry (support.ts). */
  wordTable?: (words: string[]) => Promise<TableVectors>;
  /** READER_MODEL: a question-answering model for the span step of extractive answers (else the learned span ranker). */
  reader?: (() => Promise<QaReader>) | null;
  /** Runs the learned reader in a worker thread (reader-task.ts); without, or while the pool is full, it runs inline. */
  readInWorker?: (args: ReadArgs) => Promise<ReadResult | null>;
  /** Tags the sentences of passages ahead of their questions in a worker thread (reader-task.ts, read-ahead.ts). */
  readAheadInWorker?: TagAhead;
  /** Tags the question in a worker thread (reader-task.ts); without, here (the tagger then loads on this thread). */
  tagInWorker?: (question: string) => Promise<QuestionNlp>;
  /** The documents' authors and dates (DOCS_DIR/documents.json), for questions about the documents themselves. */
  documents?: () => DocumentCatalogue;
  /** The span's expected token F1 below which a factoid is answered with its sentence (SPAN_DOUBT without). */
  spanDoubt?: number;
}

/**
 * A factoid's span is shown alone only when the reader expects it to be mostly right (expected token F1 from this);
 * otherwise the sentence holding it is the answer, and answer_type says "sentence". Chosen on the development halves
 * of the evaluation collections (docs/text.md).
 */
export const SPAN_DOUBT = 0.5;

/** A factoid the span step is tried with before a user's first question (any words: the span step reads them all). */
const WARM_UP_FACTOID = 'Who did what, and when?';
/** Passages per warm-up reading: as many as a question's retrieval keeps. */
const WARM_UP_PASSAGES = 5;

export class AskPipeline {
  private readonly learned: LearnedParts;
  private readonly reader: PassageReader;
  private readonly tagAhead?: TagAhead;
  /** The steps, in the order they run. */
  readonly steps: readonly AskStep[];

  constructor(rag: RagService, llm: Llm, settings: AskSettings) {
    const lexicon = settings.lexicon ?? loadLexicon();
    const wordVectors = settings.wordVectors ? new WordVectorCache(settings.wordVectors, undefined, settings.wordTable) : undefined;
    const learned: LearnedParts = { gate: settings.supportGate ?? null, decision: settings.answerability ?? null, spanDoubt: settings.spanDoubt ?? SPAN_DOUBT };
    const corpus = new CorpusVocabulary(rag);
    // The question's entities, answer type and nouns, from the part-of-speech tagger: in the worker when there is one.
    const tag = async (question: string): Promise<QuestionNlp> =>
      settings.tagInWorker ? settings.tagInWorker(question) : (await import('./question-nlp.js')).questionNlp(question);
    const reader = new PassageReader(rag, corpus, { reader: settings.reader, readInWorker: settings.readInWorker, spanDoubt: () => learned.spanDoubt });
    const support = settings.support ?? DEFAULT_SUPPORT;
    this.learned = learned;
    this.reader = reader;
    this.tagAhead = settings.readAheadInWorker;
    this.steps = [
      new GuardStep(rag),
      new RewriteStep({ llm, abbreviations: settings.abbreviations, llmRewrite: settings.llmRewrite, lexicon, corpus, tag }),
      new RetrieveStep({ rag, rerank: !!settings.rerank, documents: settings.documents, corpus }),
      new RelevanceStep(settings),
      new SupportStep({ rag, settings: support, relevant: isRelevant(settings), lexicon, wordVectors, corpus, tag }),
      new CatalogueStep(reader, async () => (await rag.stats()).sources.map((s) => s.source)),
      new GateStep(reader, learned),
      new RefuseStep(),
      new AnswerStep({ llm, reader, learned, support }),
      new GroundStep(settings),
      new ScoreStep(),
    ];
  }

  /**
   * Reads a factoid question from a passage of the collection, so that the span step (its code and models, in the
   * worker too) has run once before a user's first factoid question: a question about the documents, as the start's
   * warm-up asks, is answered by sentences and never reaches it.
   */
  async warmUpReader(passages: SearchHit[]): Promise<void> {
    for (let i = 0; i < passages.length; i += WARM_UP_PASSAGES) await this.reader.read(WARM_UP_FACTOID, 'factoid', passages.slice(i, i + WARM_UP_PASSAGES));
  }

  /** Reads the collection's passages ahead of its questions (read-ahead.ts); nothing without a worker to read in. */
  async readAhead(texts: string[], maxSentences: number, budgetMs: number): Promise<ReadAhead | null> {
    return this.tagAhead ? readAhead(texts, this.tagAhead, maxSentences, budgetMs) : null;
  }

  /** Sets the span's expected token F1 below which a factoid is answered with its sentence (SPAN_DOUBT by default). */
  useSpanDoubt(value: number): void {
    this.learned.spanDoubt = value;
  }

  /** Replaces the learned decision (training: a threshold of 0 answers every question the reader reads). */
  useAnswerability(model: Answerability | null): void {
    this.learned.decision = model;
  }

  /** Replaces the support gate (training and evaluation: a gate with threshold 0 answers every question it applies to). */
  useSupportGate(gate: SupportGate | null): void {
    this.learned.gate = gate;
  }

  /**
   * `onToken` gets the answer's text as it is produced (awaited: back-pressure), and `signal` ends the LLM calls of a
   * client that went away.
   */
  async ask(question: unknown, topK: number, onStep?: StepListener, onToken?: (t: string) => void | Promise<void>, signal?: AbortSignal): Promise<AskResponse> {
    const ctx = new AskContext({ question, topK, onStep, onToken, signal });
    for (const step of this.steps) {
      await step.run(ctx);
      if (ctx.response) return ctx.response;
    }
    throw new Error('the ask pipeline ended without a response');
  }
}
