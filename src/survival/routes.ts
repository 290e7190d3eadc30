// Survival domain plugin: loads the model at start-up and serves /api/predict, /api/predict/batch and /predict.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../infra/errors.js';
import { fromRoot } from '../infra/paths.js';
import { ImageStore } from './explain/image-store.js';
import { Explainer } from './explain/explainer.js';
import { type CanvasModule, loadCanvas } from './plots/draw.js';
import { passengerFromKaggle, titleFromName } from './preprocess.js';
import {
  BatchRequestSchema,
  BatchResponseSchema,
  ErrorSchema,
  ExplainRequestSchema,
  ExplainResponseSchema,
  KagglePassengerSchema,
  KagglePredictionSchema,
  ModelInfoSchema,
  PredictRequestSchema,
  PredictResponseSchema,
} from './schemas.js';
import { SurvivalService } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    survival: SurvivalService;
    explainer: Explainer;
  }
}

export interface SurvivalOptions {
  imagesDir: string;
  /** Tests replace the canvas loader to prove the DependencyError path. */
  loadCanvas?: () => Promise<CanvasModule>;
}

const errors = { 400: ErrorSchema, 500: ErrorSchema };

async function survivalPlugin(app: FastifyInstance, opts: SurvivalOptions) {
  const service = new SurvivalService(fromRoot(app.config.MODEL_PATH), fromRoot(app.config.PREPROCESSOR_PATH), app.log);
  await service.load();
  const store = new ImageStore({
    dir: opts.imagesDir,
    maxCount: app.config.IMAGES_MAX_COUNT,
    maxAgeS: app.config.IMAGES_MAX_AGE_S,
    log: app.log,
  });
  await store.prune();
  const explainer = new Explainer(service, store, opts.loadCanvas ?? loadCanvas);
  app.decorate('survival', service);
  app.decorate('explainer', explainer);
  app.health.register('survival', () => ({ ...service.status() }));
  app.addHook('onClose', () => service.close());
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/api/predict') || request.url.startsWith('/predict')) {
      reply.header('x-model-version', service.version);
    }
    return payload;
  });

  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/api/predict',
    {
      schema: {
        tags: ['survival'],
        summary: 'Predict survival for one passenger',
        description: 'With `explain: true` the response also holds the Shapley values (no image is drawn).',
        body: PredictRequestSchema,
        response: { 200: PredictResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { explain, ...passenger } = request.body;
      const [result] = await service.predict([passenger]);
      return explain ? { ...result!, explanation: explainer.values(passenger) } : result!;
    },
  );

  typed.post(
    '/api/explain',
    {
      schema: {
        tags: ['survival'],
        summary: 'Explain one prediction with Shapley values and a plot',
        description:
          'Exact TreeSHAP values of the served trees in log-odds; `base_value + sum(shap_values) = raw_output`. ' +
          'The plot (waterfall, force or bar) is written as a PNG and served at `explanation_image_url`.',
        body: ExplainRequestSchema,
        response: { 200: ExplainResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { plot_type, ...passenger } = request.body;
      return explainer.explain(passenger, plot_type);
    },
  );

  typed.get(
    '/api/model',
    {
      schema: {
        tags: ['survival'],
        summary: 'The model card and global feature importance',
        response: { 200: ModelInfoSchema, 500: ErrorSchema },
      },
    },
    async () => modelInfo(service),
  );

  typed.get('/api/model/importance.png', { schema: { hide: true } }, async (_request, reply) => {
    const png = await explainer.importancePlot(modelInfo(service).global_importance);
    return reply.type('image/png').send(png);
  });

  typed.post(
    '/api/predict/batch',
    {
      schema: {
        tags: ['survival'],
        summary: 'Predict survival for up to 1,000 passengers',
        description: 'One result per passenger, in order. An invalid passenger gives 400 with its index in `loc`.',
        body: BatchRequestSchema,
        response: { 200: BatchResponseSchema, ...errors },
      },
    },
    async (request) => {
      const predictions = await service.predict(request.body.passengers);
      return { model_version: service.version, count: predictions.length, predictions };
    },
  );

  typed.post(
    '/predict',
    {
      schema: {
        tags: ['survival'],
        summary: 'Predict from a Kaggle-style passenger row',
        description:
          'Takes a row of the Kaggle Titanic CSV as it is (capitalised names; numbers may be strings; empty cells ' +
          'may be "" or null). The title comes from `Name`, `cabin_multiple` from `Cabin`; a missing `Age` is ' +
          'imputed by title and a missing `Embarked` by the most common port, as in training. `Fare` and `Ticket` ' +
          'are ignored: the model uses the fare inferred from class and family size, like /api/predict.',
        body: KagglePassengerSchema,
        response: { 200: KagglePredictionSchema, ...errors },
      },
    },
    async (request) => {
      const row = request.body;
      const params = service.preprocessor;
      const imputed = [
        ...(row.Age === null || row.Age === undefined ? ['Age'] : []),
        ...(row.Embarked === null || row.Embarked === undefined ? ['Embarked'] : []),
      ];
      // Without a preprocessor predict() answers the documented PredictionError.
      const passenger = params
        ? passengerFromKaggle(params, {
            Pclass: row.Pclass,
            Name: row.Name,
            Sex: row.Sex,
            Age: row.Age ?? null,
            SibSp: row.SibSp,
            Parch: row.Parch,
            Cabin: row.Cabin ?? null,
            Embarked: row.Embarked ?? null,
          })
        : null;
      const [result] = await service.predict(passenger ? [passenger] : []);
      return {
        ...result!,
        PassengerId: row.PassengerId ?? null,
        name_title: titleFromName(row.Name) ?? 'Mr',
        imputed,
      };
    },
  );
}

function modelInfo(service: SurvivalService) {
  const card = service.card;
  if (!card) throw new AppError(500, 'ModelError', 'No model card is loaded', { exception: service.status().error ?? 'missing model-card.json' });
  return {
    card,
    global_importance: (card.global_importance ?? {}) as Record<string, number>,
    importance_image_url: '/api/model/importance.png',
  };
}

export default fp(survivalPlugin, { name: 'survival', dependencies: ['health'] });
