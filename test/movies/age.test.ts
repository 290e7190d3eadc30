import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ageCategory, daysBetween, isDue } from '../../src/movies/age.js';
import { catalogChanged, ratingsVolatile } from '../../src/movies/changes.js';
import { TokenBucket } from '../../src/movies/clients/rate-limit.js';
import { parseRetryAfter } from '../../src/movies/clients/http.js';
import { BACKENDS, type Harness, movieHarness } from '../helpers/movies.js';

const now = new Date('2026-06-15T23:30:00Z');
const daysAgo = (d: number) => new Date(Date.parse('2026-06-15T00:00:00Z') - d * 86_400_000).toISOString().slice(0, 10);

describe('age categories (UTC calendar days; upper bounds inclusive)', () => {
  it.each([
    [0, 'recent'],
    [60, 'recent'],
    [61, 'established'],
    [180, 'established'],
    [181, 'mature'],
    [365, 'mature'],
    [366, 'archived'],
    [5000, 'archived'],
    [-10, 'recent'],
  ])('day %i is %s', (d, category) => {
    expect(ageCategory(daysAgo(d), now)).toBe(category);
  });

  it('treats an unknown release date as recent', () => {
    expect(ageCategory(null, now)).toBe('recent');
  });

  it('counts calendar days in UTC, not 24-hour periods', () => {
    expect(daysBetween(new Date('2026-06-14T23:59:00Z'), new Date('2026-06-15T00:01:00Z'))).toBe(1);
    expect(daysBetween('2026-06-15', new Date('2026-06-15T23:59:59Z'))).toBe(0);
  });

  it('is due at exactly the interval and never-fetched movies are always due', () => {
    expect(isDue(new Date('2026-06-10T23:00:00Z'), 5, now)).toBe(true);
    expect(isDue(new Date('2026-06-11T00:30:00Z'), 5, now)).toBe(false);
    expect(isDue(null, 90, now)).toBe(true);
  });
});

describe.each(BACKENDS)('SQL categories agree with the code (%s)', (_name, url) => {
  let h: Harness;
  beforeAll(async () => {
    h = await movieHarness(url);
  });
  afterAll(() => h.close());

  it('at every boundary', async () => {
    for (const d of [0, 59, 60, 61, 179, 180, 181, 364, 365, 366]) {
      expect(await h.ctx.repo.sqlCategory(daysAgo(d), now)).toBe(ageCategory(daysAgo(d), now));
    }
  });
});

describe('change detection and parsing', () => {
  const base = { budget: 10, revenue: 20, runtime: 100, vote_count: 1000, vote_average: 7, status: 'Released' };
  it('tolerates vote counts within 1% and averages within 0.05', () => {
    expect(catalogChanged(base, { ...base, vote_count: 1009 })).toBe(false);
    expect(catalogChanged(base, { ...base, vote_count: 1011 })).toBe(true);
    expect(catalogChanged(base, { ...base, vote_average: 7.05 })).toBe(false);
    expect(catalogChanged(base, { ...base, vote_average: 7.1 })).toBe(true);
    expect(catalogChanged(base, { ...base, revenue: 21 })).toBe(true);
    expect(catalogChanged(null, base)).toBe(true);
  });

  it('reads OMDb values, including N/A', () => {
    const v = ratingsVolatile({
      Response: 'True',
      imdbID: 'tt0111161',
      imdbRating: '9.3',
      imdbVotes: '2,900,123',
      Metascore: 'N/A',
      BoxOffice: '$28,767,189',
      Awards: 'N/A',
      Ratings: [
        { Source: 'Rotten Tomatoes', Value: '89%' },
        { Source: 'Metacritic', Value: '82/100' },
      ],
    });
    expect(v).toEqual({ imdb_rating: 9.3, imdb_votes: 2900123, rotten_tomatoes: 89, metacritic: 82, box_office_usd: 28767189, awards: null });
  });

  it('parses Retry-After in seconds and as a date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('token bucket', () => {
  it('allows a burst of its capacity, then the refill rate', async () => {
    // Fake timers and the bucket reading the faked Date: the grant times are exact, however busy the machine.
    vi.useFakeTimers();
    try {
      const bucket = new TokenBucket(20, undefined, () => Date.now());
      const t0 = Date.now();
      const times: number[] = [];
      const takes = Promise.all(Array.from({ length: 40 }, () => bucket.take().then(() => times.push(Date.now() - t0))));
      await vi.advanceTimersByTimeAsync(0);
      // The burst: all 20 tokens at once, and not one more.
      expect(times).toEqual(Array(20).fill(0));
      // 20 more tokens at 20/s: one every 50 ms, the last after a second.
      await vi.advanceTimersByTimeAsync(1000);
      await takes;
      expect(times.slice(20)).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 50));
    } finally {
      vi.useRealTimers();
    }
  });
});
