// Age categories and refresh intervals, in whole UTC calendar days (the same rules as the SQL in repository.ts).

export type AgeCategory = 'recent' | 'established' | 'mature' | 'archived';

/** Upper bounds are inclusive: day 60 is recent, 180 established, 365 mature; archived is over 365 days. */
export const CATEGORIES: { name: AgeCategory; maxDays: number; catalogDays: number; ratingsDays: number }[] = [
  { name: 'recent', maxDays: 60, catalogDays: 5, ratingsDays: 5 },
  { name: 'established', maxDays: 180, catalogDays: 15, ratingsDays: 30 },
  { name: 'mature', maxDays: 365, catalogDays: 30, ratingsDays: 90 },
  { name: 'archived', maxDays: Infinity, catalogDays: 90, ratingsDays: 180 },
];

const DAY = 86_400_000;

/** 'YYYY-MM-DD' of an instant, in UTC. */
export const utcDate = (d: Date) => d.toISOString().slice(0, 10);

/** Whole UTC calendar days from `from` (a date or an instant) to `to`. */
export function daysBetween(from: string | Date, to: Date): number {
  const a = typeof from === 'string' ? Date.parse(`${from.slice(0, 10)}T00:00:00Z`) : Date.parse(`${utcDate(from)}T00:00:00Z`);
  const b = Date.parse(`${utcDate(to)}T00:00:00Z`);
  return Math.round((b - a) / DAY);
}

/** Unknown or future release dates count as recent: such records change most. */
export function ageCategory(releaseDate: string | null, now: Date): AgeCategory {
  if (!releaseDate) return 'recent';
  const age = daysBetween(releaseDate, now);
  return CATEGORIES.find((c) => age <= c.maxDays)!.name;
}

export function intervals(category: AgeCategory): { catalogDays: number; ratingsDays: number } {
  const c = CATEGORIES.find((x) => x.name === category)!;
  return { catalogDays: c.catalogDays, ratingsDays: c.ratingsDays };
}

/** Never fetched, or fetched at least `interval` calendar days ago. */
export function isDue(last: Date | null, intervalDays: number, now: Date): boolean {
  return last === null || daysBetween(last, now) >= intervalDays;
}

export function isArchived(releaseDate: string | null, now: Date): boolean {
  return ageCategory(releaseDate, now) === 'archived';
}

/** The same categories as SQL over `release_date`, with $1 the UTC date of "now". */
export const CATEGORY_SQL = `CASE
  WHEN release_date IS NULL OR ($1::date - release_date) <= 60 THEN 'recent'
  WHEN ($1::date - release_date) <= 180 THEN 'established'
  WHEN ($1::date - release_date) <= 365 THEN 'mature'
  ELSE 'archived' END`;
