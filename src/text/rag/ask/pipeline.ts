// Question answering in seven visible steps: guard the question, rewrite it, retrieve, filter by relevance,
// answer (LLM with citations, or extractive), check grounding, score confidence.
import type { Llm } from '../../llm/llm.js';
import type { QaReader } from '../../qa-reader.js';
import { splitSentences } from '../../sentences.js';
import { bm25Tokens } from '../../search/bm25.js';
import { TextHttpError } from '../../errors.js';
import { RERANK_DEPTH, type RagService, type SearchHit } from '../service.js';
import type { AnswerType } from './answer-type.js';
import type { DocumentCatalogue } from '../documents.js';
import { confidenceOf } from './confidence.js';
import {
  type DocumentAnswer,
  answerFromCatalogue,
  documentQuestion,
  outdatedFor,
  saidTopic,
  sameLastName,
  speakerDocuments,
  speakerMissing,
  speakerWords,
} from './document-question.js';
import { checkQuestion, groundingScore } from './guardrails.js';
import { completeFragment, titleStems } from './passages.js';
import type { QuestionNlp } from './question-nlp.js';
import { type Lexicon, loadLexicon } from './lexicon.js';
import { DEFAULT_SUPPORT, type SupportSettings, type SupportVerdict, WordVectorCache, type WordVectors, checkSupport } from './support.js';
import { type SupportGate, gateApplies, gateFeatures, gateProbability } from './support-gate.js';
import { type Answerability, answerabilityFeatures, answerabilityProbability, ANSWERABILITY_FEATURES, levelOf } from './answerability.js';
import type { LearnedReader, ReadResult, SentenceCandidate, analyseQuestion } from './reader.js';
import type { ReadArgs } from './reader-task.js';
import { type Change, type Entities, expandAbbreviations, fixTypos, vocabulary } from './rewrite.js';

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
  /** READER_MODEL: a question-answering model for the span step of extractive answers (else the learned span ranker). */
  reader?: (() => Promise<QaReader>) | null;
  /** Runs the learned reader in a worker thread (reader-task.ts); without, or while the pool is full, it runs inline. */
  readInWorker?: (args: ReadArgs) => Promise<ReadResult | null>;
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

/** What an answer is: a span (factoid), sentences (open), or the sentence of a doubtful span (sentence). */
export type ShownType = AnswerType | 'sentence';

/** Retrieved chunks whose sentences the extractive reader ranks. */
const READER_CHUNKS = 5;
/** Best sentences a READER_MODEL reads for the span (joined in their order in the chunks). */
const MODEL_READER_SENTENCES = 3;

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

export type StepListener = (step: string, data: Record<string, unknown>) => void;

/** Passages that join the kept ones for naming what none of those names (the best by the question's words). */
const NAMED_PASSAGES = 2;
const NOT_FOUND = 'The document collection does not contain information to answer this question.';
const DOCUMENTS_NOTE = 'documents.json in the documents folder';
/** Share of the collection's chunks from which a name is everywhere there and not required by the support check. */
const EVERYWHERE_SHARE = 0.25;

export class AskPipeline {
  private learned: Promise<{ reader: LearnedReader; analyse: typeof analyseQuestion }> | null = null;
  private vocab: { generation: number; words: Map<string, number>; stemDf: Map<string, number>; docs: number } | null = null;
  private readonly lexicon: Lexicon;
  private readonly wordVectors: WordVectorCache | undefined;
  private gate: SupportGate | null;
  private decision: Answerability | null;
  private spanDoubt: number;

  constructor(
    private readonly rag: RagService,
    private readonly llm: Llm,
    private readonly settings: AskSettings,
  ) {
    this.lexicon = settings.lexicon ?? loadLexicon();
    this.wordVectors = settings.wordVectors ? new WordVectorCache(settings.wordVectors) : undefined;
    this.gate = settings.supportGate ?? null;
    this.decision = settings.answerability ?? null;
    this.spanDoubt = settings.spanDoubt ?? SPAN_DOUBT;
  }

  /** Sets the span's expected token F1 below which a factoid is answered with its sentence (SPAN_DOUBT by default). */
  useSpanDoubt(value: number): void {
    this.spanDoubt = value;
  }

  /** Replaces the learned decision (training: a threshold of 0 answers every question the reader reads). */
  useAnswerability(model: Answerability | null): void {
    this.decision = model;
  }

