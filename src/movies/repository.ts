// SQL of the movie collection: idempotent upserts, each movie's data and bookkeeping in one transaction.
import type { Db, Queryable } from '../infra/db.js';
import { CATEGORY_SQL, utcDate } from './age.js';
import { type CatalogVolatile, type RatingsVolatile, catalogChanged, catalogVolatile, ratingsChanged, ratingsVolatile, textOrNull } from './changes.js';
import type { CatalogDetails } from './clients/catalog.js';
import type { RatingsData } from './clients/ratings.js';

export interface DiscoveredMovie {
  tmdb_id: number;
  title: string;
  release_date: string | null;
}

export interface MovieRow {
  movie_id: number;
  tmdb_id: number;
  imdb_id: string | null;
  title: string;
  release_date: string | null;
  last_catalog_update: Date | null;
  last_ratings_update: Date | null;
  data_frozen: boolean;
  unchanged_refreshes: number;
}

const validDate = (s: string | null | undefined) => (s && /^\d{4}-\d{2}-\d{2}$/.test(s) ? s : null);

export class MovieRepository {
  constructor(readonly db: Db) {}

  /** Inserts or updates by tmdb_id in one statement; returns how many rows were new or changed. */
  async upsertDiscovered(movies: DiscoveredMovie[], q: Queryable = this.db): Promise<number> {
    if (movies.length === 0) return 0;
    const { rows } = await q.query<{ n: string }>(
      `WITH input AS (
         SELECT DISTINCT ON (tmdb_id) tmdb_id, title, release_date
         FROM unnest($1::int[], $2::text[], $3::date[]) AS t(tmdb_id, title, release_date)
       ), up AS (
         INSERT INTO movies (tmdb_id, title, release_date)
         SELECT tmdb_id, title, release_date FROM input
         ON CONFLICT (tmdb_id) DO UPDATE
           SET title = EXCLUDED.title, release_date = EXCLUDED.release_date, updated_at = now()
           WHERE movies.title IS DISTINCT FROM EXCLUDED.title OR movies.release_date IS DISTINCT FROM EXCLUDED.release_date
         RETURNING 1
       ) SELECT count(*)::text AS n FROM up`,
      [movies.map((m) => m.tmdb_id), movies.map((m) => m.title), movies.map((m) => validDate(m.release_date))],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async candidates(includeFrozen: boolean): Promise<MovieRow[]> {
    const { rows } = await this.db.query<MovieRow>(
      `SELECT movie_id, tmdb_id, imdb_id, title, to_char(release_date, 'YYYY-MM-DD') AS release_date,
              last_catalog_update, last_ratings_update, data_frozen, unchanged_refreshes
       FROM movies WHERE $1 OR NOT data_frozen ORDER BY movie_id`,
      [includeFrozen],
    );
    return rows.map((r) => ({
      ...r,
      last_catalog_update: r.last_catalog_update ? new Date(r.last_catalog_update) : null,
      last_ratings_update: r.last_ratings_update ? new Date(r.last_ratings_update) : null,
    }));
  }

  async get(tmdbId: number): Promise<MovieRow | null> {
    const { rows } = await this.db.query<MovieRow>(
      `SELECT movie_id, tmdb_id, imdb_id, title, to_char(release_date, 'YYYY-MM-DD') AS release_date,
              last_catalog_update, last_ratings_update, data_frozen, unchanged_refreshes
       FROM movies WHERE tmdb_id = $1`,
      [tmdbId],
    );
    return rows[0] ?? null;
  }

  /** Stores details; a change resets the unchanged counter and thaws a frozen movie. Returns whether it changed. */
  async storeCatalog(d: CatalogDetails, now: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<CatalogVolatile>(
        'SELECT budget::float8 AS budget, revenue::float8 AS revenue, runtime, vote_count, vote_average, status FROM catalog_movies WHERE tmdb_id = $1 FOR UPDATE',
        [d.id],
      );
      const next = catalogVolatile(d);
      const changed = catalogChanged(rows[0] ?? null, next);
      await tx.query(
        `INSERT INTO catalog_movies (tmdb_id, imdb_id, title, original_title, overview, tagline, status, release_date,
           budget, revenue, runtime, vote_average, vote_count, popularity, genres, production_companies, raw, fetched_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18)
         ON CONFLICT (tmdb_id) DO UPDATE SET imdb_id = EXCLUDED.imdb_id, title = EXCLUDED.title,
           original_title = EXCLUDED.original_title, overview = EXCLUDED.overview, tagline = EXCLUDED.tagline,
           status = EXCLUDED.status, release_date = EXCLUDED.release_date, budget = EXCLUDED.budget,
           revenue = EXCLUDED.revenue, runtime = EXCLUDED.runtime, vote_average = EXCLUDED.vote_average,
           vote_count = EXCLUDED.vote_count, popularity = EXCLUDED.popularity, genres = EXCLUDED.genres,
           production_companies = EXCLUDED.production_companies, raw = EXCLUDED.raw, fetched_at = EXCLUDED.fetched_at`,
        [
          d.id,
          textOrNull(d.imdb_id),
          d.title,
          textOrNull(d.original_title),
          textOrNull(d.overview),
          textOrNull(d.tagline),
          next.status,
          validDate(d.release_date),
          next.budget,
          next.revenue,
          next.runtime,
          next.vote_average,
          next.vote_count,
          d.popularity ?? null,
          (d.genres ?? []).map((g) => g.name),
          (d.production_companies ?? []).map((c) => c.name),
          JSON.stringify(d),
          now,
        ],
      );
      await tx.query(
        `UPDATE movies SET imdb_id = COALESCE($2, imdb_id), last_catalog_update = $3, updated_at = now(),
           release_date = COALESCE($4::date, release_date),
           unchanged_refreshes = CASE WHEN $5 THEN 0 ELSE unchanged_refreshes END,
           data_frozen = CASE WHEN $5 THEN FALSE ELSE data_frozen END
         WHERE tmdb_id = $1`,
        [d.id, textOrNull(d.imdb_id), now, validDate(d.release_date), changed],
      );
      return changed;
    });
  }

