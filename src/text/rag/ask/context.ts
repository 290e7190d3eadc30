// The one typed context that the ask pipeline's steps (steps/*.ts) read and fill in, in order: the request, what each
// step found or decided (also recorded in `guardrails` and the step events), and the response once a step has one.
import type { DocumentCatalogue } from '../documents.js';
import type { SearchHit } from '../service.js';
import type { ConfidenceOf } from './confidence.js';
import type { QuestionNlp } from './question-nlp.js';
import type { PassageReading } from './read-passages.js';
import type { AskResponse } from './response.js';
import type { Change, Entities } from './rewrite.js';
import type { SupportVerdict } from './support.js';
import type { QuestionSupport } from './question-support.js';

export type StepListener = (step: string, data: Record<string, unknown>) => void;

/** What the caller asks, and how it follows the answer. */
export interface AskRequest {
  question: unknown;
  topK: number;
  /** Each step's event (the stream's `step` events), as it happens. */
  onStep?: StepListener;
  /** The answer's text as it is produced (awaited: back-pressure). */
  onToken?: (t: string) => void | Promise<void>;
  /** Ends the LLM calls of a client that went away. */
  signal?: AbortSignal;
}

/** The learned decision on an extractive reading (steps/answer.ts), as `guardrails.answerability` shows it. */
export type Decision = {
  probability: number;
  threshold: number;
  passed: boolean;
  level: 'high' | 'medium' | 'low';
  features: Record<string, number>;
};

/** The answer step's answer: an extractive reading, or the LLM's text. */
export type Answered = Omit<PassageReading, 'support' | 'passage'> & {
  passage: PassageReading['passage'] | null;
  support: number | null;
  llm: boolean;
  /** Why the extractive answer stands in for the LLM's: no key, or the LLM's failure; null for an LLM answer. */
  fallback: string | null;
};

const NO_ENTITIES: Entities = { people: [], places: [], organizations: [], dates: [], numbers: [] };

export class AskContext {
  /** Milliseconds of each timed part, in the order they ran. */
  readonly timings: Record<string, number> = {};
  /** What each guardrail decided (the response's `guardrails`). */
  readonly guardrails: Record<string, unknown> = {};
  /** Warnings for the response, in the order the steps gave them. */
  readonly warnings: string[] = [];

  // guard
  /** The question as asked, trimmed. */
  original = '';
  // rewrite
  rewritten = '';
  changes: Change[] = [];
  entities: Entities = NO_ENTITIES;
  /** The tagger's reading of the original question (entities, answer type, nouns). */
  tagged: QuestionNlp = { entities: NO_ENTITIES, answerType: 'factoid', nouns: [] };
  // retrieve
  /** The documents' catalogue (authors and dates), read once for the whole question; null without one. */
  catalogue: DocumentCatalogue | null = null;
  /** The documents of the speaker a "What did X say ...?" question names, which alone are searched. */
  speakerDocs: Set<string> | null = null;
  /** That speaker's words, lower case (not required in the passages: "Bill" of William J. Clinton). */
  speakerNames = new Set<string>();
  /** The stems by which the question names documents (their file names), which alone are searched then. */
  namedStems = new Set<string>();
  hits: SearchHit[] = [];
  // relevance, support
  /** The passages that go on: relevant enough, and with the support step the chunks naming what they lacked first. */
  kept: SearchHit[] = [];
  /** The question's names, numbers and dates, for the entity statistics and the confidence's entity coverage. */
  entityList: string[] = [];
  support: SupportVerdict | null = null;
  /** The support check of this question (its rewritten form tagged once), for the passages and the answer's windows. */
  supportCheck: QuestionSupport | null = null;
  stats: Record<string, { chunks: number; sources: string[] }> = {};
  // catalogue
  /** Names or years of the question that no document of the catalogue matches: not answered from another one. */
  notInCatalogue: string[] | null = null;
  /** The newest document's date when the question asks about the present and every document is older. */
  newest: string | null = null;
  // gate
  /** Share of the kept passages that mention the question's entities (or whose author is one). */
  entityShare = 0;
  /** A reading the support gate or the learned decision made before the answer step: that reading is the answer. */
  gated: PassageReading | null = null;
  // answer, ground, score
  answered: Answered | null = null;
  decision: Decision | null = null;
  grounding: number | null = null;
  confidence: ConfidenceOf | null = null;
  /** The response, once a step has it (a refusal, a catalogue answer, or the last step's answer). */
  response: AskResponse | null = null;

  constructor(readonly request: AskRequest) {}

  /**
   * Runs fn and adds its milliseconds to those recorded under `name`: a question the support gate reads before the
   * answer step (both time the reading as "answer") shows the time of both.
   */
  async time<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const t = performance.now();
    const out = await fn();
    this.timings[name] = Math.round(((this.timings[name] ?? 0) + performance.now() - t) * 100) / 100;
    return out;
  }

  /** Tells the listener about a step. */
  emit(step: string, data: Record<string, unknown>): void {
    this.request.onStep?.(step, data);
  }
}
