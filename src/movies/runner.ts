// One collection run at a time (advisory lock), recorded in collection_runs; schedule() is separate from run().
import type { FastifyBaseLogger } from 'fastify';
import cron, { type ScheduledTask } from 'node-cron';
import type { Db } from '../infra/db.js';
import type { CollectionStats, Collector, FullCollectionOptions, Progress } from './orchestrator.js';

/** Advisory lock key of the collection run ("MOVI" in ASCII). */
export const RUN_LOCK_KEY = 0x4d4f5649;

export type RunTrigger = 'cli' | 'schedule' | 'api' | 'page' | 'test';

export interface RunOutcome {
  /** partial: discovery failed, the known movies were refreshed. */
  status: 'succeeded' | 'partial' | 'failed' | 'skipped';
  run_id: number | null;
  stats?: CollectionStats;
  error?: string;
}

/** The run in progress in this process, with its progress per phase. */
export interface ActiveRun {
  run_id: number;
  trigger: RunTrigger;
  progress: Record<string, { done: number; total: number }>;
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
  private active: ActiveRun | null = null;
  /** Runs started in this process and not finished (one holds the lock; others are about to be skipped). */
  private inFlight = new Map<Promise<RunOutcome>, AbortController>();

  constructor(
    private readonly db: Db,
    private readonly collector: Collector,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** `onStart` gets the run's id once it is recorded (not for a skipped run). */
  run(trigger: RunTrigger, params: FullCollectionOptions, progress?: Progress, onStart?: (runId: number) => void): Promise<RunOutcome> {
    const abort = new AbortController();
    const done = this.runLocked(trigger, params, abort.signal, progress, onStart).finally(() => this.inFlight.delete(done));
    this.inFlight.set(done, abort);
    return done;
  }

  private async runLocked(
    trigger: RunTrigger,
    params: FullCollectionOptions,
    signal: AbortSignal,
    progress?: Progress,
    onStart?: (runId: number) => void,
  ): Promise<RunOutcome> {
    const outcome = await this.db.withAdvisoryLock(RUN_LOCK_KEY, async () => {
      // Holding the lock, any run still marked running belongs to a process that died.
      await this.db.query(`UPDATE collection_runs SET status = 'abandoned', finished_at = now() WHERE status = 'running'`);
      const { rows } = await this.db.query<{ run_id: number }>(
        `INSERT INTO collection_runs (status, trigger, parameters) VALUES ('running', $1, $2) RETURNING run_id`,
        [trigger, JSON.stringify(params)],
      );
      const runId = rows[0]!.run_id;
      const active: ActiveRun = { run_id: runId, trigger, progress: {} };
      this.active = active;
      onStart?.(runId);
      const track: Progress = (phase, done, total) => {
        active.progress[phase] = { done, total };
        progress?.(phase, done, total);
      };
      try {
        const stats = await this.collector.runFullCollection(params, track, signal);
        // Discovery failed but the known movies were refreshed: "partial", with the reason first among the errors.
        const status = stats.discovery_error ? ('partial' as const) : ('succeeded' as const);
        const errors = [...(stats.discovery_error ? [{ step: 'discover', message: stats.discovery_error }] : []), ...stats.failures];
        await this.db.query(`UPDATE collection_runs SET status = $4, finished_at = now(), stats = $2, errors = $3 WHERE run_id = $1`, [
          runId,
          JSON.stringify(stats),
          JSON.stringify(errors),
          status,
        ]);
        this.log.info({ run_id: runId, ...stats, failures: stats.failures.length }, 'collection run finished');
        return { status, run_id: runId, stats, ...(stats.discovery_error ? { error: `discovery failed: ${stats.discovery_error}` } : {}) };
      } catch (err) {
        const message = (err as Error).message;
        await this.db.query(`UPDATE collection_runs SET status = 'failed', finished_at = now(), errors = $2 WHERE run_id = $1`, [
          runId,
          JSON.stringify([{ message }]),
        ]);
        this.log.error({ run_id: runId, err }, 'collection run failed');
        return { status: 'failed' as const, run_id: runId, error: message };
      } finally {
        this.active = null;
      }
    });
    if (outcome) return outcome;
    this.log.warn({ trigger }, 'another collection run holds the lock: skipped');
    await this.db.query(`INSERT INTO collection_runs (status, trigger, parameters, finished_at, errors) VALUES ('skipped', $1, $2, now(), $3)`, [
      trigger,
      JSON.stringify(params),
      JSON.stringify([{ message: 'another run was in progress' }]),
    ]);
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

  /** The run in progress in this process, if any. */
  activeRun(): ActiveRun | null {
    if (!this.active) return null;
    const { run_id, trigger, progress } = this.active;
    return { run_id, trigger, progress: structuredClone(progress) };
  }

  /** Stops the schedule, and interrupts a run in progress (it is recorded as failed; the next run completes it). */
  async stop(): Promise<void> {
    await this.task?.destroy();
    this.task = null;
    for (const abort of this.inFlight.values()) abort.abort();
    await Promise.allSettled([...this.inFlight.keys()]);
  }

  async findRun(id: number): Promise<RunRecord | null> {
    const { rows } = await this.db.query<RunRecord>(
      `SELECT run_id, started_at, finished_at, status, trigger, parameters, stats, errors FROM collection_runs WHERE run_id = $1`,
      [id],
    );
    return rows[0] ? normaliseRun(rows[0]) : null;
  }

  async runs(limit = 20): Promise<RunRecord[]> {
    const { rows } = await this.db.query<RunRecord>(
      `SELECT run_id, started_at, finished_at, status, trigger, parameters, stats, errors
       FROM collection_runs ORDER BY run_id DESC LIMIT $1`,
      [limit],
    );
    return rows.map(normaliseRun);
  }
}

function normaliseRun(r: RunRecord): RunRecord {
  return { ...r, started_at: new Date(r.started_at).toISOString(), finished_at: r.finished_at ? new Date(r.finished_at).toISOString() : null };
}
