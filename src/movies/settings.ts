// Collection settings: config/collection.yaml (the spec's limits) with environment and CLI overrides.
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import type { Config } from '../infra/config.js';
import { fromRoot } from '../infra/paths.js';

const ClientSchema = z.object({
  base_url: z.url(),
  requests_per_second: z.number().positive(),
  max_concurrent: z.int().positive(),
  daily_quota: z.int().positive(),
  timeout_ms: z.int().positive(),
});

export const CollectionSettingsSchema = z.object({
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
  retry: z.object({
    retries: z.int().min(0).max(10),
    base_delay_ms: z.int().min(0),
    max_delay_ms: z.int().min(0),
    max_retry_after_ms: z.int().min(0),
  }),
  refresh: z.object({
    limit: z.int().positive(),
    freeze_after_unchanged: z.int().positive(),
    discover_max_pages: z.int().positive(),
  }),
  schedule: z.object({ cron: z.string() }),
});

export type CollectionSettings = z.output<typeof CollectionSettingsSchema>;

export function loadCollectionSettings(config: Config): CollectionSettings {
  const file = fromRoot(config.COLLECTION_CONFIG);
  const doc = (existsSync(file) ? parse(readFileSync(file, 'utf8')) : {}) as Record<string, Record<string, unknown>>;
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
    throw new Error(`${config.COLLECTION_CONFIG}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
