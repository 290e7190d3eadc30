// The steps of one collection run (discover, plan, catalog, ratings, freeze) over one typed context; the orchestrator lists them.
import { ApiError } from './clients/http.js';
import { IMDB_ID } from './clients/ratings.js';
import type { CollectionStats, CollectorDeps, DiscoverOptions, Failure, FullCollectionOptions, PlanItem, Progress } from './orchestrator.js';
import type { MovieRow } from './repository.js';

/** What a run knows from its start: its dependencies, its options and the statistics each step adds to. */
export interface RunContext {
  readonly deps: CollectorDeps;
  readonly opts: FullCollectionOptions;
  readonly progress?: Progress;
  /** Stops the run between steps (service shutdown). */
  readonly signal?: AbortSignal;
  readonly stats: CollectionStats;
}

/** The refresh phase's context: the plan, the cycle's time, and what the catalog and ratings steps recorded per movie. */
export interface RefreshContext extends RunContext {
  readonly plan: PlanItem[];
  /** The time stamped on everything this cycle stores. */
  readonly now: Date;
  readonly allowedStatuses: Set<string>;
  /** Cancels the requests not yet sent: on a fault that is not one movie's API error, or when `signal` aborts. */
  readonly abort: AbortController;
  /** Movies that stored something this cycle, and whether any of it changed. */
  readonly changed: Map<number, boolean>;
  /** Movies whose cycle is incomplete (a step failed or was skipped) map to false. */
  readonly complete: Map<number, boolean>;
  /** Movies whose catalog status is not allowed: no ratings either. */
  readonly excluded: Set<number>;
  /** A daily quota ran out during this run: the step's remaining movies are skipped. */
  readonly quotaGone: Record<Failure['step'], boolean>;
}

/** A run's stats before it has done anything. */
export function emptyStats(): CollectionStats {
  return {
    discovered: 0,
    planned: 0,
    catalog_updated: 0,
    ratings_updated: 0,
    frozen: 0,
    failures: [],
    skipped: { no_imdb_id: 0, release_status: 0, ratings_quota: 0, ratings_cap: 0, catalog_quota: 0 },
  };
}

export function startRun(deps: CollectorDeps, opts: FullCollectionOptions, progress?: Progress, signal?: AbortSignal): RunContext {
  return { deps, opts, progress, signal, stats: emptyStats() };
}

export function throwIfInterrupted(run: RunContext): void {
  if (run.signal?.aborted) throw new Error('interrupted: the service is shutting down; the next run picks up where this one stopped');
}

/** Walks the discover pages into `seen` (the collector's discovery); a catalog API error stops discovery, not the run. */
export async function discoverStep(run: RunContext, discover: (opts: DiscoverOptions, seen: Set<number>, progress?: Progress) => Promise<void>): Promise<void> {
  const { opts, stats } = run;
  const seen = new Set<number>();
  try {
    await discover(
      {
        maxPages: opts.maxDiscoverPages ?? run.deps.settings.refresh.discover_max_pages,
        minReleaseYear: opts.discoverStartYear,
        maxReleaseYear: opts.discoverEndYear,
        ...(opts.discoverMinVoteCount !== undefined ? { minVoteCount: opts.discoverMinVoteCount } : {}),
      },
      seen,
      run.progress,
    );
  } catch (err) {
    // A catalog that fails to list new movies is no reason to leave the known ones stale.
    if (!(err instanceof ApiError)) throw err;
    stats.discovery_error = `${err.kind}: ${err.message}`;
    run.deps.log.warn({ kind: err.kind, stored: seen.size }, `discovery failed, refreshing the known movies: ${err.message}`);
  }
  stats.discovered = seen.size;
}

/** Records the plan and opens the refresh phase; the run's signal cancels its requests from here on. */
export function refreshPhase(run: RunContext, plan: PlanItem[], now: Date): RefreshContext {
  run.stats.planned = plan.length;
  const abort = new AbortController();
  run.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  return {
    ...run,
    plan,
    now,
    allowedStatuses: new Set(run.deps.settings.catalog.allowed_release_statuses),
    abort,
    changed: new Map(),
    complete: new Map(),
    excluded: new Set(),
    quotaGone: { catalog: false, ratings: false },
  };
}

