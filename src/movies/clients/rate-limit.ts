// Token bucket (capacity and refill = requests per second) plus a cap on requests in flight.

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
    readonly capacity: number = ratePerSecond,
    private readonly now: Clock = () => performance.now(),
  ) {
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
      this.timer = setTimeout(() => {
        this.timer = null;
        this.drain();
      }, Math.max(1, Math.ceil(wait)));
    }
  }
}

export class Semaphore {
  private active = 0;
  private waiters: (() => void)[] = [];

  constructor(readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiters.shift()?.();
    }
  }

  get inFlight(): number {
    return this.active;
  }
}
