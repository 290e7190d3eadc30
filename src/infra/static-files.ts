// Files under /static (the repository's static/ folder) and generated images under /static/images.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { fromRoot } from './paths.js';

export interface StaticOptions {
  imagesDir: string;
}

async function staticPlugin(app: FastifyInstance, opts: StaticOptions) {
  // @fastify/static (through `send`) resolves every path inside its root and refuses `..` segments,
  // so no request reaches a file outside these two folders.
  await app.register(fastifyStatic, {
    root: fromRoot('static'),
    prefix: '/static/',
    index: false,
    dotfiles: 'deny',
    schemaHide: true,
  });
  await app.register(fastifyStatic, {
    root: opts.imagesDir,
    prefix: '/static/images/',
    decorateReply: false,
    index: false,
    dotfiles: 'deny',
    schemaHide: true,
    immutable: true,
    maxAge: '1d',
  });
}

export default fp(staticPlugin, { name: 'static-files' });
