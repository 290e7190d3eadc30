// HTML pages that share one layout: the landing page and the browser 404 page.
import { join } from 'node:path';
import view from '@fastify/view';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Eta } from 'eta';
import { PROJECT_ROOT, SERVICE_VERSION } from '../infra/paths.js';

export interface NavLink {
  href: string;
  label: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    pages: { addLink(link: NavLink, description: string, facts?: () => string[]): void };
  }
  interface FastifyReply {
    page(template: string, title: string, data?: Record<string, unknown>): FastifyReply;
  }
}

const VIEWS = join(PROJECT_ROOT, 'src', 'web', 'views');

async function pagesPlugin(app: FastifyInstance) {
  // autoEscape is Eta's default: `<%= %>` escapes, only `<%~ %>` (used for the rendered body) does not.
  const eta = new Eta({ views: VIEWS, autoEscape: true, cache: true });
  await app.register(view, { engine: { eta }, root: VIEWS, viewExt: 'eta', layout: 'layout' });

  const domains: { link: NavLink; description: string; facts: () => string[] }[] = [];
  app.decorate('pages', {
    addLink(link: NavLink, description: string, facts: () => string[] = () => []) {
      domains.push({ link, description, facts });
    },
  });
  app.decorateReply('page', function (this: FastifyReply, template: string, title: string, data = {}) {
    this.type('text/html; charset=utf-8');
    return this.view(template, { title, version: SERVICE_VERSION, nav: domains.map((d) => d.link), ...data });
  });

  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply.page('index', 'Home', {
      domains: domains.map((d) => ({ ...d, facts: d.facts() })),
      health: await app.health.components(),
    }),
  );
}

export const renderNotFound = (request: { url: string }, reply: FastifyReply) => reply.page('not-found', 'Page not found', { path: request.url.split('?')[0] });

export default fp(pagesPlugin, { name: 'pages', dependencies: ['health'] });
