// The survival routes: /api/predict, /api/predict/batch, /predict (Kaggle rows), /api/explain and the model card.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { AppError, ErrorSchema } from '../infra/errors.js';
import type { Explainer } from './explain/explainer.js';
import { passengerFromKaggle, titleFromName } from './preprocess.js';
import {
  BatchRequestSchema,
  BatchResponseSchema,
  ExplainRequestSchema,
  ExplainResponseSchema,
  KagglePassengerSchema,
  KagglePredictionSchema,
  ModelInfoSchema,
  PredictRequestSchema,
  PredictResponseSchema,
} from './schemas.js';
import type { SurvivalService } from './service.js';

const errors = { 400: ErrorSchema, 500: ErrorSchema };

type KagglePassenger = z.output<typeof KagglePassengerSchema>;

interface SurvivalDeps {
  service: SurvivalService;
  explainer: Explainer;
}

export async function survivalRoutes(app: FastifyInstance, opts: SurvivalDeps) {
  const { service } = opts;
  // Registered in this encapsulated scope, the header goes on survival responses only.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-model-version', service.version);
    return payload;
  });
  predictRoute(app, opts);
  explainRoute(app, opts);
  modelRoutes(app, opts);
  batchRoute(app, opts);
  kaggleRoute(app, opts);
}

/** POST /api/predict: one passenger, with Shapley values on request. */
function predictRoute(app: FastifyInstance, { service, explainer }: SurvivalDeps) {
  app.withTypeProvider<ZodTypeProvider>().post(
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
}

/** POST /api/explain: Shapley values and a plot. */
function explainRoute(app: FastifyInstance, { explainer }: SurvivalDeps) {
  app.withTypeProvider<ZodTypeProvider>().post(
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
}

/** GET /api/model (the model card) and its importance plot. */
function modelRoutes(app: FastifyInstance, { service, explainer }: SurvivalDeps) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
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
}

/** POST /api/predict/batch. */
function batchRoute(app: FastifyInstance, { service }: SurvivalDeps) {
  app.withTypeProvider<ZodTypeProvider>().post(
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
}

/** POST /predict: a Kaggle CSV row as it is. */
function kaggleRoute(app: FastifyInstance, { service }: SurvivalDeps) {
  app.withTypeProvider<ZodTypeProvider>().post(
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
    async (request) => kagglePrediction(service, request.body),
  );
}

async function kagglePrediction(service: SurvivalService, row: KagglePassenger) {
  const params = service.preprocessor;
  const imputed = [...(row.Age === null || row.Age === undefined ? ['Age'] : []), ...(row.Embarked === null || row.Embarked === undefined ? ['Embarked'] : [])];
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
    name_title: titleFromName(row.Name) ?? result!.name_title,
    imputed: [...imputed, ...result!.imputed],
  };
}

function modelInfo(service: SurvivalService) {
  const card = service.card;
  if (!card) {
    const internal = service.cardError ?? service.status().error ?? 'missing model-card.json';
    throw new AppError(500, 'ModelError', 'No model card is loaded', { exception: 'the model card could not be read' }, internal);
  }
  return {
    card,
    global_importance: (card.global_importance ?? {}) as Record<string, number>,
    importance_image_url: '/api/model/importance.png',
  };
}
