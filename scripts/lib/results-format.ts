// Shared formatting of the docs' figures (results-docs.ts and its views per domain): numbers, shares, tables and the
// line that says where and when a table was measured.
import type { ResultsEnvelope } from './results.js';

export type Results = ResultsEnvelope<unknown>;
export type View = (r: Results) => string;
/** A view over one results file's shape, as its script writes it (a field it lacks fails the render: renderResults in results-docs.ts). */
export const view =
  <T>(render: (x: T) => string): View =>
  (r) =>
    render(r.results as T);

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const fixed = (n: number, digits: number) => Number(n).toFixed(digits);
export const pct = (x: number) => `${Math.round(x * 100)}%`;
export const ms = (n: number) => (Number(n) < 1 ? 'under 1 ms' : `${int(Number(n))} ms`);
export const secs = (msValue: number) => `${fixed(msValue / 1000, 1)} s`;
/** A rate: whole requests from 100 a second up, one decimal below. */
export const rate = (n: number) => (n >= 100 ? int(n) : fixed(n, 1));
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The line under a table: the command, the commit (and whether the tree had changes), the date and the machine. */
export function provenance(r: Results): string {
  const m = r.machine;
  const load = m.load_1m === undefined ? '' : `, load ${fixed(m.load_1m, 1)}`;
  const commit = r.dirty ? `commit ${r.commit} plus uncommitted changes` : `commit ${r.commit}`;
  return `\`${r.command}\` at ${commit}, ${r.date.slice(0, 10)}; ${m.cores} cores (${m.cpu.trim()}), ${m.memory_gb} GB${load}, Node ${m.node}.`;
}

export const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
