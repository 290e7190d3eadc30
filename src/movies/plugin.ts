// Movie collection plugin: the collection context over the service's database (opened on first use; server start-up
// opens it eagerly), the schedule, /health and /ready, routes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DirLockedError } from '../infra/dir-lock.js';
import { lazy } from '../infra/lazy.js';
import { type ContextOptions, type MoviesContext, createMoviesContext, defaultRunParams, missingKeys } from './context.js';
import { CATEGORIES } from './age.js';
import { type StartOutcome, collectionStatus, startRun, withProgress } from './control.js';
import { moviesRoutes } from './routes.js';
import type { RunRecord, RunTrigger } from './runner.js';

declare module 'fastify' {
  interface FastifyInstance {
    movies: {
      /** The collection context, created once (a failed attempt is retried on the next call). */
      context(): Promise<MoviesContext>;
      /**
       * Opens the database (migrating it) and starts the schedule when one is configured. While another process holds
       * the embedded database (a collection run from the command line), it tries again every few seconds.
       */
      start(): Promise<void>;
      /** Status and the most recent runs, for the collection page. */
      overview(runs: number): Promise<{ status: Awaited<ReturnType<typeof collectionStatus>>; runs: RunRecord[]; categories: typeof CATEGORIES }>;
      /** Starts a run with the default parameters (the page's "Run now"). */
      runNow(trigger: RunTrigger): Promise<StartOutcome>;
      /** The API keys a run needs that are not set (a run cannot start without them). */
      missingKeys(): Promise<string[]>;
    };
  }
}

/** How often start() tries again while another process holds the embedded database. */
const RETRY_LOCKED_MS = 3000;

async function moviesPlugin(app: FastifyInstance, opts: { contextOptions?: ContextOptions }) {
  const context = lazy(async () => createMoviesContext(app.config, app.log, { ...opts.contextOptions, db: await app.db() }));
  let closing = false;
  let retry: NodeJS.Timeout | null = null;

  const start = async (): Promise<void> => {
    let ctx: MoviesContext;
    try {
      ctx = await context();
    } catch (err) {
      if (!(err instanceof DirLockedError) || closing) throw err;
      app.log.warn({ owner: err.owner }, `${err.message}: the collection is unavailable until it is released`);
      await new Promise<void>((resolve) => (retry = setTimeout(resolve, RETRY_LOCKED_MS)));
      return start();
    }
    const expression = ctx.settings.schedule.cron.trim();
    if (!expression) return;
    if (app.config.COLLECTION_SCHEDULER) ctx.runner.schedule(expression, () => defaultRunParams());
    else app.log.info({ cron: expression }, 'collection schedule left to another replica (COLLECTION_SCHEDULER=false)');
  };

  const overview = async (n: number) => {
    const ctx = await context();
    return { status: await collectionStatus(ctx), runs: (await ctx.runner.runs(n)).map((r) => withProgress(ctx, r)), categories: CATEGORIES };
  };
  const runNow = async (trigger: RunTrigger) =>
    startRun(await context(), trigger, defaultRunParams(), (err) => app.log.error({ err }, 'collection run failed to start'));
  app.decorate('movies', { context, start, overview, runNow, missingKeys: async () => missingKeys((await context()).settings) });
  app.health.register('movies', () => {
    const error = context.error();
    return { ready: context.state() !== 'failed', state: context.state(), ...(error ? { error } : {}) };
  });
  app.health.readiness('movies', () =>
    context.state() === 'ready' ? null : `collection database ${context.state()}${context.error() ? `: ${context.error()}` : ''}`,
  );
  app.addHook('onClose', async () => {
    closing = true;
    if (retry) clearTimeout(retry);
    await (await context.current()?.catch(() => null))?.close();
  });
  await app.register(moviesRoutes, { context });
}

export default fp(moviesPlugin, { name: 'movies', dependencies: ['health', 'database'] });
