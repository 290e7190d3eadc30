// npm run index [-- --full]: (re)indexes DOCS_DIR from the shell, with a progress bar, through the same service.
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../infra/config.js';

const { values } = parseArgs({ options: { full: { type: 'boolean', default: false } } });
const config = loadConfig();
// Silent app: the progress bar and the summary are the output.
const app = await buildApp({ config: { ...config, LOG_LEVEL: 'warn' } });
const bar = new cliProgress.SingleBar({ format: ' indexing |{bar}| {value}/{total} files  {file}', noTTYOutput: true, notTTYSchedule: 2000 }, cliProgress.Presets.shades_classic);
try {
  const rag = await app.rag.service();
  let started = false;
  const result = await rag.index({ full: values.full }, (done, total, file) => {
    if (!started) {
      bar.start(total, 0, { file: '' });
      started = true;
    }
    bar.update(done, { file });
  });
  bar.stop();
  console.table({
    documents: result.documents,
    'files added': result.files_added,
    'files changed': result.files_changed,
    'files unchanged': result.files_unchanged,
    'files removed': result.files_removed,
    'chunks added': result.chunks_added,
    'chunks removed': result.chunks_removed,
    'chunks unchanged': result.chunks_unchanged,
    'seconds': result.duration_ms / 1000,
  });
  for (const e of result.errors) console.error(`skipped ${e.source}: ${e.error}`);
} finally {
  await app.close();
}
