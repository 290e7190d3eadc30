// HTML pages that share one layout: the landing page and the browser 404 page.
import { join } from 'node:path';
import view from '@fastify/view';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Eta } from 'eta';
import { shownUrlPath } from '../infra/errors.js';
import { PROJECT_ROOT, SERVICE_VERSION } from '../infra/paths.js';

export interface NavLink {
  href: string;
  label: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    pages: { addLink(link: NavLink, description: string, facts?: () => string[] | Promise<string[]>): void };
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

  const domains: { link: NavLink; description: string; facts: () => string[] | Promise<string[]> }[] = [];
  app.decorate('pages', {
    addLink(link: NavLink, description: string, facts: () => string[] | Promise<string[]> = () => []) {
      domains.push({ link, description, facts });
    },
  });
  app.decorateReply('page', function (this: FastifyReply, template: string, title: string, data = {}) {
    this.type('text/html; charset=utf-8');
    return this.view(template, { title, version: SERVICE_VERSION, nav: domains.map((d) => d.link), ...data });
  });

  app.get('/', { schema: { hide: true } }, async (request, reply) =>
    reply.page('index', 'Home', {
      // A domain whose facts cannot be read says so instead of taking the page down.
      domains: await Promise.all(
        domains.map(async (d) => ({ ...d, facts: await Promise.resolve(d.facts()).catch(() => ['Its figures are unavailable right now.']) })),
      ),
      // What /health shows this client: a failure's cause for operators only.
      health: Object.entries(await app.health.componentsFor(request)).map(([name, c]) => ({
        name,
        ready: c.ready,
        words: stateInWords(name, c as Record<string, unknown>),
      })),
    }),
  );
}

/** A component's state in words for the landing page ("loads on first use", not "idle"). */
export function stateInWords(name: string, c: Record<string, unknown>): string {
  if (c.ready === false) return `not available${typeof c.error === 'string' ? `: ${c.error}` : ''}`;
  if (name === 'llm')
    return c.configured ? `${String(c.provider)} ${String(c.model)}` : 'not configured: answers and interpretations are written without a language model';
  if (name === 'workers') return `${String(c.threads)} of ${String(c.max_threads)} worker threads running, ${String(c.queued)} tasks waiting`;
  if (name === 'survival') return c.model_loaded ? `model ${String(c.model_version)} loaded` : 'model not loaded';
  switch (c.state) {
    case 'idle':
      return 'ready; loads on first use';
    case 'loading':
      return 'loading';
    case 'failed':
      return 'failed to load: see /health';
    default:
      return 'ready';
  }
}

export const renderNotFound = (request: { url: string }, reply: FastifyReply) => reply.page('not-found', 'Page not found', { path: shownUrlPath(request.url) });

export default fp(pagesPlugin, { name: 'pages', dependencies: ['health'] });
