// npm run docs:config: rewrites the configuration table of README.md from the configuration schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { fromRoot } from '../src/infra/paths.js';
import { withConfigTable } from './lib/config-table.js';

const file = fromRoot('README.md');
writeFileSync(file, withConfigTable(readFileSync(file, 'utf8')));
console.log('README.md: configuration table rewritten');
