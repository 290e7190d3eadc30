// What the routes and the collection page share: the collection's status, and starting a run in the background.
import { migrationStatus } from '../infra/db.js';
import { type MoviesContext, missingKeys } from './context.js';
import type { FullCollectionOptions } from './orchestrator.js';
import type { RunRecord, RunTrigger } from './runner.js';

/** A run with its progress while it is the one in progress here. */
export function withProgress(ctx: MoviesContext, run: RunRecord) {
  const active = ctx.runner.activeRun();
  return active && active.run_id === run.run_id && run.status === 'running' ? { ...run, progress: active.progress } : run;
}

/** Schedule, run in progress, last run, quota left today, movie counts per age category, migrations. */
export async function collectionStatus(ctx: MoviesContext) {
  const [last] = await ctx.runner.runs(1);
  const next = ctx.runner.nextRun();
  return {
    database: ctx.db.kind,
    migrations: await migrationStatus(ctx.db),
    schedule: { cron: ctx.settings.schedule.cron.trim() || null, next_run: next ? next.toISOString() : null, in_this_process: next !== null },
    active_run: ctx.runner.activeRun(),
    last_run: last ? withProgress(ctx, last) : null,
    quota: {
      catalog: { daily_limit: ctx.settings.catalog.daily_quota, left_today: await ctx.catalog.quotaLeft() },
      ratings: { daily_limit: ctx.settings.ratings.daily_quota, left_today: await ctx.ratings.quotaLeft() },
    },
    movies: await ctx.repo.categoryCounts(new Date()),
  };
}

export type StartOutcome =
  { started: true; run_id: number } | { started: false; reason: 'missing_keys'; missing: string[] } | { started: false; reason: 'busy'; run_id?: number };

/** Starts a run and answers once it is recorded (the run goes on in the background), or says why it cannot start. */
export async function startRun(ctx: MoviesContext, trigger: RunTrigger, params: FullCollectionOptions, onError: (err: unknown) => void): Promise<StartOutcome> {
  const missing = missingKeys(ctx.settings);
  if (missing.length) return { started: false, reason: 'missing_keys', missing };
  const started = await new Promise<number | null>((resolve) => {
    ctx.runner
      .run(trigger, params, undefined, resolve)
      .then((outcome) => resolve(outcome.run_id === null ? null : outcome.run_id))
      .catch((err: unknown) => {
        onError(err);
        resolve(null);
      });
  });
  if (started !== null) return { started: true, run_id: started };
  const active = ctx.runner.activeRun();
  return { started: false, reason: 'busy', ...(active ? { run_id: active.run_id } : {}) };
}
