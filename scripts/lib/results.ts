// Evaluation and benchmark results as JSON under docs/results/, with what they were measured on: the commit, the date,
// the machine (cores, load) and Node's version. The docs' tables are generated from these files (npm run docs:results).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../src/infra/paths.js';

export interface ResultsEnvelope<T> {
  name: string;
  command: string;
  commit: string;
  /** true when the working tree had uncommitted changes (outside docs/results/): the figures belong to the commit plus those changes. */
  dirty: boolean;
  date: string;
  /** load_1m: the 1-minute load average when the run ended; near or above `cores`, other work shared the machine. */
  machine: { cores: number; cpu: string; memory_gb: number; node: string; load_1m?: number };
  results: T;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** How the figures were produced: the npm script, or the script file when it ran through npx or node directly. */
function commandLine(name: string): string {
  const args = process.argv.slice(2);
  const rest = args.length ? ` ${args.join(' ')}` : '';
  const script = process.env.npm_lifecycle_event;
  if (script && script !== 'npx') return `npm run ${script}${rest ? ` --${rest}` : ''}`;
  const file = process.argv[1] ? relative(PROJECT_ROOT, process.argv[1]) : name;
  return `npx tsx ${file}${rest}`;
}

/** A figure for a results file: four decimals. */
export const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** Writes docs/results/<name>.json and returns its path relative to the project root. */
export function writeResults<T>(name: string, results: T): string {
  const envelope: ResultsEnvelope<T> = {
    name,
    command: commandLine(name),
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    // Results files are what runs write, not what they run on: one written earlier in the same run (eval:sentiment
    // -- --benchmarks writes two) or by an earlier run does not make these figures those of a changed tree.
    dirty: git(['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)docs/results']) !== '',
    date: new Date().toISOString(),
    machine: {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? 'unknown',
      memory_gb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      load_1m: Math.round(loadavg()[0]! * 10) / 10,
    },
    results,
  };
  const dir = join(PROJECT_ROOT, 'docs', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(envelope, null, 2)}\n`);
  return `docs/results/${name}.json`;
}
