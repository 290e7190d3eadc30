// One collection run at a time (advisory lock), recorded in collection_runs; schedule() is separate from run().
import type { FastifyBaseLogger } from 'fastify';
import cron, { type ScheduledTask } from 'node-cron';
import type { Db } from '../infra/db.js';
import type { CollectionStats, Collector, FullCollectionOptions, Progress } from './orchestrator.js';

/** Advisory lock key of the collection run ("MOVI" in ASCII). */
export const RUN_LOCK_KEY = 0x4d4f5649;

export type RunTrigger = 'cli' | 'schedule' | 'api' | 'test';

export interface RunOutcome {
  status: 'succeeded' | 'failed' | 'skipped';
  run_id: number | null;
  stats?: CollectionStats;
  error?: string;
}

export interface RunRecord {
  run_id: number;
  started_at: string;
  finished_at: string | null;
  status: string;
  trigger: string;
  parameters: unknown;
  stats: unknown;
  errors: unknown;
}

export class CollectionRunner {
  private task: ScheduledTask | null = null;

  constructor(
    private readonly db: Db,
    private readonly collector: Collector,
    private readonly log: FastifyBaseLogger,
  ) {}

  async run(trigger: RunTrigger, params: FullCollectionOptions, progress?: Progress): Promise<RunOutcome> {
    const outcome = await this.db.withAdvisoryLock(RUN_LOCK_KEY, async () => {
      // Holding the lock, any run still marked running belongs to a process that died.
      await this.db.query(`UPDATE collection_runs SET status = 'abandoned', finished_at = now() WHERE status = 'running'`);
      const { rows } = await this.db.query<{ run_id: number }>(
        `INSERT INTO collection_runs (status, trigger, parameters) VALUES ('running', $1, $2) RETURNING run_id`,
        [trigger, JSON.stringify(params)],
      );
      const runId = rows[0]!.run_id;
      try {
        const stats = await this.collector.runFullCollection(params, progress);
        await this.db.query(
          `UPDATE collection_runs SET status = 'succeeded', finished_at = now(), stats = $2, errors = $3 WHERE run_id = $1`,
          [runId, JSON.stringify(stats), JSON.stringify(stats.failures)],
        );
        this.log.info({ run_id: runId, ...stats, failures: stats.failures.length }, 'collection run finished');
        return { status: 'succeeded' as const, run_id: runId, stats };
      } catch (err) {
        const message = (err as Error).message;
        await this.db.query(`UPDATE collection_runs SET status = 'failed', finished_at = now(), errors = $2 WHERE run_id = $1`, [
          runId,
          JSON.stringify([{ message }]),
        ]);
        this.log.error({ run_id: runId, err }, 'collection run failed');
        return { status: 'failed' as const, run_id: runId, error: message };
      }
    });
    if (outcome) return outcome;
    this.log.warn({ trigger }, 'another collection run holds the lock: skipped');
    await this.db.query(
      `INSERT INTO collection_runs (status, trigger, parameters, finished_at, errors) VALUES ('skipped', $1, $2, now(), $3)`,
      [trigger, JSON.stringify(params), JSON.stringify([{ message: 'another run was in progress' }])],
    );
    return { status: 'skipped', run_id: null, error: 'another collection run is in progress' };
  }

  /** Starts the in-process schedule (UTC); `params` are computed at each tick. */
  schedule(expression: string, params: () => FullCollectionOptions): void {
    if (!cron.validate(expression)) throw new Error(`COLLECTION_CRON: invalid cron expression "${expression}"`);
    this.task = cron.schedule(
      expression,
      async () => {
        await this.run('schedule', params());
      },
      { timezone: 'UTC', noOverlap: true, name: 'movie-collection' },
    );
    this.log.info({ cron: expression, next: this.nextRun() }, 'collection scheduled');
  }

  nextRun(): Date | null {
    return this.task?.getNextRun() ?? null;
  }

  async stop(): Promise<void> {
    await this.task?.destroy();
    this.task = null;
  }

  async runs(limit = 20): Promise<RunRecord[]> {
    const { rows } = await this.db.query<RunRecord>(
      `SELECT run_id, started_at, finished_at, status, trigger, parameters, stats, errors
       FROM collection_runs ORDER BY run_id DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      ...r,
      started_at: new Date(r.started_at).toISOString(),
      finished_at: r.finished_at ? new Date(r.finished_at).toISOString() : null,
    }));
  }
}
