// Shared HTTP behaviour of the movie clients: rate limit, daily quota, timeout, retries, error kinds.
import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../infra/db.js';
import { Semaphore, type Sleep, TokenBucket, realSleep } from './rate-limit.js';

export type ErrorKind = 'network' | 'rate_limit' | 'not_found' | 'auth' | 'quota' | 'invalid_response' | 'server' | 'client' | 'aborted';

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get retryable(): boolean {
    return ['network', 'rate_limit', 'server', 'invalid_response'].includes(this.kind);
  }
}

export interface ClientOptions {
  service: 'catalog' | 'ratings';
  baseUrl: string;
  requestsPerSecond: number;
  maxConcurrent: number;
  dailyQuota: number;
  timeoutMs: number;
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  db: Queryable;
  log: FastifyBaseLogger;
  sleep?: Sleep;
  /** The day the quota is counted against (UTC); tests move it. */
  today?: () => string;
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export const utcDay = (d = new Date()) => d.toISOString().slice(0, 10);

export class ApiClient {
  private readonly bucket: TokenBucket;
  private readonly inFlight: Semaphore;
  private readonly sleep: Sleep;
  /** Requests actually sent (every attempt), for benchmarks and tests. */
  sent = 0;

  constructor(protected readonly opts: ClientOptions) {
    this.bucket = new TokenBucket(opts.requestsPerSecond);
    this.inFlight = new Semaphore(opts.maxConcurrent);
    this.sleep = opts.sleep ?? realSleep;
  }

  private today(): string {
    return this.opts.today?.() ?? utcDay();
  }

  /** Counts one request in the ledger unless the day's quota is spent (atomic across processes). */
  private async takeQuota(): Promise<void> {
    const day = this.today();
    const { rows } = await this.opts.db.query<{ used: number }>(
      `INSERT INTO api_quota (service, day, used) VALUES ($1, $2, 1)
       ON CONFLICT (service, day) DO UPDATE SET used = api_quota.used + 1 WHERE api_quota.used < $3
       RETURNING used`,
      [this.opts.service, day, this.opts.dailyQuota],
    );
    if (rows.length === 0) {
      throw new ApiError('quota', `${this.opts.service} daily quota of ${this.opts.dailyQuota} requests exhausted`);
    }
  }

  /** The provider said the quota is spent: record it so no process asks again today. */
  protected async markExhausted(): Promise<void> {
    const day = this.today();
    await this.opts.db.query(
      `INSERT INTO api_quota (service, day, used) VALUES ($1, $2, $3)
       ON CONFLICT (service, day) DO UPDATE SET used = GREATEST(api_quota.used, $3)`,
      // One over the limit marks "spent by the provider's word", which requests waiting for a slot check.
      [this.opts.service, day, this.opts.dailyQuota + 1],
    );
  }

  /** The ledger holds more than the limit only when the provider said the quota was spent. */
  private async spentByProvider(): Promise<boolean> {
    const { rows } = await this.opts.db.query<{ used: number }>('SELECT used FROM api_quota WHERE service = $1 AND day = $2', [
      this.opts.service,
      this.today(),
    ]);
    return (rows[0]?.used ?? 0) > this.opts.dailyQuota;
  }

  async quotaLeft(): Promise<number> {
    const { rows } = await this.opts.db.query<{ used: number }>('SELECT used FROM api_quota WHERE service = $1 AND day = $2', [
      this.opts.service,
      this.today(),
    ]);
    return Math.max(0, this.opts.dailyQuota - (rows[0]?.used ?? 0));
  }

  /** Maps a response to data or an ApiError; subclasses know their service's quirks. */
  protected async interpret(res: Response): Promise<unknown> {
    if (res.status === 429) throw new ApiError('rate_limit', 'rate limited (429)', 429, parseRetryAfter(res.headers.get('retry-after')));
    if (res.status === 404) throw new ApiError('not_found', 'not found (404)', 404);
    if (res.status === 401 || res.status === 403) throw new ApiError('auth', `authentication failed (${res.status})`, res.status);
    if (res.status >= 500) throw new ApiError('server', `server error (${res.status})`, res.status);
    if (res.status >= 400) throw new ApiError('client', `request refused (${res.status})`, res.status);
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new ApiError('invalid_response', `response is not JSON: ${this.scrub(text).slice(0, 80)}`, res.status);
    }
  }

  protected headers(): Record<string, string> {
    return { accept: 'application/json' };
  }

  /** Query parameters every request carries (an API key sent in the query). */
  protected authQuery(): Record<string, string> {
    return {};
  }

  /** Values that must never reach a log line or an error message: the API key, in whichever place it is sent. */
  protected secrets(): string[] {
    return [];
  }

  /** The text with every secret cut out (a proxy's error page may echo the request, key and all). */
  protected scrub(text: string): string {
    return this.secrets().reduce((t, s) => (s ? t.split(s).join('[redacted]') : t), text);
  }

  private redact(e: ApiError): ApiError {
    const message = this.scrub(e.message);
    return message === e.message ? e : new ApiError(e.kind, message, e.status, e.retryAfterMs);
  }

  /** GET with rate limiting, quota, timeout and retries (exponential backoff; Retry-After on 429). */
  protected async get(path: string, query: Record<string, string | number | boolean | undefined> = {}, signal?: AbortSignal): Promise<unknown> {
    const checkAborted = () => {
      if (signal?.aborted) throw new ApiError('aborted', 'run aborted');
    };
    const url = new URL(this.opts.baseUrl.replace(/\/?$/, '/') + path.replace(/^\//, ''));
    for (const [k, v] of Object.entries({ ...query, ...this.authQuery() })) if (v !== undefined) url.searchParams.set(k, String(v));
    // Logs name the path only: the query may hold the key.
    const safeUrl = `${url.origin}${url.pathname}`;
    for (let attempt = 0; ; attempt++) {
      try {
        checkAborted();
        await this.takeQuota();
        await this.bucket.take();
        return await this.inFlight.run(async () => {
          checkAborted();
          // The provider may have declared the quota spent while this request waited for a slot.
          if (await this.spentByProvider()) {
            throw new ApiError('quota', `${this.opts.service} daily quota exhausted`);
          }
          this.sent++;
          let res: Response;
          try {
            const timeout = AbortSignal.timeout(this.opts.timeoutMs);
            res = await fetch(url, { headers: this.headers(), signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
          } catch (err) {
            checkAborted();
            const e = err as Error;
            throw new ApiError('network', e.name === 'TimeoutError' ? `timed out after ${this.opts.timeoutMs} ms` : `network error: ${e.message}`);
          }
          return this.interpret(res);
        });
      } catch (err) {
        const e = this.redact(err instanceof ApiError ? err : new ApiError('invalid_response', (err as Error).message));
        const tooLong = e.retryAfterMs !== undefined && e.retryAfterMs > this.opts.maxRetryAfterMs;
        if (!e.retryable || attempt >= this.opts.retries || tooLong) {
          this.opts.log.warn({ service: this.opts.service, url: safeUrl, kind: e.kind, status: e.status, attempts: attempt + 1 }, e.message);
          throw e;
        }
        const backoff = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** attempt);
        const wait = e.retryAfterMs !== undefined ? Math.max(e.retryAfterMs, 0) : backoff;
        this.opts.log.info({ service: this.opts.service, url: safeUrl, kind: e.kind, status: e.status, retry_in_ms: wait }, 'retrying');
        await this.sleep(wait);
      }
    }
  }
}
