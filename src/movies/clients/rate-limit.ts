// Token bucket (capacity and refill = requests per second; at least one token of capacity, so that a rate below one
// per second still grants) plus a cap on requests in flight.

export type Clock = () => number;
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class TokenBucket {
  private tokens: number;
  private last: number;
  private waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly ratePerSecond: number,
    readonly capacity: number = Math.max(1, ratePerSecond),
    private readonly now: Clock = () => performance.now(),
  ) {
    if (capacity < 1) throw new RangeError(`a token bucket needs a capacity of at least 1 token (got ${capacity})`);
    this.tokens = capacity;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((t - this.last) / 1000) * this.ratePerSecond);
    this.last = t;
  }

  /** Resolves when a token is taken; waiters are served in arrival order. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.drain();
    });
  }

  private drain(): void {
    this.refill();
    while (this.waiters.length && this.tokens >= 1) {
      this.tokens -= 1;
      this.waiters.shift()!();
    }
    if (this.waiters.length && !this.timer) {
      const wait = ((1 - this.tokens) / this.ratePerSecond) * 1000;
      this.timer = setTimeout(
        () => {
          this.timer = null;
          this.drain();
        },
        Math.max(1, Math.ceil(wait)),
      );
    }
  }
}

export class Semaphore {
  private active = 0;
  private waiters: (() => void)[] = [];

  constructor(readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    // A finishing caller hands its slot to the next waiter directly: `active` never drops in between, so a caller
    // arriving at that moment cannot slip in ahead and make one too many.
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiters.shift();
      if (next) next();
      else this.active--;
    }
  }

  get inFlight(): number {
    return this.active;
  }
}
