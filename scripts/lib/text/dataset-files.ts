// Where the text training and evaluation scripts find their data: data/datasets/<folder>/<file> under the project
// root by default (git-ignored; the folder and file names of the data sets' README), or the folder given by --data.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../../src/infra/paths.js';

export const DEFAULT_DATASETS = 'data/datasets';

/** What to run when a data set is missing. */
export const FETCH_HINT = 'run: npm run data:fetch -- --from ../shared/data';

/** The data folder (relative paths are taken from the project root); throws with the fetch hint if a file is missing. */
export function datasetsDir(dir: string, required: string[]): string {
  const root = fromRoot(dir);
  const missing = required.filter((f) => !existsSync(join(root, f)));
  if (missing.length) throw new Error(`missing ${missing.map((f) => join(dir, f)).join(', ')}; ${FETCH_HINT}`);
  return root;
}
