// Collection settings: config/collection.yaml (the specification's limits) with environment and CLI overrides. The file
// takes the specification's setting names (catalog_min_popularity, ...) or the grouped form (catalog: {min_popularity});
// an unknown key is refused, by name, rather than silently ignored.
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import type { Config } from '../infra/config.js';
import { fromRoot } from '../infra/paths.js';

const ClientSchema = z.strictObject({
  base_url: z.url(),
  requests_per_second: z.number().positive(),
  max_concurrent: z.int().positive(),
  daily_quota: z.int().positive(),
  timeout_ms: z.int().positive(),
});

export const CollectionSettingsSchema = z.strictObject({
  catalog: ClientSchema.extend({
    api_key: z.string().optional(),
    min_popularity: z.number().min(0),
    min_vote_count: z.int().min(0),
    min_release_year: z.int().min(1870).max(2100),
    max_movies: z.int().positive().nullable(),
    allowed_release_statuses: z.array(z.string()).min(1),
  }),
  ratings: ClientSchema.extend({
    api_key: z.string().optional(),
    max_movies: z.int().min(0),
  }),
  retry: z.strictObject({
    retries: z.int().min(0).max(10),
    base_delay_ms: z.int().min(0),
    max_delay_ms: z.int().min(0),
    max_retry_after_ms: z.int().min(0),
  }),
  refresh: z.strictObject({
    limit: z.int().positive(),
    freeze_after_unchanged: z.int().positive(),
    discover_max_pages: z.int().positive(),
  }),
  schedule: z.strictObject({ cron: z.string() }),
});

export type CollectionSettings = z.output<typeof CollectionSettingsSchema>;

/** The specification's flat setting names and where they live in the grouped form. */
export const SPEC_NAMES: Record<string, [group: 'catalog' | 'ratings', key: string]> = {
  catalog_min_popularity: ['catalog', 'min_popularity'],
  catalog_min_vote_count: ['catalog', 'min_vote_count'],
  catalog_min_release_year: ['catalog', 'min_release_year'],
  catalog_max_movies: ['catalog', 'max_movies'],
  catalog_allowed_release_statuses: ['catalog', 'allowed_release_statuses'],
  ratings_max_movies: ['ratings', 'max_movies'],
};

class SettingsError extends Error {}

/** Moves the specification's flat names into their groups; the same setting given both ways is refused. */
function withSpecNames(raw: Record<string, unknown>, file: string): Record<string, Record<string, unknown>> {
  const doc: Record<string, unknown> = { ...raw };
  for (const [flat, [group, key]] of Object.entries(SPEC_NAMES)) {
    if (!(flat in doc)) continue;
    const target = { ...((doc[group] as Record<string, unknown> | undefined) ?? {}) };
    if (key in target) throw new SettingsError(`${file}: ${flat} and ${group}.${key} are the same setting: keep one`);
    target[key] = doc[flat];
    doc[group] = target;
    delete doc[flat];
  }
  return doc as Record<string, Record<string, unknown>>;
}

export function loadCollectionSettings(config: Config): CollectionSettings {
  const file = fromRoot(config.COLLECTION_CONFIG);
  const parsedFile: unknown = existsSync(file) ? parse(readFileSync(file, 'utf8')) : {};
  if (parsedFile !== null && (typeof parsedFile !== 'object' || Array.isArray(parsedFile))) {
    throw new Error(`${config.COLLECTION_CONFIG}: expected a mapping of settings`);
  }
  const doc = withSpecNames((parsedFile ?? {}) as Record<string, unknown>, config.COLLECTION_CONFIG);
  const merged = {
    ...doc,
    catalog: {
      ...doc.catalog,
      ...(config.CATALOG_BASE_URL ? { base_url: config.CATALOG_BASE_URL } : {}),
      ...(config.CATALOG_API_KEY ? { api_key: config.CATALOG_API_KEY } : {}),
    },
    ratings: {
      ...doc.ratings,
      ...(config.RATINGS_BASE_URL ? { base_url: config.RATINGS_BASE_URL } : {}),
      ...(config.RATINGS_API_KEY ? { api_key: config.RATINGS_API_KEY } : {}),
    },
    schedule: { ...doc.schedule, ...(config.COLLECTION_CRON !== undefined ? { cron: config.COLLECTION_CRON } : {}) },
  };
  const parsed = CollectionSettingsSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const where = issue.path.length ? `${issue.path.join('.')}.` : '';
      const known = Object.keys(SPEC_NAMES).join(', ');
      throw new Error(
        `${config.COLLECTION_CONFIG}: unknown setting ${issue.keys.map((k) => `"${where}${k}"`).join(', ')}` +
          (where ? '' : ` (top-level settings are catalog, ratings, retry, refresh, schedule and ${known})`),
      );
    }
    throw new Error(`${config.COLLECTION_CONFIG}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