  /** The learned decision on an extractive reading: the probability that it is right, its verdict and its level. */
  private decide(
    model: Answerability,
    read: { answer: string; answerType: ShownType; support: number | null },
    kept: SearchHit[],
    support: SupportVerdict,
    entityShare: number,
  ) {
    const { factors } = confidenceOf(
      kept.map((h) => h.semantic_score),
      entityShare,
      read.support ?? undefined,
    );
    const x = answerabilityFeatures({
      support,
      factors,
      topSemantic: Math.max(0, ...kept.map((h) => h.semantic_score)),
      topBm25: Math.max(0, ...kept.map((h) => h.bm25_score)),
      answer: read.answer,
      factoid: read.answerType !== 'open',
    });
    const probability = Math.round(answerabilityProbability(model, x) * 1e4) / 1e4;
    return {
      probability,
      threshold: model.threshold,
      passed: probability >= model.threshold,
      level: levelOf(model, probability),
      features: Object.fromEntries(ANSWERABILITY_FEATURES.map((f, i) => [f, Math.round(x[i]! * 1e4) / 1e4])),
    };
  }

  /** Replaces the support gate (training and evaluation: a gate with threshold 0 answers every question it applies to). */
  useSupportGate(gate: SupportGate | null): void {
    this.gate = gate;
  }

  /** Whether the collection holds a name nearly everywhere (in EVERYWHERE_SHARE of its chunks). */
  private everywhere(name: string): boolean {
    const { stemDf, docs } = this.corpusVocab();
    const stems = bm25Tokens(name);
    return stems.length > 0 && stems.every((st) => (stemDf.get(st) ?? 0) >= EVERYWHERE_SHARE * docs);
  }

  /** The question's entities, answer type and nouns, from the part-of-speech tagger. */
  private async tag(question: string): Promise<QuestionNlp> {
    if (this.settings.tagInWorker) return this.settings.tagInWorker(question);
    return (await import('./question-nlp.js')).questionNlp(question);
  }

  /** The learned reader on this thread (without a worker, or for READER_MODEL's sentence ranking), loaded on first use. */
  private inlineReader() {
    this.learned ??= import('./reader.js').then((m) => ({ reader: m.loadLearnedReader(), analyse: m.analyseQuestion }));
    return this.learned;
  }

  /** Vocabulary of the indexed chunks (words for typo fixing, stem document frequencies for rarity), rebuilt only after a re-index. */
  private corpusVocab() {
    if (!this.vocab || this.vocab.generation !== this.rag.generation) {
      const texts = this.rag.chunkTexts();
      const stemDf = new Map<string, number>();
      for (const t of texts) for (const s of new Set(bm25Tokens(t))) stemDf.set(s, (stemDf.get(s) ?? 0) + 1);
      this.vocab = { generation: this.rag.generation, words: vocabulary(texts), stemDf, docs: texts.length };
    }
    return this.vocab;
  }

  /**
   * `onToken` gets the answer's text as it is produced (awaited: back-pressure), and `signal` ends the LLM calls of a
   * client that went away.
   */
  async ask(question: unknown, topK: number, onStep?: StepListener, onToken?: (t: string) => void | Promise<void>, signal?: AbortSignal) {
    const timings: Record<string, number> = {};
    const time = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
      const t = performance.now();
      const out = await fn();
      timings[name] = Math.round((performance.now() - t) * 100) / 100;
      return out;
    };
    const guardrails: Record<string, unknown> = {};

    // 1. Guardrail 1: nothing is retrieved for a refused question.
    const verdict = await time('guardrail_input', () => checkQuestion(question));
    if (!verdict.ok) throw new TextHttpError(400, `Question refused: ${verdict.reason}`, { guardrail: 'input', reason: verdict.reason });
    const original = (question as string).trim();
    guardrails.input = { passed: true };
    await this.rag.ready();
    onStep?.('guardrail_input', { passed: true });

    // 2. Rewriting and entities.
    const { rewritten, changes, entities, tagged } = await time('rewrite', async () => {
      const tagged = await this.tag(original);
      const entities = tagged.entities;
      const abbr = expandAbbreviations(original, this.settings.abbreviations);
      const properNouns = [entities.people, entities.places, entities.organizations].flat();
      const typos = fixTypos(abbr.text, this.corpusVocab().words, { lexicon: this.lexicon, properNouns });
      const changes: Change[] = [...abbr.changes, ...typos.changes];
      let text = typos.text;
      if (this.settings.llmRewrite && this.llm.available) {
        const r = await this.llm.generate(`Rewrite this question as one clear search query. Answer with the query only.\n\n${text}`, {
          purpose: 'rewrite',
          timeoutMs: 5000,
          signal,
        });
        // Drift check: a rewrite much longer than the question is discarded.
        if (r.ok && r.text.length <= text.length * 5 && r.text.length > 2) {
          changes.push({ from: text, to: r.text, kind: 'llm' });
          text = r.text;
        }
      }
      return { rewritten: text, changes, entities, tagged };
    });
    onStep?.('rewrite', { original, rewritten, changes, entities });

