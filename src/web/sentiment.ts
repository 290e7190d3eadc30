// The sentiment page: a text box, and the result with bars for the scores and the emotions.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { TextHttpError } from '../text/errors.js';
import { shownModel } from '../text/hub.js';
import { figuresInWords, sentimentEveryday, sentimentFigures, sentimentReading, sentimentWeakSpots } from '../text/figures.js';

async function sentimentPages(app: FastifyInstance) {
  // What the page says the model misreads, from the stored measurement (read once).
  const weakSpots = sentimentWeakSpots(app.config);
  const measured = sentimentReading(app.config);
  const reading = measured && { ...measured, everyday: sentimentEveryday(app.config) };
  const models = `${shownModel(app.config.SENTIMENT_MODEL)} and ${shownModel(app.config.EMOTION_MODEL)}`;
  app.pages.addLink(
    { href: '/sentiment', label: 'Sentiment' },
    'sentiment (financial news and everyday text) and seven emotions of any text, with an interpretation',
    () => {
      const state = { idle: 'they load on first use', loading: 'loading now', ready: 'loaded', failed: 'they failed to load: see /health' }[
        app.sentiment.loader.state
      ];
      return [`Models: ${models} (${state}).`, ...sentimentFigures(app.config).map((group) => `${figuresInWords(group)}.`)];
    },
  );

  app.get('/sentiment', { schema: { hide: true } }, (_request, reply) =>
    reply.page('sentiment', 'Sentiment analysis', { text: '', error: null, result: null, weakSpots, reading }),
  );

  app.post('/sentiment', { schema: { hide: true }, config: { acceptsForm: true, freeText: { fields: ['text'] } } }, async (request, reply) => {
    const raw = (request.body as Record<string, unknown> | undefined)?.text;
    const text = typeof raw === 'string' ? raw : '';
    const fail = (code: number, error: string) => {
      reply.code(code);
      return reply.page('sentiment', 'Sentiment analysis', { text, error, result: null, weakSpots, reading });
    };
    if (!text.trim()) return fail(400, 'Please enter some text to analyse.');
    if (text.length > app.config.SENTIMENT_MAX_CHARS) return fail(413, `The text is too long: at most ${app.config.SENTIMENT_MAX_CHARS} characters.`);
    try {
      const result = await app.sentiment.analyze(text);
      return reply.page('sentiment', 'Sentiment analysis: result', { text, error: null, result, weakSpots, reading });
    } catch (err) {
      if (err instanceof TextHttpError && err.statusCode === 503) return fail(503, 'The models are still loading. Please try again in a moment.');
      // Only control characters or broken characters: nothing to read.
      if (err instanceof TextHttpError && err.statusCode === 400) return fail(400, 'Please enter some text to analyse.');
      request.log.error({ err }, 'sentiment page failed');
      return fail(500, 'The analysis failed. Please try again.');
    }
  });
}

export default fp(sentimentPages, { name: 'sentiment-pages', dependencies: ['pages', 'text'] });
