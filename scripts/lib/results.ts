// Evaluation and benchmark results as JSON under docs/results/, with what they were measured on: the commit, the date,
// the machine's core count and Node's version. README tables name the file they come from.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/infra/paths.js';

export interface ResultsEnvelope<T> {
  name: string;
  command: string;
  commit: string;
  /** true when the working tree had uncommitted changes: the figures belong to the commit plus those changes. */
  dirty: boolean;
  date: string;
  machine: { cores: number; cpu: string; memory_gb: number; node: string };
  results: T;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** Writes docs/results/<name>.json and returns its path relative to the project root. */
export function writeResults<T>(name: string, results: T): string {
  const envelope: ResultsEnvelope<T> = {
    name,
    command: `npm run ${process.env.npm_lifecycle_event ?? name}${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
    date: new Date().toISOString(),
    machine: {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? 'unknown',
      memory_gb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    results,
  };
  const dir = join(PROJECT_ROOT, 'docs', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(envelope, null, 2)}\n`);
  return `docs/results/${name}.json`;
}
