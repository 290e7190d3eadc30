// Files under /static (the repository's static/ folder); the survival domain serves /static/images.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { fromRoot } from './paths.js';

async function staticPlugin(app: FastifyInstance) {
  // @fastify/static (through `send`) resolves every path inside its root and refuses `..` segments.
  await app.register(fastifyStatic, {
    root: fromRoot('static'),
    prefix: '/static/',
    index: false,
    dotfiles: 'deny',
    schemaHide: true,
  });
  // Browsers ask for /favicon.ico whatever the pages say: the same icon, so that no page load logs a 404.
  app.get('/favicon.ico', { schema: { hide: true } }, (_request, reply) => reply.header('cache-control', 'public, max-age=86400').sendFile('favicon.svg'));
}

export default fp(staticPlugin, { name: 'static-files' });
