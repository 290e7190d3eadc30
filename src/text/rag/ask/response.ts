// The ask pipeline's response, as /rag/ask returns it: the answer with its passage and source, the confidence, what
// the retrieval kept, the question as rewritten, what each guardrail decided, warnings and timings.
import type { SearchHit } from '../service.js';
import { type ConfidenceOf, confidenceOf } from './confidence.js';
import type { AskContext } from './context.js';
import { sameLastName } from './lexical.js';
import type { PassageRef, ShownType } from './read-passages.js';

// Worded for every refusal: a threshold or a learned decision can refuse a question the documents do answer, so the
// answer says nothing was found, not that the documents lack it; the warning gives the reason.
export const NOT_FOUND = 'No answer to this question was found in the document collection.';
export const DOCUMENTS_NOTE = 'documents.json in the documents folder';

/** What the step that answers (or refuses) adds to what the context holds. */
export interface AnswerPart {
  answer: string;
  passage: PassageRef | null;
  answerType: ShownType;
  llm: boolean;
  grounding: number | null;
  confidence: ConfidenceOf;
  warnings: string[];
  /** The context's guardrails unless given. */
  guardrails?: Record<string, unknown>;
  /** The documents an answer about the collection names (a count, a list), when not those of the passages kept. */
  sources?: string[];
}

export function responseOf(ctx: AskContext, a: AnswerPart) {
  return {
    answer: a.answer,
    answer_type: a.answerType,
    answer_passage: a.passage?.text ?? null,
    answer_source: a.passage ? { source: a.passage.source, chunk_index: a.passage.chunk_index } : null,
    confidence: a.confidence.level,
    confidence_score: a.confidence.score,
    confidence_factors: a.confidence.factors,
    confidence_explanation: a.confidence.explanation,
    grounding_score: a.grounding === null ? null : Math.round(a.grounding * 1e4) / 1e4,
    sources: a.sources ?? [...new Set(ctx.kept.map((h) => h.source))],
    context: ctx.kept.map(({ text, source, chunk_index, start, end, semantic_score, bm25_score, combined_score, rerank_score }, i) => ({
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
    entities: ctx.entities,
    entity_statistics: ctx.stats,
    query: { original: ctx.original, rewritten: ctx.rewritten, changes: ctx.changes },
    guardrails: a.guardrails ?? ctx.guardrails,
    warnings: a.warnings,
    llm_powered: a.llm,
    timings_ms: ctx.timings,
  };
}

export type AskResponse = ReturnType<typeof responseOf>;

/**
 * "Not in the collection", with the reason as a warning after those of the steps before. No answer is rated: the
 * factors are those of no supporting passage, and the explanation says so rather than describe the passages retrieved
 * (in `context`) as none with similarity 0.
 */
export function notFound(ctx: AskContext, warning: string): AskResponse {
  const n = ctx.kept.length;
  const retrieved = n ? `${n} passage${n === 1 ? ' was' : 's were'} retrieved (context), and the warnings say why none answers it` : 'no passage was retrieved';
  return responseOf(ctx, {
    answer: NOT_FOUND,
    passage: null,
    answerType: ctx.tagged.answerType,
    llm: false,
    grounding: null,
    confidence: { ...confidenceOf([], 0), explanation: `No answer is shown, so none is rated: ${retrieved}.` },
    warnings: [...ctx.warnings, warning],
  });
}

const mentions = (text: string, entity: string) => text.toLowerCase().includes(entity.toLowerCase());

type AuthorOf = (source: string) => string | undefined;

/**
 * Whether a hit names an entity: its text mentions it, or the catalogue says the entity wrote its document (a speech
 * says "I", not the speaker's name).
 */
function names(hit: SearchHit, entity: string, authorOf: AuthorOf): boolean {
  const author = authorOf(hit.source);
  return mentions(hit.text, entity) || (author !== undefined && sameLastName(entity, author));
}

/** For each of the question's entities, the kept passages that name it (as `names` reads it) and their documents. */
export function entityStatistics(
  entities: string[],
  hits: SearchHit[],
  authorOf: AuthorOf = () => undefined,
): Record<string, { chunks: number; sources: string[] }> {
  return Object.fromEntries(
    entities.map((e) => {
      const found = hits.filter((h) => names(h, e, authorOf));
      return [e, { chunks: found.length, sources: [...new Set(found.map((h) => h.source))] }];
    }),
  );
}

/** Share of the hits that name one of the question's entities, as `names` reads it (1 when the question names none). */
export function entityCoverage(entities: string[], hits: SearchHit[], authorOf: AuthorOf = () => undefined): number {
  if (!entities.length) return 1;
  if (!hits.length) return 0;
  const naming = hits.filter((h) => entities.some((e) => names(h, e, authorOf)));
  return naming.length / hits.length;
}
