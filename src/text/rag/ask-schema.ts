// The /rag/ask response as OpenAPI describes it: every field of the answer, its confidence, what retrieval kept, the
// question as searched, each guardrail's verdict, warnings and timings. Objects whose members vary with the path an
// answer took (the guardrails) keep any further member.
import { z } from 'zod';

/**
 * Warnings whose words are fixed, so that a client (the /ask page) can tell them apart without matching on wording:
 * the answer was extracted because no language model is configured, and the answer comes from the index's list of
 * documents.
 */
export const ASK_WARNINGS = {
  noLlm: 'No language model is configured (LLM_API_KEY is unset): the answer is a passage extracted from the documents, not a generated one.',
  fromIndex: 'The answer comes from the list of indexed documents, not from their text.',
} as const;

const Passed = z.looseObject({ passed: z.boolean().describe('whether the question went on past this check') });

const ContextPassage = z.object({
  number: z.int().describe('1-based position, as cited in an LLM answer ([1], [2])'),
  text: z.string(),
  source: z.string().describe('file path relative to DOCS_DIR'),
  chunk_index: z.int(),
  start: z.int().describe('character offset of the chunk in its file'),
  end: z.int(),
  semantic_score: z.number(),
  bm25_score: z.number(),
  combined_score: z.number(),
  rerank_score: z.number().optional().describe("the cross-encoder's relevance logit (only with RAG_RERANK)"),
});

const Guardrails = z
  .looseObject({
    input: Passed.optional().describe('guardrail 1: the question itself (length, instructions aimed at the model)'),
    relevance: Passed.optional().describe('guardrail 2: the passages kept by similarity or BM25 score (kept, dropped, thresholds)'),
    support: Passed.optional().describe("whether the kept passages mention the question's names, numbers and topic (missing, coverage)"),
    catalogue: Passed.optional().describe(
      'a question about the documents themselves, answered from documents.json (fact, source, missing), or about the whole collection (fact "collection": how many documents, which ones), answered from the index (documents)',
    ),
    answerability: Passed.optional().describe("the learned decision on the reader's answer (probability, threshold, level, features)"),
    grounding: z.looseObject({}).optional().describe('guardrail 3: the share of an LLM answer supported by the passages'),
  })
  .describe("each check's verdict; a check the question did not reach is absent");

export const AskResponseSchema = z
  .object({
    answer: z
      .string()
      .describe(
        'a short span for a factoid question, one or two sentences for an open one (extractive), the LLM answer, or for a question about a document (who gave it, when) its author or date from documents.json; when the documents cannot answer, a sentence that says so',
      ),
    answer_type: z
      .enum(['factoid', 'open', 'sentence'])
      .describe(
        'the kind of answer: factoid (a short span: who, when, where, how many, which X...), open (sentences: why, how, what did X say about Y...), or sentence (a factoid question answered with the whole sentence the reader judged most likely to answer it, because no short span of it was clearly right)',
      ),
    answer_passage: z
      .string()
      .nullable()
      .describe(
        'the sentence(s) of the documents the extractive answer comes from (for a factoid, the sentence holding the span, with the next one when the reader finds that one likely to go on with it); null for LLM answers and for "not in the collection"',
      ),
    answer_source: z.object({ source: z.string(), chunk_index: z.int() }).nullable().describe('the document and chunk of answer_passage'),
    confidence: z.enum(['high', 'medium', 'low']),
    confidence_score: z.number().describe('0 to 1; its levels are calibrated so that high answers are right more often than medium ones'),
    confidence_factors: z
      .object({
        retrieval_quality: z.number(),
        consistency: z.number(),
        coverage: z.number(),
        entity_coverage: z.number(),
        answer_support: z.number().optional().describe("the reader's support for an extractive answer"),
      })
      .describe('the factors the score is made of, each 0 to 1'),
    confidence_explanation: z
      .string()
      .describe('the factors in one line of words; for a refusal, that no answer is rated, and how many passages were retrieved'),
    grounding_score: z
      .number()
      .nullable()
      .describe('share of the LLM answer supported by the passages; null for extractive answers, copied from the passages by construction'),
    sources: z.array(z.string()).describe('the documents of the passages kept; for an answer about the collection (a count, a list), the documents it names'),
    context: z.array(ContextPassage).describe('the passages kept after the relevance check, best first'),
    entities: z
      .object({
        people: z.array(z.string()),
        places: z.array(z.string()),
        organizations: z.array(z.string()),
        dates: z.array(z.string()),
        numbers: z.array(z.string()),
      })
      .describe('what the question names'),
    entity_statistics: z
      .record(z.string(), z.object({ chunks: z.int(), sources: z.array(z.string()) }))
      .describe(
        'for each named entity, how many kept passages name it (mention it, or come from a document the catalogue says it wrote), and in which documents',
      ),
    query: z.object({
      original: z.string(),
      rewritten: z.string().describe('the question as searched: abbreviations expanded (RAG_ABBREVIATIONS), typos fixed'),
      changes: z.array(z.object({ from: z.string(), to: z.string(), kind: z.enum(['abbreviation', 'typo', 'llm']) })),
    }),
    guardrails: Guardrails,
    warnings: z.array(z.string()).describe('why an answer is missing or weaker (a refusal says why here)'),
    llm_powered: z.boolean(),
    timings_ms: z.record(z.string(), z.number()).describe('milliseconds spent in each step'),
  })
  .meta({ id: 'AskResponse' });
