// The docs' figures and the results files they come from: a table that disagrees with its file fails here (run
// `npm run docs:results`), as does a doc that cites a results file the repository does not hold.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { RESULTS_DOCS, citedResults, readResults, renderResults } from '../../scripts/lib/results-docs.js';

const docs = [...new Set([...RESULTS_DOCS, 'docs/operations.md', 'docs/survival.md', 'docs/movies.md', 'docs/api.md'])];

describe('figures generated from docs/results/', () => {
  it.each(RESULTS_DOCS)('%s agrees with its results files (npm run docs:results rewrites it)', (doc) => {
    const text = readFileSync(fromRoot(doc), 'utf8');
    expect(text).toContain('<!-- results:');
    expect(renderResults(text)).toBe(text);
  });

  it.each(docs)('%s cites only results files that exist', (doc) => {
    const missing = citedResults(readFileSync(fromRoot(doc), 'utf8')).filter((name) => !existsSync(fromRoot(`docs/results/${name}.json`)));
    expect(missing).toEqual([]);
  });

  it('rewrites a table and an inline figure when their results file changes, and says where it was measured', () => {
    const doc =
      'Before.\n<!-- results:bench-soak:table -->\nstale table\n<!-- /results -->\nIt ends at <!-- results:bench-soak:rss-end -->1 MB<!-- /results -->.\n';
    const real = readResults('bench-soak');
    const results = real.results as { rss_mb: Record<string, number> };
    const changed = { ...real, commit: 'abc1234', dirty: true, results: { ...results, rss_mb: { ...results.rss_mb, end: 777 } } };
    const out = renderResults(doc, () => changed);
    expect(out).not.toContain('stale table');
    expect(out).toMatch(/\| predict \(4\) \| [\d.]+ \|/);
    expect(out).toContain('at commit abc1234 plus uncommitted changes');
    expect(out).toContain('It ends at <!-- results:bench-soak:rss-end -->777 MB<!-- /results -->.');
    // Rendering is stable: a second run changes nothing.
    expect(renderResults(out, () => changed)).toBe(out);
  });

  it('refuses a marker with no view, rather than leaving its figures unchecked', () => {
    expect(() => renderResults('<!-- results:bench-soak:nonsense -->x<!-- /results -->')).toThrow(/no view "nonsense"/);
  });
});
