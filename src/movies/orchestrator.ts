// The collection workflow: discover, plan refreshes by age, fetch catalog then ratings, freeze stable movies.
import type { FastifyBaseLogger } from 'fastify';
import { ageCategory, intervals, isDue } from './age.js';
import type { CatalogClient } from './clients/catalog.js';
import { ApiError } from './clients/http.js';
import { IMDB_ID, type RatingsClient } from './clients/ratings.js';
import type { DiscoveredMovie, MovieRepository, MovieRow } from './repository.js';
import type { CollectionSettings } from './settings.js';

export interface DiscoverOptions {
  maxMovies?: number | null;
  maxPages: number;
  minPopularity?: number;
  minVoteCount?: number;
  minReleaseYear?: number;
  maxReleaseYear?: number;
}

export interface FullCollectionOptions {
  discoverStartYear: number;
  discoverEndYear: number;
  discoverMinVoteCount?: number;
  maxDiscoverPages?: number;
  refreshLimit?: number;
  includeFrozen?: boolean;
  refreshOnly?: boolean;
}

export interface Failure {
  tmdb_id: number;
  step: 'catalog' | 'ratings';
  kind: string;
  message: string;
}

export interface CollectionStats {
  discovered: number;
  /** Why discovery stopped early (after its retries); the movies already known were still refreshed. */
  discovery_error?: string;
  planned: number;
  catalog_updated: number;
  ratings_updated: number;
  frozen: number;
  failures: Failure[];
  skipped: { no_imdb_id: number; release_status: number; ratings_quota: number; ratings_cap: number; catalog_quota: number };
}

export interface PlanItem {
  movie: MovieRow;
  category: string;
  needsCatalog: boolean;
  needsRatings: boolean;
}

/** A refresh plan as the dry run shows it: counts, and its first `shown` movies. */
export interface PlanSummary {
  movies: number;
  catalog: number;
  ratings: number;
  first: { tmdb_id: number; title: string; category: string; catalog: boolean; ratings: boolean }[];
}

export function summarisePlan(plan: PlanItem[], shown = 50): PlanSummary {
  return {
    movies: plan.length,
    catalog: plan.filter((p) => p.needsCatalog).length,
    ratings: plan.filter((p) => p.needsRatings).length,
    first: plan
      .slice(0, shown)
      .map((p) => ({ tmdb_id: p.movie.tmdb_id, title: p.movie.title, category: p.category, catalog: p.needsCatalog, ratings: p.needsRatings })),
  };
}

export type Progress = (phase: string, done: number, total: number) => void;

export interface CollectorDeps {
  repo: MovieRepository;
  catalog: CatalogClient;
  ratings: RatingsClient;
  settings: CollectionSettings;
  log: FastifyBaseLogger;
  now?: () => Date;
}