    // 3. Hybrid retrieval, and with RAG_RERANK the cross-encoder's order over a deeper candidate list.
    const rerankWarnings: string[] = [];
    // A question about one speaker's words ("What did Eisenhower warn about?") is asked of that speaker's documents.
    // The documents' catalogue, read once for the whole question (each read checks the file).
    const catalogue = this.settings.documents?.() ?? null;
    const speakerDocs = catalogue ? speakerDocuments(original, catalogue) : null;
    const speakerNames = new Set(speakerDocs ? speakerWords(original) : []);
    const depth = this.settings.rerank ? Math.max(topK, RERANK_DEPTH) : topK;
    let hits = await time('retrieve', () => (speakerDocs ? this.rag.searchIn(rewritten, depth, speakerDocs) : this.rag.search(rewritten, depth)));
    if (this.settings.rerank) hits = await time('rerank', () => this.rerank(rewritten, hits, topK, rerankWarnings));
    onStep?.('retrieve', {
      results: hits.length,
      ...(speakerDocs ? { within: [...speakerDocs] } : {}),
      ...(this.settings.rerank ? { reranked: !rerankWarnings.length } : {}),
    });

    // 4. Guardrail 2: only relevant enough chunks go on.
    const relevant = (h: SearchHit) => h.semantic_score >= this.settings.minSemantic || h.bm25_score >= this.settings.minBm25;
    let kept = await time('guardrail_relevance', () => hits.filter(relevant));
    guardrails.relevance = {
      passed: kept.length > 0,
      kept: kept.length,
      dropped: hits.length - kept.length,
      min_semantic: this.settings.minSemantic,
      min_bm25: this.settings.minBm25,
    };
    onStep?.('guardrail_relevance', guardrails.relevance as Record<string, unknown>);
    const entityList = [entities.people, entities.places, entities.organizations, entities.dates, entities.numbers].flat();

    // 4b. Guardrail 2b: the kept passages must contain the question's names, numbers and most of its rare words.
    // The support check reads the rewritten question's nouns ("US" is "United States" there), tagged once for both of
    // its uses (the passages here, the answer's sentence windows in step 5).
    let rewrittenTagged: Promise<Pick<QuestionNlp, 'entities' | 'nouns'>> | undefined;
    const supportOf = async (passages: { text: string; source: string; parts?: string[] }[], settings: SupportSettings) =>
      checkSupport(
        rewritten,
        await (rewrittenTagged ??= rewritten === original ? Promise.resolve(tagged) : this.tag(rewritten).then((t) => ({ entities, nouns: t.nouns }))),
        passages,
        this.lexicon,
        settings,
        this.wordVectors,
        expandedOf(changes),
        // The speaker of "What did Bill Clinton say...?", whose documents alone are searched, need not be named in
        // them ("Bill" is in none of the addresses of William J. Clinton).
        (name) => this.everywhere(name) || speakerNames.has(name.toLowerCase()),
      );
    const supportSettings = this.settings.support ?? DEFAULT_SUPPORT;
    let support: SupportVerdict | null = null;
    if (kept.length) {
      support = await time('guardrail_support', () => supportOf(kept, supportSettings));
      // Names and numbers that no kept passage mentions, though other chunks of the collection do: the best of those
      // chunks come first (a plain search can rank a name's only passage below ones that share the question's other
      // words, and only they can hold the answer).
      const unnamed = support.terms.filter((t) => t.kind !== 'word' && !t.found).map((t) => t.text);
      if (!support.passed && unnamed.length && !speakerDocs) {
        const named = (await time('retrieve_names', () => this.rag.searchHolding(rewritten, NAMED_PASSAGES, unnamed))).filter(
          (h) => relevant(h) && !kept.some((k) => k.id === h.id),
        );
        if (named.length) {
          kept = [...named, ...kept];
          support = await time('guardrail_support', () => supportOf(kept, supportSettings));
          onStep?.('retrieve_names', { names: unnamed, added: named.length });
        }
      }
      const summary = { passed: support.passed, missing: support.missing, coverage: support.coverage };
      guardrails.support = summary;
      onStep?.('guardrail_support', { ...summary, terms: support.terms });
    }
    const stats = entityStatistics(entityList, kept);

