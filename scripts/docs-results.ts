// npm run docs:results [-- --check]: rewrites the docs' tables and figures from the results files under docs/results/
// (each between `<!-- results:<file>:<view> -->` and `<!-- /results -->`); --check only says which docs would change.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { RESULTS_DOCS, renderResults } from './lib/results-docs.js';

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });

let stale = 0;
for (const doc of RESULTS_DOCS) {
  const file = fromRoot(doc);
  const before = readFileSync(file, 'utf8');
  const after = renderResults(before);
  if (after === before) continue;
  stale++;
  if (values.check) console.log(`${doc}: out of date with its results files`);
  else {
    writeFileSync(file, after);
    console.log(`${doc}: figures rewritten from docs/results/`);
  }
}
if (values.check && stale) process.exit(1);
if (!stale) console.log('every figure agrees with its results file');
