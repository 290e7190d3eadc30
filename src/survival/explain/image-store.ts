// The explanation image folder: unique names, atomic writes, and a bound on count and age (oldest go first).
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';

const FINAL = /^shap_explanation_(\d{8})_(\d{6})_[0-9a-f]+\.png$/;

function stamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

function timeOf(name: string): number {
  const m = FINAL.exec(name);
  if (!m) return NaN;
  const [d, t] = [m[1]!, m[2]!];
  return Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8), +t.slice(0, 2), +t.slice(2, 4), +t.slice(4, 6));
}

export interface ImageStoreOptions {
  dir: string;
  maxCount: number;
  maxAgeS: number;
  log: FastifyBaseLogger;
}

export class ImageStore {
  private pruning: Promise<void> | null = null;
  private pruneAgain = false;

  constructor(private readonly opts: ImageStoreOptions) {}

  /**
   * Writes under a hidden temporary name, then renames: readers never see a partial file, and pruning,
   * which only looks at final names, never deletes a file that is being written.
   */
  async save(png: Buffer, now = new Date()): Promise<string> {
    const name = `shap_explanation_${stamp(now)}_${randomBytes(6).toString('hex')}.png`;
    const tmp = join(this.opts.dir, `.tmp-${name}`);
    await writeFile(tmp, png, { flag: 'wx' });
    await rename(tmp, join(this.opts.dir, name));
    void this.prune();
    return name;
  }

  /** One pruning pass at a time; a request during a pass schedules one more pass after it. */
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

  private async pruneOnce(): Promise<void> {
    // Names carry their UTC creation second, so sorting names sorts by age without a stat per file.
    const names = (await readdir(this.opts.dir)).filter((n) => FINAL.test(n)).sort();
    const cutoff = Date.now() - this.opts.maxAgeS * 1000;
    const excess = names.length - this.opts.maxCount;
    const doomed = names.filter((n, i) => i < excess || timeOf(n) < cutoff);
    await Promise.all(doomed.map((n) => rm(join(this.opts.dir, n), { force: true })));
    if (doomed.length) this.opts.log.debug({ removed: doomed.length }, 'pruned explanation images');
  }

  async count(): Promise<number> {
    return (await readdir(this.opts.dir)).filter((n) => FINAL.test(n)).length;
  }
}
