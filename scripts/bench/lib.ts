// Shared benchmark helpers: start the built service as a child process, drive it with autocannon, report medians.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { PROJECT_ROOT } from '../../src/infra/paths.js';

export interface Service {
  url: string;
  child: ChildProcess;
  /** The service's temporary DATA_DIR, removed by stop(). */
  dataDir: string;
  stop(): Promise<void>;
}

/** The glibc allocator settings `npm start` and the Dockerfile use (docs/operations.md, "Memory"). */
export const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' };
/** Node's own flags in `npm start` and the Dockerfile: a 4 MB young generation. */
export const NODE_FLAGS = ['--max-semi-space-size=4'];

/** Builds with tsc and starts `node --max-semi-space-size=4 dist/src/server.js` on a free port, as in production. */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
  const child = spawn(process.execPath, [...NODE_FLAGS, 'dist/src/server.js'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...MALLOC_ENV, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/live`)).ok) break;
    } catch {
      await sleep(100);
    }
  }
  return {
    url,
    child,
    dataDir,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the parts the service opens after its port (the movie database, the document index, the answer step's
 * start-up work) are up and done, so that a memory reading covers the whole service and no timed request waits behind
 * start-up work. It reads /health, not /ready, whose first call would load the sentiment models.
 */
export async function settled(url: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const health = (await (await fetch(`${url}/health`)).json()) as {
      components: Record<string, { ready: boolean; answer_step?: string }>;
    };
    const stats = await fetch(`${url}/rag/stats`);
    const index = stats.ok ? ((await stats.json()) as { chunks: number; indexing: boolean }) : null;
    // The answer step's start-up work (a question of its own, the read-ahead, in the worker) is over too: a benchmark
    // that started during it would time requests queued behind it.
    const answerStep = health.components.rag?.answer_step === 'loaded';
    if (health.components.movies?.ready && index && index.chunks > 0 && !index.indexing && answerStep) return;
    await sleep(250);
  }
  throw new Error('the service did not settle');
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(opts: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon({ connections: 32, duration: 10, ...opts });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export function percentile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** One JSON POST, timed to the last byte of the answer; a non-2xx answer stops the benchmark. */
export async function timedPost(url: string, body: unknown): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: status ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
  return performance.now() - t;
}
