// The movie collection's operator endpoints: start a run and follow it, recent runs, status (schedule, last run, quota,
// counts, migrations), the refresh plan (a dry run) and unfreezing. The command line goes through these when a
// service holds the database.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, ErrorSchema } from '../infra/errors.js';
import type { Lazy } from '../infra/lazy.js';
import { guardOperatorRoutes } from '../infra/operator-access.js';
import { type MoviesContext, defaultRunParams, missingKeys } from './context.js';
import { collectionStatus, startRun, withProgress } from './control.js';
import { type FullCollectionOptions, summarisePlan } from './orchestrator.js';

const ProgressSchema = z.record(z.string(), z.object({ done: z.int(), total: z.int() })).describe('per phase, while the run is in progress');

const RunSchema = z
  .object({
    run_id: z.int(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    status: z.string().describe('running, succeeded, partial (discovery failed; known movies refreshed), failed, skipped or abandoned'),
    trigger: z.string(),
    parameters: z.unknown(),
    stats: z.unknown(),
    errors: z.unknown(),
    progress: ProgressSchema.optional(),
  })
  .meta({ id: 'CollectionRun' });

const QuotaSchema = z.object({ daily_limit: z.int(), left_today: z.int() });

const StatusSchema = z
  .object({
    database: z.enum(['postgres', 'pglite']),
    migrations: z.object({ applied: z.array(z.int()), available: z.array(z.int()) }),
    schedule: z.object({ cron: z.string().nullable(), next_run: z.string().nullable(), in_this_process: z.boolean() }),
    active_run: z.object({ run_id: z.int(), trigger: z.string(), progress: ProgressSchema }).nullable(),
    last_run: RunSchema.nullable(),
    quota: z.object({ catalog: QuotaSchema, ratings: QuotaSchema }),
    movies: z.record(z.string(), z.int()).describe('counts per age category, frozen and total'),
  })
  .meta({ id: 'CollectionStatus' });

const year = z.int().min(1870).max(2100);
export const RunRequestSchema = z
  .strictObject({
    start_year: year.optional().describe('first release year to discover (default: four years ago)'),
    end_year: year.optional().describe('last release year to discover (default: this year)'),
    refresh_only: z.boolean().default(false).describe('skip discovery, only refresh known movies'),
    refresh_limit: z.int().min(1).max(100_000).optional().describe('movies refreshed in this run'),
    include_frozen: z.boolean().default(false),
    max_pages: z.int().min(1).max(500).optional().describe('discover pages to walk'),
    min_vote_count: z.int().min(0).optional(),
  })
  .meta({ id: 'CollectionRunRequest' });

export type RunRequest = z.output<typeof RunRequestSchema>;

/** The orchestrator's options from a run request (shared with the command line's flags). */
export function runParams(body: RunRequest, now = new Date()): FullCollectionOptions {
  const defaults = defaultRunParams(now);
  return {
    discoverStartYear: body.start_year ?? defaults.discoverStartYear,
    discoverEndYear: body.end_year ?? defaults.discoverEndYear,
    refreshOnly: body.refresh_only,
    includeFrozen: body.include_frozen,
    ...(body.refresh_limit !== undefined ? { refreshLimit: body.refresh_limit } : {}),
    ...(body.max_pages !== undefined ? { maxDiscoverPages: body.max_pages } : {}),
    ...(body.min_vote_count !== undefined ? { discoverMinVoteCount: body.min_vote_count } : {}),
  };
}

/** Opens the collection, or answers 503 without the cause (the log and operators get it). */
type Ready = () => Promise<MoviesContext>;

const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 503: ErrorSchema };

/** A row id in a path: 1 to 2^31 - 1 (a PostgreSQL integer); anything else is told in words, not as "NaN". */
const ROW_ID_MESSAGE = 'must be a whole number from 1 to 2147483647';
const RowId = z.coerce
  .number({ error: ROW_ID_MESSAGE })
  .int({ error: ROW_ID_MESSAGE })
  .min(1, { error: ROW_ID_MESSAGE })
  .max(2 ** 31 - 1, { error: ROW_ID_MESSAGE });

export async function moviesRoutes(app: FastifyInstance, opts: { context: Lazy<MoviesContext> }) {
  await guardOperatorRoutes(app, app.config, (status, message) => ({
    error: status === 401 ? 'Unauthorized' : 'Forbidden',
    message,
    details: {},
  }));
  const ready = readyContext(opts.context);
  startRunRoute(app, ready);
  runsRoutes(app, ready);
  planRoute(app, ready);
  unfreezeRoute(app, ready);
  statusRoute(app, ready);
}

function readyContext(context: Lazy<MoviesContext>): Ready {
  return async () => {
    try {
      return await context();
    } catch (err) {
      throw new AppError(
        503,
        'ServiceUnavailable',
        'The collection database is not available',
        { exception: 'the collection could not be opened' },
        (err as Error).message,
      );
    }
  };
}

