// Change detection on the volatile fields, with a tolerance for vote counts that drift by a handful.
import type { CatalogDetails } from './clients/catalog.js';
import type { RatingsData } from './clients/ratings.js';

export interface CatalogVolatile {
  budget: number | null;
  revenue: number | null;
  runtime: number | null;
  vote_count: number | null;
  vote_average: number | null;
  status: string | null;
}

export interface RatingsVolatile {
  imdb_rating: number | null;
  imdb_votes: number | null;
  rotten_tomatoes: number | null;
  metacritic: number | null;
  box_office_usd: number | null;
  awards: string | null;
}

/** Vote counts within 1% (relative), and vote averages within 0.05, count as unchanged. */
export const TOLERANCE = { votesRelative: 0.01, voteAverage: 0.05 };

function votesChanged(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a !== b;
  return Math.abs(a - b) > TOLERANCE.votesRelative * Math.max(a, b);
}

export function catalogChanged(old: CatalogVolatile | null, next: CatalogVolatile): boolean {
  if (!old) return true;
  return (
    old.budget !== next.budget ||
    old.revenue !== next.revenue ||
    old.runtime !== next.runtime ||
    old.status !== next.status ||
    votesChanged(old.vote_count, next.vote_count) ||
    (old.vote_average === null || next.vote_average === null
      ? old.vote_average !== next.vote_average
      : Math.abs(old.vote_average - next.vote_average) > TOLERANCE.voteAverage + 1e-9)
  );
}

export function ratingsChanged(old: RatingsVolatile | null, next: RatingsVolatile): boolean {
  if (!old) return true;
  return (
    old.imdb_rating !== next.imdb_rating ||
    old.rotten_tomatoes !== next.rotten_tomatoes ||
    old.metacritic !== next.metacritic ||
    old.box_office_usd !== next.box_office_usd ||
    old.awards !== next.awards ||
    votesChanged(old.imdb_votes, next.imdb_votes)
  );
}

const num = (v: number | null | undefined) => (v === undefined || v === null ? null : v);

export function catalogVolatile(d: CatalogDetails): CatalogVolatile {
  return {
    budget: num(d.budget),
    revenue: num(d.revenue),
    runtime: num(d.runtime),
    vote_count: num(d.vote_count),
    vote_average: num(d.vote_average),
    status: d.status ?? null,
  };
}

/** OMDb writes "N/A" for missing values, "8.8", "1,234,567", "87%", "74/100", "$292,587,330". */
function omdbNumber(v: string | undefined): number | null {
  if (!v || v === 'N/A') return null;
  const n = Number(v.replace(/[$,%]/g, '').split('/')[0]);
  return Number.isFinite(n) ? n : null;
}

export function ratingsVolatile(r: RatingsData): RatingsVolatile {
  const source = (name: string) => r.Ratings?.find((x) => x.Source === name)?.Value;
  return {
    imdb_rating: omdbNumber(r.imdbRating),
    imdb_votes: omdbNumber(r.imdbVotes),
    rotten_tomatoes: omdbNumber(source('Rotten Tomatoes')),
    metacritic: omdbNumber(r.Metascore) ?? omdbNumber(source('Metacritic')),
    box_office_usd: omdbNumber(r.BoxOffice),
    awards: !r.Awards || r.Awards === 'N/A' ? null : r.Awards,
  };
}

export const textOrNull = (v: string | undefined | null) => (!v || v === 'N/A' ? null : v);