/** Catalog details for every planned movie that needs them; a status outside the allowed ones excludes the movie. */
export async function catalogStep(run: RefreshContext): Promise<void> {
  const { deps, now } = run;
  await eachMovie(
    run,
    'catalog',
    run.plan.filter((p) => p.needsCatalog),
    async (movie) => {
      checkQuota(run, 'catalog');
      const details = await deps.catalog.details(movie.tmdb_id, run.abort.signal);
      if (details.status && !run.allowedStatuses.has(details.status)) {
        await deps.repo.markCatalogChecked(movie.tmdb_id, now);
        run.excluded.add(movie.tmdb_id);
        return skip(run, movie, 'release_status');
      }
      noteChange(run, movie, await deps.repo.storeCatalog(details, now));
      if (details.imdb_id) movie.imdb_id = details.imdb_id;
      run.stats.catalog_updated++;
    },
  );
}

/**
 * Ratings, for movies with a valid IMDb id (known from an earlier cycle when this cycle's catalog fetch failed), capped
 * per run and by the daily quota.
 */
export async function ratingsStep(run: RefreshContext): Promise<void> {
  const { deps, now } = run;
  let budget = deps.settings.ratings.max_movies;
  await eachMovie(
    run,
    'ratings',
    run.plan.filter((p) => p.needsRatings && !run.excluded.has(p.movie.tmdb_id)),
    async (movie) => {
      if (!movie.imdb_id || !IMDB_ID.test(movie.imdb_id)) {
        deps.log.warn({ tmdb_id: movie.tmdb_id, imdb_id: movie.imdb_id }, 'no valid IMDb id: ratings skipped');
        return skip(run, movie, 'no_imdb_id');
      }
      checkQuota(run, 'ratings');
      if (budget <= 0) return skip(run, movie, 'ratings_cap');
      budget--;
      noteChange(run, movie, await deps.repo.storeRatings(movie.tmdb_id, await deps.ratings.byImdbId(movie.imdb_id, run.abort.signal), now));
      run.stats.ratings_updated++;
    },
  );
}

/** Freeze check: every movie whose cycle stored something ends its cycle, and may freeze. */
export async function freezeStep(run: RefreshContext): Promise<void> {
  const { repo, settings } = run.deps;
  for (const { movie } of run.plan) {
    if (!run.changed.has(movie.tmdb_id)) continue;
    const frozen = await repo.finishCycle(
      movie.tmdb_id,
      run.changed.get(movie.tmdb_id)!,
      run.complete.get(movie.tmdb_id) !== false,
      run.now,
      settings.refresh.freeze_after_unchanged,
    );
    if (frozen && !movie.data_frozen) run.stats.frozen++;
  }
}

/** Runs one step for every movie concurrently (the client enforces rate and concurrency limits). */
async function eachMovie(run: RefreshContext, step: Failure['step'], items: PlanItem[], work: (movie: MovieRow) => Promise<void>): Promise<void> {
  let done = 0;
  await Promise.all(
    items.map(async ({ movie }) => {
      try {
        await work(movie);
      } catch (err) {
        if (!(err instanceof ApiError)) throw fatal(run, err);
        if (err.kind === 'quota') {
          run.quotaGone[step] = true;
          skip(run, movie, step === 'catalog' ? 'catalog_quota' : 'ratings_quota');
        } else if (err.kind !== 'aborted') fail(run, movie.tmdb_id, step, err);
      }
      try {
        run.progress?.(step, ++done, items.length);
      } catch (err) {
        throw fatal(run, err);
      }
    }),
  );
}

/** A fault that is not one movie's API error aborts the run: requests not yet sent are cancelled. */
function fatal(run: RefreshContext, err: unknown): unknown {
  if (!(err instanceof ApiError)) run.abort.abort();
  return err;
}

function fail(run: RefreshContext, tmdb_id: number, step: Failure['step'], err: unknown): void {
  const e = err instanceof ApiError ? err : new ApiError('invalid_response', (err as Error).message);
  run.stats.failures.push({ tmdb_id, step, kind: e.kind, message: e.message });
  run.deps.log.warn({ tmdb_id, step, kind: e.kind }, `${step} refresh failed: ${e.message}`);
  run.complete.set(tmdb_id, false);
}

function skip(run: RefreshContext, movie: MovieRow, reason: keyof CollectionStats['skipped']): void {
  run.stats.skipped[reason]++;
  run.complete.set(movie.tmdb_id, false);
}

function checkQuota(run: RefreshContext, step: Failure['step']): void {
  if (run.quotaGone[step]) throw new ApiError('quota', `${step} daily quota exhausted`);
}

function noteChange(run: RefreshContext, movie: MovieRow, changed: boolean): void {
  run.changed.set(movie.tmdb_id, (run.changed.get(movie.tmdb_id) ?? false) || changed);
}
