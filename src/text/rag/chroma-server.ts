// A local Chroma server (`chroma run` from the chromadb package) as a supervised child process:
// started on a free port, ready once its heartbeat answers, restarted if it dies, stopped on shutdown.
// It listens on loopback only, with a minimal environment (none of the service's secrets); the chromadb 3.0.4 server
// has no authentication (docs/operations.md, Security), so its folder is kept to the service's user.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { DirLock, currentCommand } from '../../infra/dir-lock.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** The package's `chroma` bin (its package.json is not exported, so it is found from the entry point). */
function chromaCli(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve('chromadb'));
  while (!existsSync(join(dir, 'package.json')) || (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== 'chromadb') {
    const up = dirname(dir);
    if (up === dir) throw new Error('chromadb package not found');
    dir = up;
  }
  const bin = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin: { chroma: string } }).bin.chroma;
  return join(dir, bin);
}

/**
 * A small guard process runs Chroma and stops it when our process goes away, even by SIGKILL: its IPC channel to
 * us closes then, so no Chroma server is left orphaned.
 */
const GUARD = `
const { spawn } = require('node:child_process');
const c = spawn(process.execPath, process.argv.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] });
const stop = () => { c.kill('SIGTERM'); setTimeout(() => c.kill('SIGKILL'), 5000).unref(); };
process.on('disconnect', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
c.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
`;

/** What Chroma may inherit: where programs and temporary files are, the locale and time zone. Nothing else. */
const INHERITED_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'LD_LIBRARY_PATH', 'SYSTEMROOT', 'WINDIR'];

/** The environment of the Chroma process: the few variables above, and telemetry off. */
export function chromaEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept = Object.fromEntries(INHERITED_ENV.filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));
  return { ...kept, CHROMA_TELEMETRY: 'false', ANONYMIZED_TELEMETRY: 'false' };
}

export async function heartbeat(url: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/v2/heartbeat`, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch {
    return false;
  }
}

export class ChromaServer {
  private child: ChildProcess | null = null;
  private stopping = false;
  private restarts = 0;
  private ready: Promise<void> | null = null;
  /** This process's hold on the data directory: two Chroma servers on one directory corrupt it. */
  private lock: DirLock | null = null;
  url = '';

  constructor(
    private readonly dataPath: string,
    private readonly log: FastifyBaseLogger,
    private readonly startTimeoutMs = 30_000,
    private readonly owner = currentCommand(),
  ) {}

  /** Starts the server (once) and resolves when its heartbeat answers. */
  start(): Promise<void> {
    this.ready ??= this.launch().catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  private port = 0;

  private async launch(): Promise<void> {
    this.lock ??= await DirLock.acquire(this.dataPath, this.owner);
    // Any local user could otherwise read the vectors and the documents' text from the files directly.
    await mkdir(this.dataPath, { recursive: true, mode: 0o700 });
    await chmod(this.dataPath, 0o700);
    // The port is chosen once: a restarted server comes back where clients already point.
    this.port ||= await freePort();
    const port = this.port;
    this.url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['-e', GUARD, chromaCli(), 'run', '--path', this.dataPath, '--port', String(port), '--host', '127.0.0.1'], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // Not the service's environment: ADMIN_TOKEN, API keys and DATABASE_URL are none of Chroma's business.
      env: chromaEnv(),
    });
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.once('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      if (this.stopping) return;
      this.log.error({ code, signal, stderr: stderr.slice(-500) }, 'Chroma server exited: restarting');
      this.ready = null;
      this.restarts++;
      // Back off a little on repeated crashes; the next request waits for the new server.
      void sleep(Math.min(5000, 200 * this.restarts)).then(() => {
        if (!this.stopping) this.start().catch((err: unknown) => this.log.error({ err }, 'Chroma restart failed'));
      });
    });
    const deadline = Date.now() + this.startTimeoutMs;
    while (Date.now() < deadline) {
      if (!this.child) throw new Error(`Chroma server exited during start-up: ${stderr.slice(-300)}`);
      if (await heartbeat(this.url)) {
        this.log.info({ url: this.url, path: this.dataPath, pid: child.pid }, 'Chroma server ready');
        return;
      }
      await sleep(100);
    }
    child.kill('SIGKILL');
    throw new Error(`Chroma server did not answer within ${this.startTimeoutMs} ms`);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get restartCount(): number {
    return this.restarts;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
      if (!killed) child.kill('SIGKILL');
      await exited;
    }
    this.lock?.release();
    this.lock = null;
  }
}
