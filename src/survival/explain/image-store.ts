// Where explanation images live: a folder (one process), or PostgreSQL (replicas that share it, so that an image URL
// from one answers on all). Unique names, atomic writes, and a bound on count and age (oldest go first).
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../infra/db.js';

export const IMAGE_NAME = /^shap_explanation_(\d{8})_(\d{6})_[0-9a-f]+\.png$/;

function stamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

function timeOf(name: string): number {
  const m = IMAGE_NAME.exec(name);
  if (!m) return NaN;
  const [d, t] = [m[1]!, m[2]!];
  return Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8), +t.slice(0, 2), +t.slice(2, 4), +t.slice(4, 6));
}

export interface ImageStore {
  /** Stores a PNG under a new unique name and returns the name. */
  save(png: Buffer, now?: Date): Promise<string>;
  /** Enforces the bounds; one pass at a time. */
  prune(): Promise<void>;
  count(): Promise<number>;
  /** The PNG stored under `name`, or null for any name that is not an image name, or for no such image. */
  read(name: string): Promise<Buffer | null>;
}

export interface ImageStoreOptions {
  maxCount: number;
  maxAgeS: number;
  log: FastifyBaseLogger;
}

const newName = (now: Date) => `shap_explanation_${stamp(now)}_${randomBytes(6).toString('hex')}.png`;

/** One pruning pass at a time; a request during a pass schedules one more pass after it. */
abstract class PrunedStore {
  private pruning: Promise<void> | null = null;
  private pruneAgain = false;

  constructor(protected readonly opts: ImageStoreOptions) {}

  protected abstract pruneOnce(): Promise<void>;

  prune(): Promise<void> {
    if (this.pruning) {
      this.pruneAgain = true;
      return this.pruning;
    }
    this.pruning = (async () => {
      do {
        this.pruneAgain = false;
        await this.pruneOnce().catch((err: unknown) => this.opts.log.warn({ err }, 'image pruning failed'));
      } while (this.pruneAgain);
      this.pruning = null;
    })();
    return this.pruning;
  }
}

export class DiskImageStore extends PrunedStore implements ImageStore {
  constructor(opts: ImageStoreOptions & { dir: string }) {
    super(opts);
    this.dir = opts.dir;
  }

  readonly dir: string;

  /**
   * Writes under a hidden temporary name, then renames: readers never see a partial file, and pruning,
   * which only looks at final names, never deletes a file that is being written.
   */
  async save(png: Buffer, now = new Date()): Promise<string> {
    const name = newName(now);
    const tmp = join(this.dir, `.tmp-${name}`);
    await writeFile(tmp, png, { flag: 'wx' });
    await rename(tmp, join(this.dir, name));
    // Awaited (it never rejects): once a response is sent, the folder is back within its bounds.
    await this.prune();
    return name;
  }

  protected async pruneOnce(): Promise<void> {
    // Names carry their UTC creation second, so sorting names sorts by age without a stat per file.
    const names = (await readdir(this.dir)).filter((n) => IMAGE_NAME.test(n)).sort();
    const cutoff = Date.now() - this.opts.maxAgeS * 1000;
    const excess = names.length - this.opts.maxCount;
    const doomed = names.filter((n, i) => i < excess || timeOf(n) < cutoff);
    await Promise.all(doomed.map((n) => rm(join(this.dir, n), { force: true })));
    if (doomed.length) this.opts.log.debug({ removed: doomed.length }, 'pruned explanation images');
  }

  async count(): Promise<number> {
    return (await readdir(this.dir)).filter((n) => IMAGE_NAME.test(n)).length;
  }

  /**
   * Only what save() wrote: an image name, a regular file with one link, in this folder itself. A symlink is refused
   * when opened (O_NOFOLLOW), a hard link to a file elsewhere by its link count, and the folder is compared by its
   * real path, so nothing placed in the folder can serve a file outside it.
   */
  async read(name: string): Promise<Buffer | null> {
    if (!IMAGE_NAME.test(name)) return null;
    const path = join(this.dir, name);
    let file;
    try {
      file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return null; // absent, a symlink (ELOOP), or unreadable: all the same to a client
    }
    try {
      const stat = await file.stat();
      if (!stat.isFile() || stat.nlink !== 1 || stat.size > MAX_IMAGE_BYTES) return null;
      if (dirname(await realpath(path)) !== (await realpath(this.dir))) return null;
      return await file.readFile();
    } finally {
      await file.close();
    }
  }
}

/** Larger than any plot the service draws (about 100 KB): a bigger file there was not written by it. */
const MAX_IMAGE_BYTES = 16 * 1024 * 1024;

/** Images as rows (explanation_images): the same names, URLs and bounds, visible to every replica. */
export class PgImageStore extends PrunedStore implements ImageStore {
  constructor(
    private readonly db: () => Promise<Db>,
    opts: ImageStoreOptions,
  ) {
    super(opts);
  }

  async save(png: Buffer, now = new Date()): Promise<string> {
    const name = newName(now);
    await (await this.db()).query('INSERT INTO explanation_images (name, png, created_at) VALUES ($1, $2, $3)', [name, png, now]);
    await this.prune();
    return name;
  }

  async read(name: string): Promise<Buffer | null> {
    if (!IMAGE_NAME.test(name)) return null;
    const { rows } = await (await this.db()).query<{ png: Uint8Array }>('SELECT png FROM explanation_images WHERE name = $1', [name]);
    return rows[0] ? Buffer.from(rows[0].png) : null;
  }

  protected async pruneOnce(): Promise<void> {
    const { rows } = await (
      await this.db()
    ).query<{ name: string }>(
      `DELETE FROM explanation_images
       WHERE created_at < now() - make_interval(secs => $1)
          OR name IN (SELECT name FROM explanation_images ORDER BY created_at DESC, name DESC OFFSET $2)
       RETURNING name`,
      [this.opts.maxAgeS, this.opts.maxCount],
    );
    if (rows.length) this.opts.log.debug({ removed: rows.length }, 'pruned explanation images');
  }

  async count(): Promise<number> {
    const { rows } = await (await this.db()).query<{ n: string | number }>('SELECT count(*) AS n FROM explanation_images');
    return Number(rows[0]?.n ?? 0);
  }
}
