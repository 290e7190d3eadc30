// The collection workflow: discover, plan refreshes by age, fetch catalog then ratings, freeze stable movies.
import type { FastifyBaseLogger } from 'fastify';
import { ageCategory, intervals, isDue } from './age.js';
import type { CatalogClient } from './clients/catalog.js';
import type { RatingsClient } from './clients/ratings.js';
import { catalogStep, discoverStep, freezeStep, ratingsStep, refreshPhase, startRun, throwIfInterrupted } from './collection-steps.js';
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

  /**
   * One collection cycle, as a list of steps over one context (src/movies/collection-steps.ts). `signal` stops the run
   * between steps (service shutdown): requests in flight are cancelled and it throws.
   */
  async runFullCollection(opts: FullCollectionOptions, progress?: Progress, signal?: AbortSignal): Promise<CollectionStats> {
    const run = startRun(this.deps, opts, progress, signal);
    if (!opts.refreshOnly) await discoverStep(run, (discoverOpts, seen, onPage) => this.discover(discoverOpts, seen, onPage));
    const plan = await this.planRefresh(opts.refreshLimit ?? this.deps.settings.refresh.limit, opts.includeFrozen ?? false);
    const refresh = refreshPhase(run, plan, this.now());
    throwIfInterrupted(run);
    await catalogStep(refresh);
    throwIfInterrupted(run);
    await ratingsStep(refresh);
    throwIfInterrupted(run);
    await freezeStep(refresh);
    return run.stats;
  }
}
