// Wires the movie collection together (database, clients, collector, runner) for the service and the CLI.
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../infra/config.js';
import { type Db, migrate, openDb } from '../infra/db.js';
import { fromRoot } from '../infra/paths.js';
import { CatalogClient } from './clients/catalog.js';
import type { ClientOptions } from './clients/http.js';
import { RatingsClient } from './clients/ratings.js';
import type { Sleep } from './clients/rate-limit.js';
import { Collector } from './orchestrator.js';
import { MovieRepository } from './repository.js';
import { CollectionRunner } from './runner.js';
import { type CollectionSettings, loadCollectionSettings } from './settings.js';

export interface MoviesContext {
  db: Db;
  settings: CollectionSettings;
  repo: MovieRepository;
  catalog: CatalogClient;
  ratings: RatingsClient;
  collector: Collector;
  runner: CollectionRunner;
  close(): Promise<void>;
}

export interface ContextOptions {
  /** Overrides of the YAML settings (CLI flags, tests). */
  settings?: (s: CollectionSettings) => CollectionSettings;
  schema?: string;
  /** An open, migrated database to use (the service's); without it the context opens its own and closes it. */
  db?: Db;
  sleep?: Sleep;
  now?: () => Date;
}

export async function createMoviesContext(config: Config, log: FastifyBaseLogger, opts: ContextOptions = {}): Promise<MoviesContext> {
  const base = loadCollectionSettings(config);
  const settings = opts.settings ? opts.settings(base) : base;
  const ownDb = !opts.db;
  const db =
    opts.db ??
    (await openDb({
      ...(config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : {}),
      dataDir: join(fromRoot(config.DATA_DIR), 'pglite'),
      ...(opts.schema ? { schema: opts.schema } : {}),
    }));
  if (ownDb) {
    try {
      const applied = await migrate(db, opts.schema);
      if (applied.length) log.info({ applied, database: db.kind }, 'migrations applied');
    } catch (err) {
      await db.close();
      throw err;
    }
  }
  const common = (s: CollectionSettings['catalog'] | CollectionSettings['ratings']): Omit<ClientOptions, 'service'> => ({
    baseUrl: s.base_url,
    requestsPerSecond: s.requests_per_second,
    maxConcurrent: s.max_concurrent,
    dailyQuota: s.daily_quota,
    timeoutMs: s.timeout_ms,
    retries: settings.retry.retries,
    baseDelayMs: settings.retry.base_delay_ms,
    maxDelayMs: settings.retry.max_delay_ms,
    maxRetryAfterMs: settings.retry.max_retry_after_ms,
    db,
    log,
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
    ...(opts.now ? { today: () => opts.now!().toISOString().slice(0, 10) } : {}),
  });
  const catalog = new CatalogClient({
    ...common(settings.catalog),
    ...(settings.catalog.api_key ? { apiKey: settings.catalog.api_key } : {}),
    ...(config.CATALOG_AUTH ? { auth: config.CATALOG_AUTH } : {}),
  });
  const ratings = new RatingsClient({ ...common(settings.ratings), ...(settings.ratings.api_key ? { apiKey: settings.ratings.api_key } : {}) });
  const repo = new MovieRepository(db);
  const collector = new Collector({ repo, catalog, ratings, settings, log, ...(opts.now ? { now: opts.now } : {}) });
  const runner = new CollectionRunner(db, collector, log);
  return {
    db,
    settings,
    repo,
    catalog,
    ratings,
    collector,
    runner,
    async close() {
      await runner.stop();
      if (ownDb) await db.close();
    },
  };
}

/** The API keys a collection run needs and the settings lack, by variable name. */
export function missingKeys(settings: CollectionSettings): string[] {
  return [...(settings.catalog.api_key ? [] : ['CATALOG_API_KEY']), ...(settings.ratings.api_key ? [] : ['RATINGS_API_KEY'])];
}

/** The run the schedule makes: the last five years up to the current one. */
export function defaultRunParams(now = new Date()) {
  const year = now.getUTCFullYear();
  return { discoverStartYear: year - 4, discoverEndYear: year };
}
