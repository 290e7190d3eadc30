import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCollectionSettings } from '../../src/movies/settings.js';
import { tempDir, testConfig } from '../helpers/app.js';

/** Settings from a collection.yaml written for the test, on top of nothing else. */
function settingsFrom(yaml: string) {
  const file = join(tempDir('settings-'), 'collection.yaml');
  writeFileSync(file, yaml);
  return loadCollectionSettings(testConfig({ COLLECTION_CONFIG: file }));
}

const BASE = `
catalog: { base_url: 'https://catalog.example/3', requests_per_second: 4, max_concurrent: 10, daily_quota: 40000, timeout_ms: 10000,
           min_popularity: 10, min_vote_count: 50, min_release_year: 1950, max_movies: null, allowed_release_statuses: [Released] }
ratings: { base_url: 'https://ratings.example', requests_per_second: 2, max_concurrent: 5, daily_quota: 1000, timeout_ms: 10000, max_movies: 1000 }
retry: { retries: 3, base_delay_ms: 1000, max_delay_ms: 10000, max_retry_after_ms: 60000 }
refresh: { limit: 500, freeze_after_unchanged: 3, discover_max_pages: 5 }
schedule: { cron: '' }
`;

describe('collection settings', () => {
  it('reads the shipped config/collection.yaml with the specification defaults', () => {
    const s = loadCollectionSettings(testConfig());
    expect(s.catalog).toMatchObject({
      min_popularity: 10,
      min_vote_count: 50,
      min_release_year: 1950,
      max_movies: null,
      requests_per_second: 4,
      max_concurrent: 10,
    });
    expect(s.ratings).toMatchObject({ max_movies: 1000, requests_per_second: 2, max_concurrent: 5 });
  });

  it("accepts the specification's setting names", () => {
    const yaml = BASE.replace(/min_popularity: 10, min_vote_count: 50, min_release_year: 1950, max_movies: null, allowed_release_statuses: \[Released\] /, '')
      .replace(', max_movies: 1000 }', ' }')
      .concat(
        'catalog_min_popularity: 2.5\ncatalog_min_vote_count: 7\ncatalog_min_release_year: 1980\ncatalog_max_movies: 300\n' +
          'ratings_max_movies: 40\ncatalog_allowed_release_statuses: [Released, Post Production]\n',
      );
    const s = settingsFrom(yaml);
    expect(s.catalog).toMatchObject({
      min_popularity: 2.5,
      min_vote_count: 7,
      min_release_year: 1980,
      max_movies: 300,
      allowed_release_statuses: ['Released', 'Post Production'],
    });
    expect(s.ratings.max_movies).toBe(40);
  });

  it('refuses an unknown key, at the top or in a group, naming it', () => {
    expect(() => settingsFrom(`${BASE}catalog_min_popularty: 3\n`)).toThrow(/unknown setting "catalog_min_popularty"/);
    expect(() => settingsFrom(BASE.replace('limit: 500', 'limit: 500, freeze_after: 2'))).toThrow(/unknown setting "refresh.freeze_after"/);
  });

  it('refuses the same setting given under both names', () => {
    expect(() => settingsFrom(`${BASE}catalog_min_vote_count: 5\n`)).toThrow(/catalog_min_vote_count and catalog.min_vote_count are the same setting/);
  });
});