  /** Marks a catalog check whose details were filtered out (release status), so it waits for its interval. */
  async markCatalogChecked(tmdbId: number, now: Date): Promise<void> {
    await this.db.query('UPDATE movies SET last_catalog_update = $2, updated_at = now() WHERE tmdb_id = $1', [tmdbId, now]);
  }

  async storeRatings(tmdbId: number, r: RatingsData, now: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<RatingsVolatile>(
        `SELECT imdb_rating, imdb_votes, rotten_tomatoes, metacritic, box_office_usd::float8 AS box_office_usd, awards
         FROM ratings_movies WHERE imdb_id = $1 FOR UPDATE`,
        [r.imdbID],
      );
      const next = ratingsVolatile(r);
      const changed = ratingsChanged(rows[0] ?? null, next);
      await tx.query(
        `INSERT INTO ratings_movies (imdb_id, title, imdb_rating, imdb_votes, rotten_tomatoes, metacritic, awards,
           box_office_usd, director, actors, rated, raw, fetched_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)
         ON CONFLICT (imdb_id) DO UPDATE SET title = EXCLUDED.title, imdb_rating = EXCLUDED.imdb_rating,
           imdb_votes = EXCLUDED.imdb_votes, rotten_tomatoes = EXCLUDED.rotten_tomatoes, metacritic = EXCLUDED.metacritic,
           awards = EXCLUDED.awards, box_office_usd = EXCLUDED.box_office_usd, director = EXCLUDED.director,
           actors = EXCLUDED.actors, rated = EXCLUDED.rated, raw = EXCLUDED.raw, fetched_at = EXCLUDED.fetched_at`,
        [
          r.imdbID,
          textOrNull(r.Title),
          next.imdb_rating,
          next.imdb_votes,
          next.rotten_tomatoes,
          next.metacritic,
          next.awards,
          next.box_office_usd,
          textOrNull(r.Director),
          textOrNull(r.Actors),
          textOrNull(r.Rated),
          JSON.stringify(r),
          now,
        ],
      );
      await tx.query(
        `UPDATE movies SET last_ratings_update = $2, updated_at = now(),
           unchanged_refreshes = CASE WHEN $3 THEN 0 ELSE unchanged_refreshes END,
           data_frozen = CASE WHEN $3 THEN FALSE ELSE data_frozen END
         WHERE tmdb_id = $1`,
        [tmdbId, now, changed],
      );
      return changed;
    });
  }

  /**
   * Closes a movie's refresh cycle: an unchanged cycle adds one to the counter, and an archived movie with
   * `freezeAfter` unchanged cycles is frozen. Returns whether the movie is frozen afterwards.
   */
  /**
   * Ends a movie's refresh cycle: a change resets the count of unchanged cycles; an unchanged cycle counts toward
   * freezing only when it was complete (a failed or skipped step says nothing about whether the data changed).
   */
  async finishCycle(tmdbId: number, changed: boolean, complete: boolean, now: Date, freezeAfter: number): Promise<boolean> {
    const { rows } = await this.db.query<{ frozen: boolean }>(
      `UPDATE movies SET
         unchanged_refreshes = CASE WHEN $2 THEN 0 WHEN $3 THEN unchanged_refreshes + 1 ELSE unchanged_refreshes END,
         last_full_refresh = CASE WHEN $3 THEN $4 ELSE last_full_refresh END,
         data_frozen = data_frozen OR ($3 AND NOT $2 AND unchanged_refreshes + 1 >= $5
                        AND release_date IS NOT NULL AND ($6::date - release_date) > 365),
         updated_at = now()
       WHERE tmdb_id = $1
       RETURNING data_frozen AS frozen`,
      [tmdbId, changed, complete, now, freezeAfter, utcDate(now)],
    );
    return Boolean(rows[0]?.frozen);
  }

  async unfreeze(tmdbId: number): Promise<boolean> {
    const { rows } = await this.db.query(
      'UPDATE movies SET data_frozen = FALSE, unchanged_refreshes = 0, updated_at = now() WHERE tmdb_id = $1 RETURNING tmdb_id',
      [tmdbId],
    );
    return rows.length > 0;
  }

  async categoryCounts(now: Date): Promise<Record<string, number>> {
    const { rows } = await this.db.query<{ category: string; frozen: boolean; n: string }>(
      `SELECT ${CATEGORY_SQL} AS category, data_frozen AS frozen, count(*)::text AS n FROM movies GROUP BY 1, 2`,
      [utcDate(now)],
    );
    const out: Record<string, number> = { recent: 0, established: 0, mature: 0, archived: 0, frozen: 0, total: 0 };
    for (const r of rows) {
      out[r.category] = (out[r.category] ?? 0) + Number(r.n);
      if (r.frozen) out.frozen! += Number(r.n);
      out.total! += Number(r.n);
    }
    return out;
  }

  /** The SQL category of a date, for tests that hold SQL and code to the same boundaries. */
  async sqlCategory(releaseDate: string, now: Date): Promise<string> {
    const { rows } = await this.db.query<{ c: string }>(`SELECT ${CATEGORY_SQL} AS c FROM (SELECT $2::date AS release_date) t`, [utcDate(now), releaseDate]);
    return rows[0]!.c;
  }
}