    // 4c. A question about the documents themselves ("Who gave the 1941 address?") is answered from the catalogue: the
    // entry its year or name picks out, or that of the best passage when its topic is supported there.
    const fact = catalogue ? documentQuestion(original, catalogue) : null;
    let notInCatalogue: string[] | null = null;
    // "What did John F. Kennedy say ...?" of a collection with no address by Kennedy: a passage that names him (Obama's
    // "the vision of John F. Kennedy") is not his words.
    const speaker = !fact && catalogue && !speakerDocs ? speakerMissing(original, entities.people, catalogue) : null;
    if (speaker) {
      notInCatalogue = [speaker];
      guardrails.catalogue = { fact: 'speaker', passed: false, missing: [speaker] };
    }
    // "Who is the current president?" of a collection whose newest document is from 2010.
    const newest = !fact && !speaker && catalogue ? outdatedFor(original, catalogue) : null;
    if (newest) guardrails.catalogue = { fact: 'present', passed: false, newest };
    if (fact && catalogue) {
      const sources = [...new Set(kept.map((h) => h.source))];
      let found = answerFromCatalogue(original, fact, catalogue, sources);
      let read: Awaited<ReturnType<AskPipeline['extract']>> | null = null;
      if (found && !('missing' in found) && found.by === 'retrieval') {
        // "Which president talked about the Interstate highways?": the document whose sentence the reader picks.
        read = support?.passed ? await time('answer', () => this.extract(saidTopic(original, catalogue) ?? original, 'open', kept)) : null;
        found = read?.passage ? answerFromCatalogue(original, fact, catalogue, [read.passage.source, ...sources]) : null;
      }
      if (found && 'missing' in found) {
        notInCatalogue = found.missing;
        guardrails.catalogue = { fact, passed: false, missing: found.missing };
      } else if (found) {
        guardrails.catalogue = { fact, passed: true, source: found.source, matched_by: found.by };
        onStep?.('catalogue', guardrails.catalogue as Record<string, unknown>);
        return this.catalogueAnswer(
          found,
          { original, rewritten, changes, entities, stats, kept, guardrails, timings, warnings: rerankWarnings },
          time,
          onToken,
          read,
        );
      }
    }

    // 4d. The support gate: a question refused for missing words only (its names, numbers and topic are there) is read
    // anyway, and answered when the gate, from what the passages lack and how sure the reader is, says they support it.
    let gated: Awaited<ReturnType<AskPipeline['extract']>> | null = null;
    // The share of passages that mention the question's entities (or whose author is one): a confidence factor.
    const entityShare = entityCoverage(entityList, kept, (source) => catalogue?.get(source)?.author);
    if (this.decision && support && !support.passed && !notInCatalogue && !newest) {
      // The learned decision weighs what the rule found against the reading: the reader reads every kept passage.
      gated = await time('answer', () => this.extract(original, tagged.answerType, kept));
    } else if (this.gate && support && !support.passed && gateApplies(support.lacks) && !notInCatalogue && !newest) {
      const gate = this.gate;
      const read = await time('answer', () => this.extract(original, tagged.answerType, kept));
      if (read) {
        const { factors } = confidenceOf(
          kept.map((h) => h.semantic_score),
          entityShare,
          read.support ?? undefined,
        );
        const features = gateFeatures(support.coverage, support.lacks, factors);
        const probability = gateProbability(gate, features);
        const verdict = { probability: Math.round(probability * 1e4) / 1e4, threshold: gate.threshold, passed: probability >= gate.threshold };
        guardrails.support = { ...(guardrails.support as object), gate: verdict };
        onStep?.('guardrail_support_gate', { ...verdict, features: Object.fromEntries(gate.features.map((f, i) => [f, features[i]])) });
        if (verdict.passed) gated = read;
      }
    }

