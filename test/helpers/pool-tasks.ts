// Task module for the worker-pool tests: a busy loop, a thread that dies, and an echo.

/** Keeps the worker's CPU busy for `ms` milliseconds, as a heavy step would. */
export function spin(ms: number): number {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) n++;
  return n;
}

/** Ends the worker thread abruptly, as a native crash or an out-of-memory would. */
export function crash(): never {
  process.exit(3);
}

export function echo<T>(value: T): T {
  return value;
}
