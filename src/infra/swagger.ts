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
        description: 'Survival prediction with Shapley explanations, text analysis (sentiment, question answering) and a movie collection workflow.',
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
    transformObject: (input) => onlyReachedSchemas(jsonSchemaTransformObject(input) as OpenApiDocument) as ReturnType<typeof jsonSchemaTransformObject>,
    // Only JSON APIs belong in the document; HTML pages, static files and metrics do not.
    hideUntagged: true,
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: true,
    // The plugin's policy asks browsers to upgrade every request to HTTPS: a service reached over plain HTTP by any
    // name but localhost (Docker, a LAN address) then loads no script and shows a blank page. Behind HTTPS, the
    // page's relative URLs stay on HTTPS anyway.
    // Swagger UI sets style attributes from its scripts (its SVG icons, expanding sections): without inline styles
    // allowed, every page load logs a refused style in the console. Scripts stay same-origin only.
    transformStaticCSP: (header: string) =>
      header.replace(/\s*upgrade-insecure-requests;?/, '').replace(/style-src ([^;]*);/, (_, sources: string) => `style-src ${sources} 'unsafe-inline';`),
  });
  // Where many web frameworks put their API page: users try it first.
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/api/docs', 301));
}

type OpenApiDocument = { components?: { schemas?: Record<string, unknown> } } & Record<string, unknown>;

/**
 * The zod provider lists every named schema twice, as read from requests (`PassengerInput`) and as written in
 * responses (`Passenger`): Swagger UI then shows each model twice, although a schema only responses use is never read
 * from a request. Only the schemas that the operations reach (through their references) are kept.
 */
export function onlyReachedSchemas<T extends OpenApiDocument>(doc: T): T {
  const schemas = doc.components?.schemas;
  if (!schemas) return doc;
  const prefix = '#/components/schemas/';
  const reached = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object')
      for (const [key, v] of Object.entries(value)) {
        if (key === '$ref' && typeof v === 'string' && v.startsWith(prefix)) {
          const name = v.slice(prefix.length);
          if (!reached.has(name)) {
            reached.add(name);
            visit(schemas[name]);
          }
        } else visit(v);
      }
  };
  visit(doc.paths);
  return { ...doc, components: { ...doc.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name))) } };
}

export default fp(swaggerPlugin, { name: 'swagger' });
