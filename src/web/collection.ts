// The movie collection page (GET /collection): recent runs with their figures and errors, today's quota, movies per age
// category, the next scheduled run, and a chart of each run drawn on the server. Operators get a "Run now" button,
// under the same rule as the operator API: with ADMIN_TOKEN the form asks for it, without it only local clients may.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { crossSiteReason, isLocalRequest, operatorMode } from '../infra/operator-access.js';
import { type RunPoint, runChartSvg } from './run-chart.js';

const RUNS_SHOWN = 20;

interface RunView {
  run_id: number;
  started_at: string;
  finished_at: string | null;
  status: string;
  trigger: string;
  discovered: number;
  refreshed: number;
  ratings: number;
  frozen: number;
  failures: number;
  error: string | null;
}

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A run's figures from its stored statistics (missing ones count as 0: a run that failed early has few). */
function runView(r: {
  run_id: number;
  started_at: string;
  finished_at: string | null;
  status: string;
  trigger: string;
  stats: unknown;
  errors: unknown;
}): RunView {
  const s = (r.stats ?? {}) as Record<string, unknown>;
  const errors = Array.isArray(r.errors) ? (r.errors as unknown[]) : [];
  const firstError = errors.length ? errors[0] : (s.discovery_error ?? null);
  return {
    run_id: r.run_id,
    started_at: r.started_at,
    finished_at: r.finished_at,
    status: r.status,
    trigger: r.trigger,
    discovered: count(s.discovered),
    refreshed: count(s.catalog_updated),
    ratings: count(s.ratings_updated),
    frozen: count(s.frozen),
    failures: Array.isArray(s.failures) ? s.failures.length : 0,
    error: firstError === null ? null : typeof firstError === 'string' ? firstError : JSON.stringify(firstError).slice(0, 300),
  };
}

/** Constant-time comparison of a typed token with ADMIN_TOKEN (hashes first, so lengths do not leak either). */
function tokenMatches(given: string, token: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

async function collectionPages(app: FastifyInstance) {
  const token = app.config.ADMIN_TOKEN;
  app.pages.addLink({ href: '/collection', label: 'Collection' }, 'the movie collection: recent runs, quota, movies per age category', async () => {
    const { status } = await app.movies.overview(1);
    const last = status.last_run;
    const next = status.schedule.next_run ? `next run ${status.schedule.next_run.slice(0, 16).replace('T', ' ')} UTC` : 'no schedule in this process';
    if (!last) return [`${status.movies.total} movies; no run yet; ${next}.`];
    const found = count((last.stats as Record<string, unknown> | null)?.discovered);
    return [`${status.movies.total} movies. Last run ${last.started_at.slice(0, 16).replace('T', ' ')} UTC: ${last.status}, ${found} discovered; ${next}.`];
  });

  /** How this visitor may start a run: by typing the token, directly (a local client without a token set), or not. */
  const mode = operatorMode(app.config);
  const operator = (request: FastifyRequest) => (mode === 'token' ? 'token' : mode === 'local' && isLocalRequest(request) ? 'local' : 'denied');

  const render = async (request: FastifyRequest, reply: FastifyReply, message: { kind: 'ok' | 'error'; text: string } | null) => {
    let data: Awaited<ReturnType<typeof app.movies.overview>> | null = null;
    let missingKeys: string[] = [];
    try {
      data = await app.movies.overview(RUNS_SHOWN);
      missingKeys = await app.movies.missingKeys();
    } catch (err) {
      request.log.warn({ err }, 'collection page: the collection is unavailable');
    }
    const runs = (data?.runs ?? []).map(runView);
    const points: RunPoint[] = [...runs].reverse().map((r) => ({ run_id: r.run_id, discovered: r.discovered, refreshed: r.refreshed, frozen: r.frozen }));
    return reply.page('collection', 'Movie collection', {
      status: data?.status ?? null,
      categories: (data?.categories ?? []).map((c, i, all) => ({
        name: c.name,
        days: Number.isFinite(c.maxDays) ? `${i ? all[i - 1]!.maxDays + 1 : 0} to ${c.maxDays} days old` : `over ${all[i - 1]?.maxDays ?? 0} days old`,
        refresh: `catalogue every ${c.catalogDays} days, ratings every ${c.ratingsDays} days`,
      })),
      runs,
      chart: runChartSvg(points),
      operator: operator(request),
      // A run needs both API keys: without them the button is not offered, and the page says what to set.
      missingKeys,
      message,
    });
  };

  app.get('/collection', { schema: { hide: true } }, async (request, reply) => {
    const raw = (request.query as Record<string, unknown>).started;
    const started = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? raw : null;
    return render(request, reply, started ? { kind: 'ok', text: `Run ${started} started. Reload the page to follow it.` } : null);
  });

  app.post('/collection/run', { schema: { hide: true }, config: { acceptsForm: true } }, async (request, reply) => {
    const given = (request.body as Record<string, unknown> | undefined)?.token;
    const access = operator(request);
    const crossSite = crossSiteReason(request, { formAllowed: true }) !== null;
    if (crossSite || access === 'denied' || (access === 'token' && !(typeof given === 'string' && tokenMatches(given, token!)))) {
      reply.code(403);
      const text = crossSite
        ? 'A run can only be started from this page of the service: no run was started.'
        : access === 'token'
          ? 'That operator token is not right: no run was started.'
          : 'Only operators can start a run: set ADMIN_TOKEN on the service to allow it from other machines.';
      return render(request, reply, { kind: 'error', text });
    }
    let outcome;
    try {
      outcome = await app.movies.runNow('page');
    } catch (err) {
      request.log.error({ err }, 'collection page: run not started');
      reply.code(503);
      return render(request, reply, { kind: 'error', text: 'The collection database is not available right now: no run was started.' });
    }
    if (outcome.started) return reply.redirect(`/collection?started=${outcome.run_id}`, 303);
    if (outcome.reason === 'missing_keys') {
      reply.code(503);
      return render(request, reply, { kind: 'error', text: `The collection cannot run: ${outcome.missing.join(' and ')} not set on the service.` });
    }
    reply.code(409);
    return render(request, reply, { kind: 'error', text: `A collection run is already in progress${outcome.run_id ? ` (run ${outcome.run_id})` : ''}.` });
  });
}

export default fp(collectionPages, { name: 'collection-pages', dependencies: ['pages', 'movies'] });
