// One owner per data directory: a lock file beside it (`<dir>.lock`) that names the owning process. It is created
// atomically (written under a temporary name, then hard-linked into place, which fails if the lock exists), and a
// lock whose process is gone is taken over, one taker at a time, only after checking that the process is gone.
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LockOwner {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), so that a reused pid is not mistaken for the owner. */
  started: number | null;
  /** What holds the lock, for people: "service", "npm run collect", ... */
  command: string;
  /** Where the owning service answers, once it listens. */
  url?: string;
  /** The folder of documents the owning service indexes (absolute), so that a CLI can tell whether it is the one meant. */
  docsDir?: string;
  since: string;
}

export class DirLockedError extends Error {
  constructor(
    readonly path: string,
    readonly owner: LockOwner,
  ) {
    const who = owner.pid === process.pid ? 'this process' : `${owner.command} (pid ${owner.pid})`;
    super(`${basename(path)} in ${dirname(path)} is in use by ${who} since ${owner.since}`);
    this.name = 'DirLockedError';
  }
}

/** The start time of a process, from /proc (null where there is no /proc). */
export function processStart(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]);
  } catch {
    return null;
  }
}

/** True when the process that wrote the lock still runs (the same process, not a later one with its pid). */
export function isAlive(owner: Pick<LockOwner, 'pid' | 'started'>): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (owner.started === null) return true;
  const started = processStart(owner.pid);
  return started === null || started === owner.started;
}

function readOwner(path: string): LockOwner | null | 'corrupt' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : 'corrupt';
  } catch {
    return 'corrupt';
  }
}

/** The live owner of the lock at `path`, or null when it is free or stale. */
export function lockOwner(path: string): LockOwner | null {
  const owner = readOwner(path);
  return owner && owner !== 'corrupt' && isAlive(owner) ? owner : null;
}

/** Creates `path` with `content` only if it does not exist; the content is complete whenever the file is visible. */
function createExclusive(path: string, content: string): boolean {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(tmp, content);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

export class DirLock {
  private released = false;
  private readonly onExit = () => this.releaseSync();

  private constructor(
    readonly path: string,
    private owner: LockOwner,
  ) {
    // A normal exit (even without close) frees the directory; a killed process leaves a stale lock that is taken over.
    process.once('exit', this.onExit);
  }

  /** Takes the lock for `dir` (the file `<dir>.lock`), or throws DirLockedError naming the live owner. */
  static async acquire(dir: string, command: string): Promise<DirLock> {
    const path = `${dir}.lock`;
    const owner: LockOwner = { pid: process.pid, started: processStart(process.pid), command, since: new Date().toISOString() };
    const content = JSON.stringify(owner);
    for (let attempt = 0; attempt < 100; attempt++) {
      if (createExclusive(path, content)) return new DirLock(path, owner);
      const current = readOwner(path);
      if (current === null) continue; // released in between
      if (current !== 'corrupt' && isAlive(current)) throw new DirLockedError(path, current);
      // Stale. Only the process holding the takeover file may remove it, and it checks again first: two takers that
      // both saw the stale lock must not remove each other's fresh one.
      const takeover = `${path}.takeover`;
      if (createExclusive(takeover, content)) {
        try {
          const again = readOwner(path);
          if (again !== null && (again === 'corrupt' || !isAlive(again))) rmSync(path, { force: true });
        } finally {
          rmSync(takeover, { force: true });
        }
        continue;
      }
      const taker = readOwner(takeover);
      if (taker === 'corrupt' || (taker && !isAlive(taker))) rmSync(takeover, { force: true });
      await sleep(20);
    }
    throw new Error(`could not take the lock ${path}`);
  }

  get info(): LockOwner {
    return this.owner;
  }

  /** Rewrites the owner record (the service adds its URL once it listens); the lock stays held throughout. */
  update(patch: Partial<Pick<LockOwner, 'url' | 'command' | 'docsDir'>>): void {
    if (this.released) return;
    this.owner = { ...this.owner, ...patch };
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.owner));
    renameSync(tmp, this.path);
  }

  release(): void {
    this.releaseSync();
    process.removeListener('exit', this.onExit);
  }

  private releaseSync(): void {
    if (this.released) return;
    this.released = true;
    // Remove it only while it is still ours.
    const current = readOwner(this.path);
    if (current && current !== 'corrupt' && current.pid === this.owner.pid && current.started === this.owner.started) rmSync(this.path, { force: true });
  }
}

/** How this process was started, for the lock's owner record ("npm run collect", "node dist/src/server.js"). */
export function currentCommand(): string {
  const event = process.env.npm_lifecycle_event;
  if (event) return `npm run ${event}`;
  return [basename(process.argv0), ...process.argv.slice(1, 2).map((a) => a.replace(/^.*\/(src|dist|scripts)\//, '$1/'))].join(' ');
}