    const notFound = (warning: string) =>
      this.result({
        original,
        rewritten,
        changes,
        entities,
        stats,
        kept,
        answer: NOT_FOUND,
        passage: null,
        answerType: tagged.answerType,
        llm: false,
        grounding: null,
        guardrails,
        confidence: confidenceOf([], 0),
        timings,
        warnings: [...rerankWarnings, warning],
      });
    if (!kept.length || !(support?.passed || gated) || notInCatalogue || newest)
      return notFound(
        newest
          ? `The question asks about the present, and the newest document of the collection's catalogue (${DOCUMENTS_NOTE}) is dated ${newest}: the documents cannot say what is current.`
          : notInCatalogue
            ? `No document of the collection's catalogue (${DOCUMENTS_NOTE}) matches ${notInCatalogue.map((m) => `"${m}"`).join(', ')}: the question is not answered from another one.`
            : support
              ? `The retrieved passages do not mention ${support.missing.map((m) => `"${m}"`).join(', ')}: the question is not answered from them.`
              : 'No retrieved passage reached the relevance threshold.',
      );

    // 5. Answer, read from the passages that support the question on their own (the others only share some of its words),
    // when the neighbourhood of one of their sentences does too (windowSupport).
    // (A question the gate let through was read from all of them already: that reading is the answer.)
    const supporting = kept.filter((_, i) => support!.supporting[i]);
    const windowSupport = (windows: { text: string; source: string; parts: string[] }[]) =>
      // Near the answer, the terms a passage must hold (names, numbers, rare nouns, one of the things asked about); the
      // share of the rest is the passage's business.
      supportOf(windows, { ...supportSettings, minCoverage: 0 }).then((v) => v.supporting);
    let decided: ReturnType<AskPipeline['decide']> | null = null;
    const decideOn = (read: { answer: string; answerType: ShownType; support: number | null } | null) => {
      if (!read || !this.decision) return true;
      decided = this.decide(this.decision, read, kept, support!, entityShare);
      return decided.passed;
    };
    const answered = await time('answer', async () => {
      // A reading the learned decision turned down is no answer: nothing is streamed for it.
      if (gated && !decideOn(gated)) return null;
      if (this.llm.available) {
        const prompt = [
          'Answer the question using only the numbered passages below. Cite the passages you use by number in square',
          'brackets, like [1] or [2][3]. If the passages do not contain the answer, say that the documents do not contain it.',
          '',
          `Question: ${original}`,
          '',
          ...kept.map((h, i) => `[${i + 1}] (${h.source}) ${h.text}`),
        ].join('\n');
        const system = 'You answer strictly from the given documents.';
        // Streaming callers get the provider's tokens as they come.
        const r = onToken ? await this.llm.stream(prompt, onToken, { system, signal }) : await this.llm.generate(prompt, { system, signal });
        if (r.ok)
          return { answer: r.text, passage: null, answerType: tagged.answerType, support: null, llm: true, fallback: null as string | null, warnings: [] };
        const ex = gated ?? (await this.extract(original, tagged.answerType, supporting, windowSupport));
        if (!gated && !decideOn(ex)) return null;
        // Tokens already streamed are superseded: the client is told before the extractive answer follows.
        onStep?.('answer_fallback', { reason: r.reason });
        await onToken?.(ex?.answer ?? NOT_FOUND);
        return ex && { ...ex, llm: false, fallback: r.reason };
      }
      const ex = gated ?? (await this.extract(original, tagged.answerType, supporting, windowSupport));
      if (!gated && !decideOn(ex)) return null;
      await onToken?.(ex?.answer ?? NOT_FOUND);
      return ex && { ...ex, llm: false, fallback: 'no_key' };
    });
    const decision = decided as ReturnType<AskPipeline['decide']> | null;
    if (decision) {
      guardrails.answerability = decision;
      onStep?.('answerability', decision);
    }
    if (!answered && decision && !decision.passed)
      return notFound(
        `The reader's best answer is unlikely to be right (learned decision: probability ${decision.probability} below ${decision.threshold}): the question is not answered from these passages.`,
      );
    if (!answered) {
      // No sentence has the question's key content near it: its words are scattered over the passages.
      guardrails.support = { ...(guardrails.support as object), passed: false, sentence_window: false };
      onStep?.('guardrail_sentence_window', { passed: false });
      return notFound(
        "No sentence of the retrieved passages has the question's key terms around it (they are scattered): the question is not answered from them.",
      );
    }
    onStep?.('answer', { llm_powered: answered.llm, answer_type: answered.answerType });

