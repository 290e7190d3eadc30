// POST /analyze/sentiment, with the text spec's error bodies ({detail}) instead of the service-wide shape.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TextHttpError, textErrorHandler } from '../errors.js';
import { EMOTIONS, SENTIMENTS, type SentimentService } from './service.js';

const DetailSchema = z.object({ detail: z.string() }).catchall(z.unknown()).meta({ id: 'TextError' });

const scoresOf = (keys: readonly string[]) => z.object(Object.fromEntries(keys.map((k) => [k, z.number().min(0).max(1)])));

export const SentimentResponseSchema = z
  .object({
    sentiment: z.enum(SENTIMENTS),
    confidence: z.number().min(0).max(1).describe('probability of the dominant sentiment'),
    scores: scoresOf(SENTIMENTS).describe('mean over chunks of each sentiment probability'),
    emotions: scoresOf(EMOTIONS).describe('mean over chunks of each emotion probability'),
    contextual_sentiment: z.string().describe('two to three sentences: from the LLM, or built from the scores'),
    num_chunks: z.int().describe('chunks of at most 510 tokens analysed'),
    chunks: z
      .array(z.object({ sentiment: z.enum(SENTIMENTS), confidence: z.number().min(0).max(1) }))
      .describe("each chunk's sentiment and its probability, in text order"),
    llm_powered: z.boolean().describe('true only when the LLM text was used'),
    models: z.object({ sentiment: z.string(), emotion: z.string() }),
    llm: z
      .union([
        z.object({ provider: z.string(), model: z.string() }),
        z.object({
          fallback_reason: z
            .enum(['no_key', 'timeout', 'error', 'blocked', 'truncated', 'model_rejected'])
            .describe('why the interpretation was built from the scores; truncated: the answer was empty or cut by the output budget'),
          detail: z.string(),
        }),
      ])
      .optional(),
    warnings: z.array(z.string()).describe('what limits the reading, such as a text whose words the model mostly does not know; empty when nothing does'),
  })
  .meta({ id: 'SentimentResult' });

/** What the request log keeps of a result (the interpretation may quote the text). */
const sentimentSummary = (r: unknown) => {
  const { sentiment, confidence, num_chunks, llm_powered } = (r ?? {}) as Record<string, unknown>;
  return { sentiment, confidence, num_chunks, llm_powered };
};

export async function sentimentRoutes(app: FastifyInstance, opts: { service: SentimentService; maxChars: number }) {
  // Encapsulated: these routes answer errors as {detail}, the text service's documented shape.
  app.setErrorHandler(textErrorHandler('Analysis failed'));

  app.withTypeProvider<ZodTypeProvider>().post(
    '/analyze/sentiment',
    {
      config: { freeText: { fields: ['text'], summary: sentimentSummary } },
      schema: {
        tags: ['text'],
        summary: 'Sentiment, seven emotions and an interpretation of a text of any length',
        description:
          'The text is split into chunks of at most 510 tokens (at sentence ends where possible); every chunk is ' +
          'classified and the probabilities are the unweighted mean over chunks. An empty or whitespace-only text, or ' +
          'one of only control, zero-width or formatting characters, gets 400 `{detail: "Invalid input format", reason: "text is empty"}`; a text over the size limit gets 413.',
        body: z.strictObject({ text: z.string().describe('the text to analyse').meta({ example: 'I love this movie, it was absolutely wonderful!' }) }),
        response: { 200: SentimentResponseSchema, 400: DetailSchema, 413: DetailSchema, 415: DetailSchema, 500: DetailSchema, 503: DetailSchema },
      },
    },
    async (request) => {
      const { text } = request.body;
      if (!text.trim()) throw new TextHttpError(400, 'Invalid input format', { reason: 'text is empty' });
      if (text.length > opts.maxChars) throw new TextHttpError(413, `Text too long: at most ${opts.maxChars} characters`);
      return opts.service.analyze(text);
    },
  );
}
