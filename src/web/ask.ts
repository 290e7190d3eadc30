// The question page: ask the document collection, see the answer, its confidence and the cited passages.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { TextHttpError } from '../text/errors.js';

/** The passage with the answer's sentence marked; the template escapes each part. */
function highlight(text: string, passage: string | null): { before: string; mark: string; after: string } {
  const at = passage ? text.indexOf(passage) : -1;
  if (at < 0) return { before: text, mark: '', after: '' };
  return { before: text.slice(0, at), mark: passage!, after: text.slice(at + passage!.length) };
}

async function askPages(app: FastifyInstance) {
  app.pages.addLink({ href: '/ask', label: 'Ask' }, 'ask questions about the document collection and see the cited passages', () => [
    `Documents: ${app.config.DOCS_DIR}; embedder ${app.config.EMBEDDING_MODEL}; language model ${app.llm.available ? app.llm.model : 'not configured (extractive answers)'}.`,
  ]);

  app.get('/ask', { schema: { hide: true } }, (_request, reply) => reply.page('ask', 'Ask the documents', { question: '', error: null, result: null }));

  app.post('/ask', { schema: { hide: true }, config: { freeText: { fields: ['question'] } } }, async (request, reply) => {
    const raw = (request.body as Record<string, unknown> | undefined)?.question;
    const question = typeof raw === 'string' ? raw : '';
    try {
      const asker = await app.rag.ask();
      const result = await asker.ask(question, 5);
      const passages = result.context.map((c) => ({ ...c, parts: highlight(c.text, result.answer_passage) }));
      return reply.page('ask', 'Ask the documents: answer', { question, error: null, result, passages });
    } catch (err) {
      if (err instanceof TextHttpError && err.statusCode === 400) {
        reply.code(400);
        return reply.page('ask', 'Ask the documents', { question, error: typeof err.extra.reason === 'string' ? err.extra.reason : err.detail, result: null });
      }
      request.log.error({ err }, 'ask page failed');
      reply.code(503);
      return reply.page('ask', 'Ask the documents', {
        question,
        error: 'The document search is not available right now. Please try again shortly.',
        result: null,
      });
    }
  });
}

export default fp(askPages, { name: 'ask-pages', dependencies: ['pages', 'rag'] });