    // 6. Guardrail 3: grounding of an LLM answer. An extractive answer is copied from a retrieved passage, so the
    // check would pass by construction: it is reported as not applicable.
    const warnings: string[] = [...answered.warnings];
    const g = await time('guardrail_grounding', () =>
      answered.llm
        ? groundingScore(
            answered.answer,
            kept.map((h) => h.text),
          )
        : null,
    );
    const grounding = g?.score ?? null;
    if (g) {
      if (g.score < this.settings.groundingThreshold)
        warnings.push(`Only ${Math.round(g.score * 100)}% of the answer is supported by the retrieved passages: check the sources.`);
      guardrails.grounding = { applicable: true, passed: g.score >= this.settings.groundingThreshold, score: g.score, unsupported: g.unsupported };
    } else {
      guardrails.grounding = { applicable: false, reason: 'extractive answer: copied from a retrieved passage' };
    }
    onStep?.('guardrail_grounding', guardrails.grounding as Record<string, unknown>);
    if (answered.fallback === 'no_key')
      warnings.push('No language model is configured (LLM_API_KEY is unset): the answer is a passage extracted from the documents, not a generated one.');
    else if (answered.fallback) warnings.push(`The language model was unavailable (${answered.fallback}); the answer is extractive.`);

    // 7. Confidence: the learned decision's probability and level when it decided, else the blended score.
    const blended = await time('confidence', () =>
      confidenceOf(
        kept.map((h) => h.semantic_score),
        entityShare,
        answered.support ?? undefined,
      ),
    );
    const confidence =
      decision && !answered.llm
        ? {
            ...blended,
            score: decision.probability,
            level: decision.level,
            explanation: `${decision.level[0]!.toUpperCase()}${decision.level.slice(1)} confidence (${decision.probability.toFixed(2)}): the learned decision's probability that this answer is right, from how well the passages cover the question, how sure the reader is and how well they were retrieved.`,
          }
        : blended;
    return this.result({
      original,
      rewritten,
      changes,
      entities,
      stats,
      kept,
      answer: answered.answer,
      passage: answered.passage,
      answerType: answered.answerType,
      llm: answered.llm,
      grounding,
      guardrails,
      confidence,
      timings,
      warnings: [...rerankWarnings, ...warnings],
    });
  }

  /**
   * The answer to a question about a document: the catalogue's author or date, shown with the sentence that picked the
   * document, or else the document's best passage for the question, as evidence.
   */
  private async catalogueAnswer(
    found: DocumentAnswer,
    r: Pick<Parameters<AskPipeline['result']>[0], 'original' | 'rewritten' | 'changes' | 'entities' | 'stats' | 'kept' | 'guardrails' | 'timings' | 'warnings'>,
    time: <T>(name: string, fn: () => Promise<T> | T) => Promise<T>,
    onToken?: (t: string) => void | Promise<void>,
    /** The reader's pick that found the document (a question answered through the passages), shown as it is. */
    picked?: Awaited<ReturnType<AskPipeline['extract']>> | null,
  ) {
    const read = picked?.passage?.source === found.source ? picked : await time('answer', async () => this.documentPassage(r.original, found.source, r.kept));
    await onToken?.(found.answer);
    const who = found.meta.title ? ` (${found.meta.title})` : '';
    const confidence = await time('confidence', () =>
      confidenceOf(
        r.kept.map((h) => h.semantic_score),
        1,
        // The catalogue states the fact; a document found through the best passage is as sure as that passage.
        found.by === 'retrieval' ? (read?.support ?? 0) : 1,
      ),
    );
    return this.result({
      ...r,
      answer: found.answer,
      passage: read?.passage ?? null,
      answerType: 'factoid',
      llm: false,
      grounding: null,
      guardrails: { ...r.guardrails, grounding: { applicable: false, reason: `answer from ${DOCUMENTS_NOTE}` } },
      confidence,
      warnings: [
        ...r.warnings,
        `The answer comes from the collection's catalogue of documents (${DOCUMENTS_NOTE}): ${found.sources ? found.sources.join(', ') : `${found.source}${who}`}.`,
      ],
    });
  }

  /** The best passage of one document for the question: among its retrieved chunks, else its first chunk. */
  private async documentPassage(question: string, source: string, kept: SearchHit[]) {
    const own = kept.filter((h) => h.source === source);
    const first = this.rag.chunk(source, 0);
    const evidence = own.length ? own : first ? [{ ...first, semantic_score: 0, bm25_score: 0, combined_score: 0, start: 0, end: first.text.length }] : [];
    return evidence.length ? this.extract(question, 'open', evidence) : null;
  }

  /** The cross-encoder's order; when it cannot be loaded (or fails), the hybrid order with a warning, not a failure. */
  private async rerank(query: string, hits: SearchHit[], topK: number, warnings: string[]): Promise<SearchHit[]> {
    try {
      return await this.rag.rerank(query, hits, topK);
    } catch (err) {
      // A model's own error text can name files and hosts: only the service's own (safe) messages are shown.
      warnings.push(`The passages were not reranked: ${err instanceof TextHttpError ? err.detail : 'the reranking model failed on this question'}`);
      return hits.slice(0, topK);
    }
  }

  /**
   * The extractive answer: the learned reader ranks the sentences of the best chunks; a factoid question gets the best
   * span (from READER_MODEL when set, else the learned span ranker) with its sentence as the passage, an open question
   * its best one or two sentences.
   */
  private async extract(
    question: string,
    type: AnswerType,
    kept: SearchHit[],
    /** Whether each window of text (a sentence with its neighbours) supports the question on its own: none, no answer. */
    windowSupport?: (windows: { text: string; source: string; parts: string[] }[]) => Promise<boolean[]>,
  ) {
    const { stemDf, docs } = this.corpusVocab();
    // Rare words say more about where the answer is: a smoothed inverse document frequency.
    const rarity = (stem: string) => Math.log(1 + docs / (1 + (stemDf.get(stem) ?? 0)));
    // The question's analysis (word vectors, the reader's models) is made where the reader runs: in a worker, the
    // event loop's thread does not load them at all.
    const analysed = async () => {
      const inline = await this.inlineReader();
      return { reader: inline.reader, question: inline.analyse(question, rarity) };
    };
    const hits = kept.slice(0, READER_CHUNKS);
    const topBm25 = Math.max(0, ...hits.map((h) => h.bm25_score));
    const candidates: (SentenceCandidate & { hit: SearchHit })[] = hits.flatMap((hit, chunkRank) => {
      const found = splitSentences(hit.text);
      // A chunk cut mid-sentence opens with a fragment ("of the forest reserves should...", or "Americans a chance to
      // choose..." after "...small businesses and uninsured"): read it whole. The previous chunk, which overlaps it,
      // says whether its first words start a sentence.
      if (found.length && hit.chunk_index > 0) {
        const previous = this.rag.chunk(hit.source, hit.chunk_index - 1);
        const whole = previous ? completeFragment(previous.text, found[0]!) : null;
        if (whole) found[0] = whole;
      }
      const chunkBm25 = topBm25 > 0 ? hit.bm25_score / topBm25 : 1;
      const title = titleStems(hit.source);
      return (found.length ? found : [hit.text]).map((text, position) => ({ text, chunkRank, chunkBm25, position, titleStems: title, hit }));
    });
    const warnings: string[] = [];
    if (windowSupport && candidates.length) {
      // The passages support the question only when some sentence and the two either side of it in the chunk hold the
      // question's key content together: a chunk that names France in one paragraph and a capital in another does not
      // answer "the capital of France". The reader then reads every sentence of those passages: it weighs a sentence's
      // nearness to the question's words itself, and reading only the windows' sentences lost it answers one sentence
      // further on (SQuAD F1 0.450 against 0.454, natural set 94 against 96 of 106).
      const windows = candidates.map((c, i) => {
        const parts = [candidates[i - 2], candidates[i - 1], c, candidates[i + 1], candidates[i + 2]].filter((n) => n && n.hit === c.hit).map((n) => n!.text);
        return { text: parts.join(' '), parts, source: c.hit.source };
      });
      const ok = await windowSupport(windows);
      if (!ok.some(Boolean)) return null;
    }
    const passageOf = (i: number, text: string) => ({ text, source: candidates[i]!.hit.source, chunk_index: candidates[i]!.hit.chunk_index });
    if (type === 'factoid' && this.settings.reader) {
      try {
        const reader = await this.settings.reader();
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
        if (found.answer) {
          let k = 0;
          while (k + 1 < starts.length && starts[k + 1]! <= found.start) k++;
          const i = best[k]!;
          return {
            answer: found.answer,
            passage: passageOf(i, candidates[i]!.text),
            answerType: 'factoid' as AnswerType,
            support: p[i]! * found.score,
            warnings,
          };
        }
      } catch (err) {
        warnings.push(`The question-answering model (READER_MODEL) could not be used (${(err as Error).message}); the learned reader answered.`);
      }
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
    // A span the reader doubts (its expected token F1 below spanDoubt) is not shown alone: its sentence is the answer.
    const doubtful = read.answerType === 'factoid' && read.spanScore !== null && read.spanScore < this.spanDoubt;
    if (doubtful)
      return { answer: read.sentence, passage: passageOf(read.candidate, read.sentence), answerType: 'sentence' as const, support: read.support, warnings };
    const answer = read.answerType === 'factoid' ? wholeNumber(read.answer, read.sentence) : read.answer;
    return { answer, passage: passageOf(read.candidate, read.sentence), answerType: read.answerType as ShownType, support: read.support, warnings };
  }

  /**
   * The learned reader's answer: in a worker when one is configured (a full queue is a 503 with Retry-After, as for
   * every heavy step), else here.
   */
  private async readSentences(
    question: string,
    analysed: () => Promise<{ reader: LearnedReader; question: ReturnType<typeof analyseQuestion> }>,
    candidates: (SentenceCandidate & { hit: SearchHit })[],
    rarity: (stem: string) => number,
  ): Promise<ReadResult | null> {
    if (this.settings.readInWorker) {
      const args: ReadArgs = {
        question,
        rarity: Object.fromEntries([...new Set(bm25Tokens(question))].map((s) => [s, rarity(s)])),
        candidates: candidates.map(({ text, chunkRank, chunkBm25, position, titleStems }) => ({
          text,
          chunkRank,
          chunkBm25,
          position,
          ...(titleStems ? { titleStems: [...titleStems] } : {}),
        })),
      };
      return this.settings.readInWorker(args);
    }
    const { reader, question: q } = await analysed();
    return reader.read(q, candidates);
  }

  private result(r: {
    original: string;
    rewritten: string;
    changes: Change[];
    entities: Entities;
    stats: Record<string, { chunks: number; sources: string[] }>;
    kept: SearchHit[];
    answer: string;
    passage: { text: string; source: string; chunk_index: number } | null;
    answerType: ShownType;
    llm: boolean;
    grounding: number | null;
    guardrails: Record<string, unknown>;
    confidence: ReturnType<typeof confidenceOf>;
    timings: Record<string, number>;
    warnings: string[];
  }) {
    return {
      answer: r.answer,
      answer_type: r.answerType,
      answer_passage: r.passage?.text ?? null,
      answer_source: r.passage ? { source: r.passage.source, chunk_index: r.passage.chunk_index } : null,
      confidence: r.confidence.level,
      confidence_score: r.confidence.score,
      confidence_factors: r.confidence.factors,
      confidence_explanation: r.confidence.explanation,
      grounding_score: r.grounding === null ? null : Math.round(r.grounding * 1e4) / 1e4,
      sources: [...new Set(r.kept.map((h) => h.source))],
      context: r.kept.map(({ text, source, chunk_index, start, end, semantic_score, bm25_score, combined_score, rerank_score }, i) => ({
        number: i + 1,
        text,
        source,
        chunk_index,
        start,
        end,
        semantic_score,
        bm25_score,
        combined_score,
        ...(rerank_score !== undefined ? { rerank_score } : {}),
      })),
      entities: r.entities,
      entity_statistics: r.stats,
      query: { original: r.original, rewritten: r.rewritten, changes: r.changes },
      guardrails: r.guardrails,
      warnings: r.warnings,
      llm_powered: r.llm,
      timings_ms: r.timings,
    };
  }
}

