// A pool of worker threads (piscina) for CPU-bound steps, so that one domain's heavy work does not stall the event loop
// that every other request waits on. Tasks are exported functions of a domain's task module; the queue is bounded: when
// it is full the caller gets WorkersBusyError (503 with Retry-After) instead of an ever longer wait.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Piscina } from 'piscina';
import { fromRoot } from './paths.js';

export class WorkersBusyError extends Error {
  constructor(readonly retryAfterS: number) {
    super('The service is busy: too many requests are waiting for a worker; try again shortly');
    this.name = 'WorkersBusyError';
  }
}

export interface PoolOptions {
  threads: number;
  maxQueue: number;
  /** Nice increment of the worker threads (0 = the event loop's priority). */
  nice?: number;
}

/** The default pool size: every core but the one the event loop runs on, and at least one. */
export const defaultThreads = () => Math.max(1, availableParallelism() - 1);

/**
 * A task module's file for the worker, given its URL as compiled (`new URL('./x-task.js', import.meta.url)`): the .js
 * beside the caller when the service runs compiled, the .ts source under tsx.
 */
export function taskFile(url: URL): string {
  const js = fileURLToPath(url);
  return existsSync(js) ? js : js.replace(/\.js$/, '.ts');
}

export class WorkerPool {
  private readonly pool: Piscina;
  private crashes = 0;

  constructor(readonly opts: PoolOptions) {
    this.pool = new Piscina({
      filename: fromRoot('src/infra/worker-entry.mjs'),
      minThreads: 1,
      maxThreads: opts.threads,
      maxQueue: opts.maxQueue,
      // Workers beyond the first that sat idle a minute go, and give their memory back.
      idleTimeout: 60_000,
      // Lower priority for heavy steps: on a busy machine the event loop (every request's first and last step) runs
      // first, so a prediction does not queue behind a plot. A per-thread nice value on Linux.
      niceIncrement: opts.nice ?? 0,
      // A small young generation: a worker's tasks allocate in bursts, and V8's default (up to 48 MB per thread) stays
      // resident once it has grown. 16 MB rather than 12: the reader's span step allocated enough that a 12 MB young
      // generation spent a good part of each question collecting (narrative collection, in-process: ask p50 73-80 ms
      // at 12 MB, 66 ms at 16, 67 ms at 24).
      resourceLimits: { maxYoungGenerationSizeMb: 16 },
    });
    // A worker that dies (a native crash, an out-of-memory) fails its own task only; piscina starts a new one.
    this.pool.on('error', () => this.crashes++);
  }

  /** Runs `name` of the task module `file` in a worker. */
  async run<T>(file: string, name: string, args: unknown): Promise<T> {
    if (this.pool.queueSize >= this.opts.maxQueue) throw new WorkersBusyError(this.retryAfter());
    try {
      return (await this.pool.run({ file, name, args })) as T;
    } catch (err) {
      // A full queue, decided by piscina itself between our check and its own.
      if (/queue is at limit/i.test((err as Error).message)) throw new WorkersBusyError(this.retryAfter());
      throw err;
    }
  }

  /** Seconds a client should wait: about the time the queue ahead of it takes. */
  private retryAfter(): number {
    const perTaskMs = this.pool.histogram.runTime.p50 || 50;
    return Math.max(1, Math.ceil((this.pool.queueSize * perTaskMs) / this.opts.threads / 1000));
  }

  stats() {
    return {
      threads: this.pool.threads.length,
      max_threads: this.opts.threads,
      queued: this.pool.queueSize,
      max_queue: this.opts.maxQueue,
      completed: this.pool.completed,
      utilization: Math.round(this.pool.utilization * 1000) / 1000,
      worker_crashes: this.crashes,
    };
  }

  /**
   * Lets the tasks in progress finish, then stops the workers. Terminating a worker in the middle of a native call
   * (an ONNX Runtime run) aborts the whole process, so the pool is not destroyed under a running task.
   */
  close(): Promise<void> {
    return this.pool.close();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    workers: WorkerPool;
  }
}

async function workersPlugin(app: FastifyInstance) {
  const pool = new WorkerPool({ threads: app.config.WORKER_THREADS ?? defaultThreads(), maxQueue: app.config.WORKER_QUEUE_MAX, nice: app.config.WORKER_NICE });
  app.decorate('workers', pool);
  app.health.register('workers', () => ({ ready: true, ...pool.stats() }));
  app.addHook('onClose', () => pool.close());
}

export default fp(workersPlugin, { name: 'workers', dependencies: ['health'] });
