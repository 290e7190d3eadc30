// Movie collection plugin: opens the database lazily (server start-up opens it eagerly), schedule, operator endpoints.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../infra/errors.js';
import { lazy } from '../infra/lazy.js';
import { ErrorSchema } from '../survival/schemas.js';
import { type ContextOptions, type MoviesContext, createMoviesContext, defaultRunParams } from './context.js';

declare module 'fastify' {
  interface FastifyInstance {
    movies: {
      /** The collection context, created once (a failed attempt is retried on the next call). */
      context(): Promise<MoviesContext>;
      /** Opens the database, runs migrations and starts the schedule when one is configured. */
      start(): Promise<void>;
    };
  }
}

const RunSchema = z.object({
  run_id: z.int(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  status: z.string().describe('running, succeeded, failed, skipped or abandoned'),
  trigger: z.string(),
  parameters: z.unknown(),
  stats: z.unknown(),
  errors: z.unknown(),
});

const QuotaSchema = z.object({ daily_limit: z.int(), left_today: z.int() });

const StatusSchema = z
  .object({
    database: z.enum(['postgres', 'pglite']),
    schedule: z.object({ cron: z.string().nullable(), next_run: z.string().nullable() }),
    last_run: RunSchema.nullable(),
    quota: z.object({ catalog: QuotaSchema, ratings: QuotaSchema }),
    movies: z.record(z.string(), z.int()).describe('counts per age category, frozen and total'),
  })
  .meta({ id: 'CollectionStatus' });

async function moviesPlugin(app: FastifyInstance, opts: { contextOptions?: ContextOptions }) {
  const context = lazy(() => createMoviesContext(app.config, app.log, opts.contextOptions));

  app.decorate('movies', {
    context,
    async start() {
      const ctx = await context();
      const expression = ctx.settings.schedule.cron.trim();
      if (expression) ctx.runner.schedule(expression, () => defaultRunParams());
    },
  });
  app.health.register('movies', () => {
    const error = context.error();
    return { ready: context.state() !== 'failed', state: context.state(), ...(error ? { error } : {}) };
  });
  app.addHook('onClose', async () => {
    await (await context.current()?.catch(() => null))?.close();
  });

  const ready = async () => {
    try {
      return await context();
    } catch (err) {
      throw new AppError(503, 'ServiceUnavailable', 'The collection database is not available', { exception: (err as Error).message });
    }
  };

  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    '/api/collection/runs',
    {
      schema: {
        tags: ['movies'],
        summary: 'Recent collection runs, newest first',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) }),
        response: { 200: z.object({ runs: z.array(RunSchema) }), 400: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (request) => ({ runs: await (await ready()).runner.runs(request.query.limit) }),
  );

  typed.get(
    '/api/collection/status',
    {
      schema: {
        tags: ['movies'],
        summary: 'Schedule, last run, quota left and movie counts per age category',
        response: { 200: StatusSchema, 503: ErrorSchema },
      },
    },
    async () => {
      const ctx = await ready();
      const [last] = await ctx.runner.runs(1);
      const next = ctx.runner.nextRun();
      return {
        database: ctx.db.kind,
        schedule: { cron: ctx.settings.schedule.cron.trim() || null, next_run: next ? next.toISOString() : null },
        last_run: last ?? null,
        quota: {
          catalog: { daily_limit: ctx.settings.catalog.daily_quota, left_today: await ctx.catalog.quotaLeft() },
          ratings: { daily_limit: ctx.settings.ratings.daily_quota, left_today: await ctx.ratings.quotaLeft() },
        },
        movies: await ctx.repo.categoryCounts(new Date()),
      };
    },
  );
}

export default fp(moviesPlugin, { name: 'movies', dependencies: ['health'] });
