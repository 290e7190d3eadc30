// Survival domain plugin: loads the model at start-up and serves /api/predict, /api/predict/batch and /predict.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { fromRoot } from '../infra/paths.js';
import { passengerFromKaggle, titleFromName } from './preprocess.js';
import {
  BatchRequestSchema,
  BatchResponseSchema,
  ErrorSchema,
  KagglePassengerSchema,
  KagglePredictionSchema,
  PassengerSchema,
  PredictionSchema,
} from './schemas.js';
import { SurvivalService } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    survival: SurvivalService;
  }
}

const errors = { 400: ErrorSchema, 500: ErrorSchema };

async function survivalPlugin(app: FastifyInstance) {
  const service = new SurvivalService(fromRoot(app.config.MODEL_PATH), fromRoot(app.config.PREPROCESSOR_PATH), app.log);
  await service.load();
  app.decorate('survival', service);
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
        body: PassengerSchema,
        response: { 200: PredictionSchema, ...errors },
      },
    },
    async (request) => (await service.predict([request.body]))[0]!,
  );

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

export default fp(survivalPlugin, { name: 'survival', dependencies: ['health'] });
