// The question page: ask the document collection, see the answer, its confidence and the cited passages.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { fromRoot, shownPath } from '../infra/paths.js';
import { TextHttpError } from '../text/errors.js';
import { shownModel } from '../text/hub.js';
import { ASK_WARNINGS } from '../text/rag/ask-schema.js';
import { figuresInWords, questionAnsweringFigures } from '../text/figures.js';

/**
 * The passage with the answer's sentences marked; the template escapes each part. The sentences are found whatever
 * the spacing between their words: an answer joins two sentences with a space where the passage may break the line
 * (a sentence and the command it announces).
 */
export function highlight(text: string, passage: string | null): { before: string; mark: string; after: string } {
  const words = passage?.trim().split(/\s+/).filter(Boolean) ?? [];
  const found = words.length ? new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+')).exec(text) : null;
  if (!found) return { before: text, mark: '', after: '' };
  return { before: text.slice(0, found.index), mark: found[0], after: text.slice(found.index + found[0].length) };
}

/**
 * Whether a passage opens in the middle of a sentence: a part after a document's first (parts are cut by size) that
 * starts with a word in lower case, a closing bracket or punctuation ("pattern): Stability: 1", "string. Received").
 * The page shows such a passage after an ellipsis.
 */
export function opensMidSentence(text: string, chunkIndex: number): boolean {
  return chunkIndex > 0 && /^[\p{Ll}\p{Pe},.;:!?]/u.test(text);
}

/** What the collection holds, in words: how many documents, their names, and the years their file names start with. */
export function collectionSummary(sources: { source: string; chunks: number }[]) {
  const years = sources.map((s) => /^(\d{4})(?!\d)/.exec(basename(s.source))?.[1]).filter((y): y is string => y !== undefined);
  const names = sources.map((s) => s.source);
  return {
    documents: sources.length,
    names,
    years: years.length === sources.length && years.length ? { from: years.sort()[0]!, to: years.at(-1)! } : null,
  };
}

/** DOCS_DIR/examples.json: `{ "questions": [...] }`, at most three shown; none when absent or unreadable. */
function exampleQuestions(docsDir: string): string[] {
  try {
    const parsed = JSON.parse(readFileSync(join(fromRoot(docsDir), 'examples.json'), 'utf8')) as { questions?: unknown };
    return Array.isArray(parsed.questions) ? parsed.questions.filter((q): q is string => typeof q === 'string' && q.length <= 300).slice(0, 3) : [];
  } catch {
    return [];
  }
}

/** The confidence's factors in plain words for the page (the API's `confidence_explanation` names them as factors). */
function confidenceInWords(factors: Record<string, number>, passages: number): string {
  const parts = [
    `${passages} passage${passages === 1 ? '' : 's'} used, matching the question's meaning at ${factors.retrieval_quality!.toFixed(2)} on average (0 to 1)`,
    `${Math.round(factors.entity_coverage! * 100)}% of them naming what the question names`,
  ];
  // The reader's score, or for an answer a FAQ gives to its own question the two questions' overlap.
  if (factors.answer_support !== undefined) parts.push(`how well the passage supports this answer: ${Math.round(factors.answer_support * 100)} of 100`);
  return `${parts.join('; ')}.`;
}

async function askPages(app: FastifyInstance) {
  const examples = exampleQuestions(app.config.DOCS_DIR);
  /** The collection as the page describes it; null while the index is not available. */
  const indexed = async () => {
    try {
      const rag = await app.rag.service();
      return collectionSummary((await rag.stats()).sources);
    } catch {
      return null;
    }
  };
  // The configuration does not change while the service runs: the folder and the model are named once.
  const documents = `Documents: ${shownPath(app.config.DOCS_DIR)}; embedder ${shownModel(app.config.EMBEDDING_MODEL)}`;
  app.pages.addLink({ href: '/ask', label: 'Ask' }, 'ask questions about the document collection and see the cited passages', () => [
    `${documents}; language model ${app.llm.available ? app.llm.model : 'not configured (extractive answers)'}.`,
    ...questionAnsweringFigures(app.config).map((figure) => `${figuresInWords([figure])}.`),
  ]);

  const answer = async (request: FastifyRequest, reply: FastifyReply, question: string) => {
    const common = { question, examples, collection: await indexed() };
    try {
      const asker = await app.rag.ask();
      const result = await asker.ask(question, 5);
      const passages = result.context.map((c) => ({
        ...c,
        by: app.rag.describe(c.source),
        parts: highlight(c.text, result.answer_passage),
        cut: opensMidSentence(c.text, c.chunk_index),
      }));
      // The hint under the answer says where it comes from (no language model, the list of indexed documents); the
      // API's warning would repeat it.
      const fromIndex = (result.guardrails.catalogue as { fact?: string } | undefined)?.fact === 'collection';
      const warnings = result.warnings.filter((w) => !(!app.llm.available && w === ASK_WARNINGS.noLlm) && !(fromIndex && w === ASK_WARNINGS.fromIndex));
      return reply.page('ask', 'Ask the documents: answer', {
        ...common,
        error: null,
        result,
        passages,
        warnings,
        llmConfigured: app.llm.available,
        confidenceWords: fromIndex
          ? 'the documents are counted and named from the index, not read from a passage.'
          : confidenceInWords(result.confidence_factors as unknown as Record<string, number>, result.context.length),
      });
    } catch (err) {
      if (err instanceof TextHttpError && err.statusCode === 400) {
        reply.code(400);
        // The guardrail's reason is a clause ("the question is empty"); the page shows it as a sentence.
        const reason = typeof err.extra.reason === 'string' ? err.extra.reason : err.detail;
        return reply.page('ask', 'Ask the documents', {
          ...common,
          error: `${reason.charAt(0).toUpperCase()}${reason.slice(1).replace(/\.?$/, '.')}`,
          result: null,
        });
      }
      request.log.error({ err }, 'ask page failed');
      reply.code(503);
      return reply.page('ask', 'Ask the documents', {
        ...common,
        error: 'The document search is not available right now. Please try again shortly.',
        result: null,
      });
    }
  };

  // GET /ask?question=... answers too, so that an example question is a plain link.
  app.get('/ask', { schema: { hide: true }, config: { freeText: { fields: [] } } }, async (request, reply) => {
    const q = (request.query as Record<string, unknown>).question;
    if (typeof q === 'string' && q.trim()) return answer(request, reply, q);
    return reply.page('ask', 'Ask the documents', { question: '', examples, collection: await indexed(), error: null, result: null });
  });

  app.post('/ask', { schema: { hide: true }, config: { acceptsForm: true, freeText: { fields: ['question'] } } }, async (request, reply) => {
    const raw = (request.body as Record<string, unknown> | undefined)?.question;
    return answer(request, reply, typeof raw === 'string' ? raw : '');
  });
}

export default fp(askPages, { name: 'ask-pages', dependencies: ['pages', 'rag'] });
