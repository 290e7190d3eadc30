// Real processes for tests: the service (src/server.ts under tsx), the command-line tools, and what they leave behind.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lockOwner } from '../../src/infra/dir-lock.js';
import { PROJECT_ROOT } from '../../src/infra/paths.js';

/**
 * The environment of a test process: the parent's minus anything the developer's shell could leak in. No rate limit
 * and no load shedding (on a loaded machine a slow start lags the event loop, and requests would get 503) unless set.
 */
export function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (/^(DATABASE_URL|CHROMA_URL|LLM_|CATALOG_|RATINGS_|ADMIN_TOKEN|npm_)/.test(k)) delete base[k];
  return { ...base, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', RATE_LIMIT_MAX: '0', MAX_EVENT_LOOP_DELAY_MS: '0', ...env };
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Waits for the service that owns `dataDir` to advertise its URL in DATA_DIR/service.lock. */
export async function serviceUrl(dataDir: string, timeoutMs = 60_000, child?: ChildProcess, output = () => ''): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const url = lockOwner(join(dataDir, 'service.lock'))?.url;
    if (url) return url;
    if (child && child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) before listening:\n${output()}`);
    await sleep(100);
  }
  throw new Error(`no service listening for ${dataDir}:\n${output()}`);
}

/** Starts `node --import tsx src/server.ts` (or another command) and waits until it listens. */
export async function startService(
  env: Record<string, string>,
  command: string[] = [process.execPath, '--import', 'tsx', 'src/server.ts'],
): Promise<ServiceProcess> {
  const child = spawn(command[0]!, command.slice(1), { cwd: PROJECT_ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await serviceUrl(env.DATA_DIR!, 60_000, child, () => out);
  return {
    child,
    url,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Waits for GET /ready to answer 200. */
export async function whenReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/ready`).catch(() => null);
    if (res?.status === 200) return;
    last = res ? await res.text() : 'no answer';
    await sleep(200);
  }
  throw new Error(`not ready after ${timeoutMs} ms: ${last}`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command-line tool (a TypeScript file under tsx) to the end. */
export function runCli(file: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { cwd: PROJECT_ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not finish within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Process ids whose command line contains `text` (pgrep -f), other than this test's own. */
export function processesMatching(text: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', '--', text], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `check` holds, up to `timeoutMs`; returns whether it did. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(100);
  }
  return check();
}