/** Abbreviations the rewriting expanded (expansion -> abbreviation), which passages may use either way. */
const expandedOf = (changes: Change[]) => Object.fromEntries(changes.filter((c) => c.kind === 'abbreviation').map((c) => [c.to, c.from]));

const mentions = (text: string, entity: string) => text.toLowerCase().includes(entity.toLowerCase());

export function entityStatistics(entities: string[], hits: SearchHit[]): Record<string, { chunks: number; sources: string[] }> {
  return Object.fromEntries(
    entities.map((e) => {
      const found = hits.filter((h) => mentions(h.text, e));
      return [e, { chunks: found.length, sources: [...new Set(found.map((h) => h.source))] }];
    }),
  );
}

/**
 * Share of the hits that mention one of the question's entities (1 when the question names none). A chunk of an
 * address "names" its speaker when the catalogue says who gave it (`authorOf`): Johnson's address says "I", not
 * "Lyndon Johnson".
 */
export function entityCoverage(entities: string[], hits: SearchHit[], authorOf: (source: string) => string | undefined = () => undefined): number {
  if (!entities.length) return 1;
  if (!hits.length) return 0;
  const naming = hits.filter((h) => {
    const author = authorOf(h.source);
    return entities.some((e) => mentions(h.text, e) || (author !== undefined && sameLastName(e, author)));
  });
  return naming.length / hits.length;
}
