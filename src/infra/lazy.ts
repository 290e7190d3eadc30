// A resource created once on first use; concurrent callers share the attempt, and a failed attempt is forgotten
// so that the next call tries again.

export interface Lazy<T> {
  (): Promise<T>;
  /** The attempt under way or settled, if any (without starting one). */
  current(): Promise<T> | null;
  state(): 'idle' | 'starting' | 'ready' | 'failed';
  error(): string | null;
}

export function lazy<T>(create: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | null = null;
  let state: 'idle' | 'starting' | 'ready' | 'failed' = 'idle';
  let error: string | null = null;
  const get = () => {
    if (!pending) {
      state = 'starting';
      pending = create().then(
        (value) => {
          state = 'ready';
          error = null;
          return value;
        },
        (err: Error) => {
          state = 'failed';
          error = err.message;
          pending = null;
          throw err;
        },
      );
    }
    return pending;
  };
  return Object.assign(get, { current: () => pending, state: () => state, error: () => error });
}