export class Collector {
  constructor(private readonly deps: CollectorDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Walks discover pages (most popular first) and upserts on tmdb_id; returns the movies seen. */
  async discoverAndStoreMovies(opts: DiscoverOptions, progress?: Progress): Promise<number> {
    const seen = new Set<number>();
    await this.discover(opts, seen, progress);
    return seen.size;
  }

  /** Discovery into `seen`, which keeps what was stored when a later page fails. */
  private async discover(opts: DiscoverOptions, seen: Set<number>, progress?: Progress): Promise<void> {
    const s = this.deps.settings.catalog;
    const max = opts.maxMovies === undefined ? s.max_movies : opts.maxMovies;
    for (let page = 1; page <= opts.maxPages; page++) {
      const res = await this.deps.catalog.discover({
        page,
        minPopularity: opts.minPopularity ?? s.min_popularity,
        minVoteCount: opts.minVoteCount ?? s.min_vote_count,
        minReleaseYear: opts.minReleaseYear ?? s.min_release_year,
        ...(opts.maxReleaseYear ? { maxReleaseYear: opts.maxReleaseYear } : {}),
      });
      let batch: DiscoveredMovie[] = res.results.map((m) => ({ tmdb_id: m.id, title: m.title, release_date: m.release_date ?? null }));
      batch = batch.filter((m) => !seen.has(m.tmdb_id));
      if (max !== null && max !== undefined) batch = batch.slice(0, Math.max(0, max - seen.size));
      // Each page is stored as it arrives, so a failure later loses nothing already fetched.
      await this.deps.repo.upsertDiscovered(batch);
      for (const m of batch) seen.add(m.tmdb_id);
      progress?.('discover', page, Math.min(opts.maxPages, res.total_pages));
      if (page >= res.total_pages || (max !== null && max !== undefined && seen.size >= max)) break;
    }
  }

  /** Movies due for catalog or ratings data, never-fetched first, then the most overdue. */
  async planRefresh(limit: number, includeFrozen: boolean): Promise<PlanItem[]> {
    const now = this.now();
    const items: (PlanItem & { overdue: number })[] = [];
    for (const movie of await this.deps.repo.candidates(includeFrozen)) {
      const category = ageCategory(movie.release_date, now);
      const { catalogDays, ratingsDays } = intervals(category);
      const needsCatalog = isDue(movie.last_catalog_update, catalogDays, now);
      const needsRatings = isDue(movie.last_ratings_update, ratingsDays, now);
      if (!needsCatalog && !needsRatings) continue;
      const age = (d: Date | null) => (d ? now.getTime() - d.getTime() : Infinity);
      items.push({ movie, category, needsCatalog, needsRatings, overdue: Math.max(age(movie.last_catalog_update), age(movie.last_ratings_update)) });
    }
    items.sort((a, b) => b.overdue - a.overdue || a.movie.movie_id - b.movie.movie_id);
    return items.slice(0, limit).map(({ overdue: _overdue, ...item }) => item);
  }

  /** `signal` stops the run between steps (service shutdown): requests in flight are cancelled and it throws. */
  async runFullCollection(opts: FullCollectionOptions, progress?: Progress, signal?: AbortSignal): Promise<CollectionStats> {
    const interrupted = () => {
      if (signal?.aborted) throw new Error('interrupted: the service is shutting down; the next run picks up where this one stopped');
    };
    const { settings, repo, log } = this.deps;
    const stats: CollectionStats = {
      discovered: 0,
      planned: 0,
      catalog_updated: 0,
      ratings_updated: 0,
      frozen: 0,
      failures: [],
      skipped: { no_imdb_id: 0, release_status: 0, ratings_quota: 0, ratings_cap: 0, catalog_quota: 0 },
    };
    if (!opts.refreshOnly) {
      const seen = new Set<number>();
      try {
        await this.discover(
          {
            maxPages: opts.maxDiscoverPages ?? settings.refresh.discover_max_pages,
            minReleaseYear: opts.discoverStartYear,
            maxReleaseYear: opts.discoverEndYear,
            ...(opts.discoverMinVoteCount !== undefined ? { minVoteCount: opts.discoverMinVoteCount } : {}),
          },
          seen,
          progress,
        );
      } catch (err) {
        // A catalog that fails to list new movies is no reason to leave the known ones stale.
        if (!(err instanceof ApiError)) throw err;
        stats.discovery_error = `${err.kind}: ${err.message}`;
        log.warn({ kind: err.kind, stored: seen.size }, `discovery failed, refreshing the known movies: ${err.message}`);
      }
      stats.discovered = seen.size;
    }
    const plan = await this.planRefresh(opts.refreshLimit ?? settings.refresh.limit, opts.includeFrozen ?? false);
    stats.planned = plan.length;
    const changed = new Map<number, boolean>();
    const complete = new Map<number, boolean>();
    const now = this.now();
    const allowed = new Set(settings.catalog.allowed_release_statuses);
    // A fault that is not one movie's API error aborts the run: requests not yet sent are cancelled.
    const abort = new AbortController();
    signal?.addEventListener('abort', () => abort.abort(), { once: true });
    interrupted();
    const fatal = (err: unknown) => {
      if (!(err instanceof ApiError)) abort.abort();
      return err;
    };
    const fail = (tmdb_id: number, step: Failure['step'], err: unknown) => {
      const e = err instanceof ApiError ? err : new ApiError('invalid_response', (err as Error).message);
      stats.failures.push({ tmdb_id, step, kind: e.kind, message: e.message });
      log.warn({ tmdb_id, step, kind: e.kind }, `${step} refresh failed: ${e.message}`);
      complete.set(tmdb_id, false);
    };

    const quotaGone = { catalog: false, ratings: false };
    /** Movies whose catalog status is not allowed: no ratings either. */
    const excluded = new Set<number>();
    const skip = (movie: MovieRow, reason: keyof CollectionStats['skipped']) => {
      stats.skipped[reason]++;
      complete.set(movie.tmdb_id, false);
    };
    const checkQuota = (step: Failure['step']) => {
      if (quotaGone[step]) throw new ApiError('quota', `${step} daily quota exhausted`);
    };
    const noteChange = (movie: MovieRow, c: boolean) => changed.set(movie.tmdb_id, (changed.get(movie.tmdb_id) ?? false) || c);
    /** Runs one step for every movie concurrently (the client enforces rate and concurrency limits). */
    const eachMovie = async (step: Failure['step'], items: PlanItem[], work: (movie: MovieRow) => Promise<void>) => {
      let done = 0;
      await Promise.all(
        items.map(async ({ movie }) => {
          try {
            await work(movie);
          } catch (err) {
            if (!(err instanceof ApiError)) throw fatal(err);
            if (err.kind === 'quota') {
              quotaGone[step] = true;
              skip(movie, step === 'catalog' ? 'catalog_quota' : 'ratings_quota');
            } else if (err.kind !== 'aborted') fail(movie.tmdb_id, step, err);
          }
          try {
            progress?.(step, ++done, items.length);
          } catch (err) {
            throw fatal(err);
          }
        }),
      );
    };

    await eachMovie(
      'catalog',
      plan.filter((p) => p.needsCatalog),
      async (movie) => {
        checkQuota('catalog');
        const details = await this.deps.catalog.details(movie.tmdb_id, abort.signal);
        if (details.status && !allowed.has(details.status)) {
          await repo.markCatalogChecked(movie.tmdb_id, now);
          excluded.add(movie.tmdb_id);
          return skip(movie, 'release_status');
        }
        noteChange(movie, await repo.storeCatalog(details, now));
        if (details.imdb_id) movie.imdb_id = details.imdb_id;
        stats.catalog_updated++;
      },
    );

    interrupted();
    // Ratings, for movies with a valid IMDb id (known from an earlier cycle when this cycle's catalog fetch failed),
    // capped per run and by the daily quota.
    let budget = settings.ratings.max_movies;
    await eachMovie(
      'ratings',
      plan.filter((p) => p.needsRatings && !excluded.has(p.movie.tmdb_id)),
      async (movie) => {
        if (!movie.imdb_id || !IMDB_ID.test(movie.imdb_id)) {
          log.warn({ tmdb_id: movie.tmdb_id, imdb_id: movie.imdb_id }, 'no valid IMDb id: ratings skipped');
          return skip(movie, 'no_imdb_id');
        }
        checkQuota('ratings');
        if (budget <= 0) return skip(movie, 'ratings_cap');
        budget--;
        noteChange(movie, await repo.storeRatings(movie.tmdb_id, await this.deps.ratings.byImdbId(movie.imdb_id, abort.signal), now));
        stats.ratings_updated++;
      },
    );

    interrupted();
    // Freeze check: every movie whose cycle stored something.
    for (const { movie } of plan) {
      if (!changed.has(movie.tmdb_id)) continue;
      const frozen = await repo.finishCycle(
        movie.tmdb_id,
        changed.get(movie.tmdb_id)!,
        complete.get(movie.tmdb_id) !== false,
        now,
        settings.refresh.freeze_after_unchanged,
      );
      if (frozen && !movie.data_frozen) stats.frozen++;
    }
    return stats;
  }
}
