import { afterAll, describe, expect, it } from 'vitest';
import { taskFile, WorkerPool, WorkersBusyError } from '../../src/infra/worker-pool.js';
import { makeApp } from '../helpers/app.js';

const tasks = taskFile(new URL('../helpers/pool-tasks.js', import.meta.url));

describe('worker pool', () => {
  const pools: WorkerPool[] = [];
  const pool = (threads: number, maxQueue: number) => {
    const p = new WorkerPool({ threads, maxQueue });
    pools.push(p);
    return p;
  };
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  it('a worker that dies fails only its own task, and the pool goes on with a new worker', async () => {
    const p = pool(2, 64);
    const results = await Promise.allSettled([p.run(tasks, 'crash', null), ...Array.from({ length: 6 }, (_, i) => p.run<number>(tasks, 'echo', i))]);
    expect(results[0].status).toBe('rejected');
    expect(results.slice(1).map((r) => (r.status === 'fulfilled' ? r.value : r.reason))).toEqual([0, 1, 2, 3, 4, 5]);
    // Later tasks run as before.
    await expect(p.run(tasks, 'echo', 'after')).resolves.toBe('after');
    expect(p.stats().completed).toBeGreaterThanOrEqual(7);
  });

  it('refuses a task with WorkersBusyError (and a retry delay) once the queue is full, and takes tasks again after', async () => {
    const p = pool(1, 2);
    const busy = p.run(tasks, 'spin', 400);
    const queued = [p.run(tasks, 'echo', 1), p.run(tasks, 'echo', 2)];
    // Piscina has handed the first task to the worker once the queue holds the next two.
    const refused = await p.run(tasks, 'echo', 3).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(WorkersBusyError);
    expect((refused as WorkersBusyError).retryAfterS).toBeGreaterThanOrEqual(1);
    await busy;
    await expect(Promise.all(queued)).resolves.toEqual([1, 2]);
    await expect(p.run(tasks, 'echo', 4)).resolves.toBe(4);
  });

  it('closes only after the task in progress has finished (a worker is never terminated in the middle of a task)', async () => {
    const p = new WorkerPool({ threads: 1, maxQueue: 4 });
    const spinning = p.run<number>(tasks, 'spin', 300);
    await new Promise((r) => setTimeout(r, 100));
    const closed = p.close();
    // destroy() would reject the task with "Terminating worker thread"; close() lets it return its result.
    await expect(spinning).resolves.toEqual(expect.any(Number));
    await closed;
  });
});

describe('explanations under load', () => {
  const passenger = (i: number) => ({
    pclass: 1 + (i % 3),
    sex: i % 2 ? 'female' : 'male',
    age: 5 + (i % 40) * 1.5,
    sibsp: i % 3,
    parch: i % 2,
    embarked: ['S', 'C', 'Q'][i % 3],
  });

  it('answers 503 with Retry-After in the error shape when the plot queue is full, and draws again afterwards', async () => {
    const app = await makeApp({ WORKER_THREADS: 1, WORKER_QUEUE_MAX: 1 });
    try {
      const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => app.inject({ method: 'POST', url: '/api/explain', payload: passenger(i) })));
      const codes = responses.map((r) => r.statusCode);
      expect(codes).toContain(200);
      expect(codes).toContain(503);
      expect(codes.every((c) => c === 200 || c === 503)).toBe(true);
      const refused = responses.find((r) => r.statusCode === 503)!;
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.json()).toMatchObject({
        error: expect.any(String),
        message: expect.stringMatching(/busy/i),
        details: { request_id: refused.headers['x-request-id'] },
      });
      const again = await app.inject({ method: 'POST', url: '/api/explain', payload: passenger(20) });
      expect(again.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('keeps answering predictions while explanation plots are drawn, many between two plots', async () => {
    const app = await makeApp({ WORKER_THREADS: 1 });
    try {
      // The first plot starts the worker (and loads the canvas library in it).
      expect((await app.inject({ method: 'POST', url: '/api/explain', payload: passenger(0) })).statusCode).toBe(200);
      let drawing = true;
      const explains = Promise.all(
        Array.from({ length: 16 }, (_, i) => app.inject({ method: 'POST', url: '/api/explain', payload: passenger(i + 1) })),
      ).finally(() => (drawing = false));
      let answered = 0;
      while (drawing) {
        const res = await app.inject({ method: 'POST', url: '/api/predict', payload: passenger(answered) });
        expect(res.statusCode).toBe(200);
        answered++;
      }
      expect((await explains).map((r) => r.statusCode)).toEqual(Array(16).fill(200));
      // Counted, not timed, so that a busy machine slows both sides alike: with the plots drawn on the event loop, one
      // or two predictions get in between two plots (25 to 40 in all); with the plots in a worker, hundreds do.
      expect(answered).toBeGreaterThanOrEqual(8 * 16);
    } finally {
      await app.close();
    }
  });
});
