import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { Semaphore, TokenBucket } from '../../src/movies/clients/rate-limit.js';

describe('Semaphore', () => {
  it('never runs more than its maximum, also when a caller arrives just as another finishes', async () => {
    const sem = new Semaphore(1);
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await sleep(5);
      running--;
    };
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = sem.run(() => gate);
    const waiting = sem.run(task);
    // Registered after the semaphore's own continuation of `gate`, so it calls run() right after the slot is freed
    // and before the waiter resumes: exactly when a freed slot could be taken twice.
    const late = gate.then(() => sem.run(task));
    release();
    await Promise.all([first, waiting, late]);
    expect(most).toBe(1);
    expect(sem.inFlight).toBe(0);
  });

  it('serves waiters in arrival order', async () => {
    const sem = new Semaphore(1);
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => sem.run(async () => void order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
  });
});

describe('TokenBucket', () => {
  it('grants tokens at a rate below one per second: the first at once, then one every 2 s at 0.5/s', async () => {
    vi.useFakeTimers();
    try {
      const bucket = new TokenBucket(0.5, undefined, () => Date.now());
      const granted: number[] = [];
      const start = Date.now();
      const takes = [0, 1, 2].map(() => bucket.take().then(() => granted.push(Date.now() - start)));
      await vi.advanceTimersByTimeAsync(0);
      expect(granted).toEqual([0]);
      await vi.advanceTimersByTimeAsync(1990);
      expect(granted).toEqual([0]);
      await vi.advanceTimersByTimeAsync(2020);
      await Promise.all(takes);
      expect(granted.map((ms) => Math.round(ms / 100) * 100)).toEqual([0, 2000, 4000]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a capacity that could never grant a token', () => {
    expect(() => new TokenBucket(0.5, 0.5)).toThrow(/at least 1 token/);
  });
});