/** POST /api/collection/run: 202 as soon as the run is recorded. */
function startRunRoute(app: FastifyInstance, ready: Ready) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/collection/run',
    {
      schema: {
        tags: ['movies'],
        summary: 'Start a collection run now',
        description:
          'Answers 202 with the run id as soon as the run is recorded; follow it at `/api/collection/runs/{run_id}` (its `progress` ' +
          'shows each phase while it runs). 409 when a run is already in progress anywhere.',
        body: RunRequestSchema.nullish(),
        response: { 202: z.object({ run_id: z.int(), status: z.literal('running'), url: z.string() }), 409: ErrorSchema, ...errors },
      },
    },
    async (request, reply) => {
      const body = RunRequestSchema.parse(request.body ?? {});
      if (body.start_year !== undefined && body.end_year !== undefined && body.start_year > body.end_year) {
        throw new AppError(400, 'ValidationError', 'Invalid input data', {
          errors: [{ loc: ['start_year'], msg: 'must not be after end_year', type: 'too_big' }],
        });
      }
      const ctx = await ready();
      const outcome = await startRun(ctx, 'api', runParams(body), (err) => request.log.error({ err }, 'collection run failed to start'));
      if (!outcome.started && outcome.reason === 'missing_keys') {
        throw new AppError(503, 'ServiceUnavailable', `The collection cannot run: ${outcome.missing.join(' and ')} not set on the service`, {
          missing: outcome.missing,
        });
      }
      if (!outcome.started) throw new AppError(409, 'Conflict', 'A collection run is already in progress', outcome.run_id ? { run_id: outcome.run_id } : {});
      const started = outcome.run_id;
      return reply.code(202).send({ run_id: started, status: 'running' as const, url: `/api/collection/runs/${started}` });
    },
  );
}

/** GET /api/collection/runs and /api/collection/runs/{run_id}. */
function runsRoutes(app: FastifyInstance, ready: Ready) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    '/api/collection/runs',
    {
      schema: {
        tags: ['movies'],
        summary: 'Recent collection runs, newest first',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) }),
        response: { 200: z.object({ runs: z.array(RunSchema) }), ...errors },
      },
    },
    async (request) => {
      const ctx = await ready();
      return { runs: (await ctx.runner.runs(request.query.limit)).map((r) => withProgress(ctx, r)) };
    },
  );

  typed.get(
    '/api/collection/runs/:run_id',
    {
      schema: {
        tags: ['movies'],
        summary: 'One collection run, with its progress while it runs',
        params: z.object({ run_id: RowId }),
        response: { 200: RunSchema, 404: ErrorSchema, ...errors },
      },
    },
    async (request) => {
      const ctx = await ready();
      const run = await ctx.runner.findRun(request.params.run_id);
      if (!run) throw new AppError(404, 'NotFound', `No collection run ${request.params.run_id}`);
      return withProgress(ctx, run);
    },
  );
}

/** GET /api/collection/plan: the dry run. */
function planRoute(app: FastifyInstance, ready: Ready) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/collection/plan',
    {
      schema: {
        tags: ['movies'],
        summary: 'What the next refresh would fetch (a dry run: no network, no writes)',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100_000).optional(), include_frozen: z.stringbool().default(false) }),
        response: {
          200: z.object({
            movies: z.int(),
            catalog: z.int(),
            ratings: z.int(),
            first: z.array(z.object({ tmdb_id: z.int(), title: z.string(), category: z.string(), catalog: z.boolean(), ratings: z.boolean() })),
            missing_keys: z.array(z.string()).describe('API keys this service lacks, which a real run needs (the dry run needs none)'),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const ctx = await ready();
      const plan = summarisePlan(await ctx.collector.planRefresh(request.query.limit ?? ctx.settings.refresh.limit, request.query.include_frozen));
      return { ...plan, missing_keys: missingKeys(ctx.settings) };
    },
  );
}

/** POST /api/collection/movies/{tmdb_id}/unfreeze. */
function unfreezeRoute(app: FastifyInstance, ready: Ready) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/collection/movies/:tmdb_id/unfreeze',
    {
      schema: {
        tags: ['movies'],
        summary: 'Unfreeze a movie: it is refreshed again by age',
        params: z.object({ tmdb_id: RowId }),
        response: { 200: z.object({ tmdb_id: z.int(), unfrozen: z.literal(true) }), 404: ErrorSchema, ...errors },
      },
    },
    async (request) => {
      const ctx = await ready();
      if (!(await ctx.repo.unfreeze(request.params.tmdb_id))) throw new AppError(404, 'NotFound', `No movie with tmdb_id ${request.params.tmdb_id}`);
      return { tmdb_id: request.params.tmdb_id, unfrozen: true as const };
    },
  );
}

/** GET /api/collection/status. */
function statusRoute(app: FastifyInstance, ready: Ready) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/collection/status',
    {
      schema: {
        tags: ['movies'],
        summary: 'Schedule, run in progress, last run, quota left, movie counts per age category, migrations',
        response: { 200: StatusSchema, ...errors },
      },
    },
    async () => collectionStatus(await ready()),
  );
}
