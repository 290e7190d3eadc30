// OpenAPI 3.0 document generated from the zod route schemas; Swagger UI at /api/docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SERVICE_VERSION } from './paths.js';

async function swaggerPlugin(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Survival, text analysis and movie collection service',
        description:
          'Survival prediction with Shapley explanations, text analysis (sentiment, question answering) and a movie collection workflow.',
        version: SERVICE_VERSION,
      },
      tags: [
        { name: 'health', description: 'Liveness and readiness' },
        { name: 'survival', description: 'Survival prediction' },
        { name: 'text', description: 'Text analysis: sentiment' },
        { name: 'rag', description: 'Document search over DOCS_DIR' },
        { name: 'movies', description: 'Movie collection (operators)' },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
    // Only JSON APIs belong in the document; HTML pages, static files and metrics do not.
    hideUntagged: true,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
}

export default fp(swaggerPlugin, { name: 'swagger' });
