import { describe, expect, it } from 'vitest';
import { outcomeTable } from '../../src/movies/cli-output.js';
import { emptyStats } from '../../src/movies/collection-steps.js';
import type { Failure } from '../../src/movies/orchestrator.js';

const stats = emptyStats();

describe('collect CLI: the end-of-run table', () => {
  it('says that discovery failed, apart from the count of failed movie refreshes', () => {
    const table = outcomeTable({ ...stats, discovery_error: 'network error: fetch failed' });
    expect(table.discovery).toBe('failed');
    expect(table['movies failed']).toBe(0);
    expect(table).not.toHaveProperty('failures');
  });

  it('says discovery was done when it did not fail, and counts each failed refresh', () => {
    const failure: Failure = { tmdb_id: 1, step: 'ratings', kind: 'quota', message: 'daily quota reached' };
    const table = outcomeTable({ ...stats, discovered: 3, failures: [failure, { ...failure, tmdb_id: 2 }] });
    expect(table.discovery).toBe('done');
    expect(table.discovered).toBe(3);
    expect(table['movies failed']).toBe(2);
  });
});
