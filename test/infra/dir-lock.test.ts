import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { DirLock, DirLockedError, lockOwner, processStart } from '../../src/infra/dir-lock.js';
import { PROJECT_ROOT } from '../../src/infra/paths.js';
import { makeApp, tempDir } from '../helpers/app.js';

const dirs: string[] = [];
const dir = (name: string) => {
  const root = tempDir('lock-');
  dirs.push(root);
  return join(root, name);
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A separate process that takes the lock on `target`, says "locked", and waits (or exits when told). */
function holder(target: string, command = 'holder', startAt = 0): { child: ChildProcess; locked: Promise<string> } {
  const code = `
    const { DirLock } = await import(${JSON.stringify(join(PROJECT_ROOT, 'src/infra/dir-lock.ts'))});
    // Racers start together: each waits for the same moment.
    while (Date.now() < ${startAt}) await new Promise((r) => setTimeout(r, 1));
    try {
      await DirLock.acquire(process.argv[1], process.argv[2]);
      console.log('locked');
    } catch (err) {
      console.log('refused: ' + err.message);
    }
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, target, command], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const locked = new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
  });
  return { child, locked };
}

const killed = (child: ChildProcess) => new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));

describe('data directory lock', () => {
  it('is refused while another live process holds it, naming that process', async () => {
    const target = dir('pglite');
    const h = holder(target, 'npm run collect');
    expect(await h.locked).toBe('locked');
    try {
      const err = await DirLock.acquire(target, 'service').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DirLockedError);
      expect((err as DirLockedError).owner).toMatchObject({ pid: h.child.pid, command: 'npm run collect' });
      expect((err as Error).message).toContain(`npm run collect (pid ${h.child.pid})`);
      expect(lockOwner(`${target}.lock`)?.pid).toBe(h.child.pid);
    } finally {
      h.child.kill('SIGKILL');
      await killed(h.child);
    }
  });

  it('is taken over after its process was killed, and the new owner is recorded', async () => {
    const target = dir('chroma');
    const h = holder(target);
    expect(await h.locked).toBe('locked');
    h.child.kill('SIGKILL');
    await killed(h.child);
    // The file is still there: nothing removed it.
    expect(existsSync(`${target}.lock`)).toBe(true);
    expect(lockOwner(`${target}.lock`)).toBeNull();
    const lock = await DirLock.acquire(target, 'service');
    expect(JSON.parse(readFileSync(`${target}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, command: 'service' });
    lock.release();
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it('does not mistake a process that reused the pid for the owner', async () => {
    const target = dir('pglite');
    // The owner recorded this process's pid with a different start time: a later process with the same pid is not it.
    writeFileSync(`${target}.lock`, JSON.stringify({ pid: process.pid, started: (processStart(process.pid) ?? 0) + 12345, command: 'old', since: 'then' }));
    const lock = await DirLock.acquire(target, 'service');
    expect(lock.info.command).toBe('service');
    lock.release();
  });

  it('lets exactly one of several processes take over a stale lock at the same time', async () => {
    const target = dir('pglite');
    writeFileSync(`${target}.lock`, JSON.stringify({ pid: 999_999_999, started: null, command: 'gone', since: 'then' }));
    const startAt = Date.now() + 3000;
    const takers = Array.from({ length: 6 }, () => holder(target, 'taker', startAt));
    try {
      const outcomes = await Promise.all(takers.map((t) => t.locked));
      expect(outcomes.filter((o) => o === 'locked')).toHaveLength(1);
      expect(outcomes.filter((o) => o.startsWith('refused: '))).toHaveLength(5);
      const winner = takers[outcomes.indexOf('locked')]!.child.pid;
      expect(lockOwner(`${target}.lock`)?.pid).toBe(winner);
    } finally {
      for (const t of takers) t.child.kill('SIGKILL');
      await Promise.all(takers.map((t) => killed(t.child)));
    }
  });

  it('adds the service URL to the record without letting go of the lock', async () => {
    const target = dir('service');
    const lock = await DirLock.acquire(target, 'service');
    lock.update({ url: 'http://127.0.0.1:5000' });
    expect(lockOwner(`${target}.lock`)).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:5000' });
    await expect(DirLock.acquire(target, 'other')).rejects.toBeInstanceOf(DirLockedError);
    lock.release();
    await sleep(1);
    expect(lockOwner(`${target}.lock`)).toBeNull();
  });
});

describe('a service that finds the embedded database held', () => {
  it('serves the other domains, says who holds it, and opens the collection once it is released', async () => {
    const dataDir = tempDir('held-db-');
    dirs.push(dataDir);
    const cli = await DirLock.acquire(join(dataDir, 'pglite'), 'npm run collect');
    const app = await makeApp({ DATA_DIR: dataDir, RAG_INDEX_ON_START: false });
    try {
      const starting = app.movies.start();
      // Until the start has met the lock (a moment, or seconds on a busy machine).
      const deadline = Date.now() + 15_000;
      let health = (await app.inject({ url: '/health' })).json();
      while (!health.components.movies.error && Date.now() < deadline) {
        await sleep(50);
        health = (await app.inject({ url: '/health' })).json();
      }
      // (Held by this very process here, so the message says "this process"; elsewhere it names the command and pid.)
      expect(health.components.movies.error).toMatch(/pglite\.lock in .* is in use by/);
      expect(
        (await app.inject({ method: 'POST', url: '/api/predict', payload: { pclass: 1, sex: 'female', age: 30, sibsp: 0, parch: 0, embarked: 'S' } }))
          .statusCode,
      ).toBe(200);
      cli.release();
      await starting;
      expect((await app.inject({ url: '/api/collection/status' })).statusCode).toBe(200);
      expect(lockOwner(join(dataDir, 'pglite.lock'))).toMatchObject({ pid: process.pid, command: 'service' });
    } finally {
      cli.release();
      await app.close();
    }
  });
});
