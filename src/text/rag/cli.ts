// npm run index [-- --full]: (re)indexes DOCS_DIR with a progress bar. When a service runs on the same DATA_DIR, the
// service does it (POST /rag/index) and this follows its progress; otherwise this process opens the index itself.
import cliProgress from 'cli-progress';
import { buildApp } from '../../app.js';
import { cliArgs } from '../../infra/cli-args.js';
import { type Config, loadConfig } from '../../infra/config.js';
import { DirLockedError } from '../../infra/dir-lock.js';
import { fromRoot } from '../../infra/paths.js';
import { callService, findRunningService, unreachableMessage } from '../../infra/running-service.js';
import { type IndexProgress, type IndexResult, RagBusyError } from './service.js';

const values = cliArgs(
  { full: { type: 'boolean', default: false } },
  'usage: npm run index [-- --full]\n(Re)indexes DOCS_DIR: new and changed files, or every file with --full. A service running on the same DATA_DIR does it.',
);

function progressBar() {
  const bar = new cliProgress.SingleBar(
    { format: ' indexing |{bar}| {value}/{total} files  {file}', noTTYOutput: true, notTTYSchedule: 2000 },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done: number, total: number, file: string) {
      if (!started) bar.start(total, 0, { file: '' });
      started = true;
      bar.setTotal(total);
      bar.update(done, { file });
    },
    /** The run has ended: the bar shows every file done (a service's progress is polled, and its last poll may lag). */
    complete() {
      if (started) bar.update(bar.getTotal(), { file: '' });
    },
    stop: () => started && bar.stop(),
  };
}

function summary(result: IndexResult): void {
  console.table({
    documents: result.documents,
    'files added': result.files_added,
    'files changed': result.files_changed,
    'files unchanged': result.files_unchanged,
    'files removed': result.files_removed,
    'chunks added': result.chunks_added,
    'chunks removed': result.chunks_removed,
    'chunks unchanged': result.chunks_unchanged,
    seconds: result.duration_ms / 1000,
  });
  for (const e of result.errors) console.error(`skipped ${e.source}: ${e.error}`);
}

async function viaService(config: Config, url: string): Promise<number> {
  const bar = progressBar();
  let finished = false;
  // The run answers when it ends; meanwhile its progress is read from the statistics.
  const follow = (async () => {
    while (!finished) {
      const stats = await callService<{ index_progress: IndexProgress | null }>(url, config, 'GET', '/rag/stats').catch(() => null);
      const p = stats?.status === 200 ? stats.body.index_progress : null;
      if (p && !finished) bar.update(p.done, p.total, p.file);
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
  const res = await callService<IndexResult & { detail?: string }>(url, config, 'POST', '/rag/index', { full: values.full });
  finished = true;
  await follow;
  if (res.status === 200) bar.complete();
  bar.stop();
  if (res.status !== 200) {
    console.error(`the service answered ${res.status}: ${res.body.detail ?? JSON.stringify(res.body)}`);
    return 1;
  }
  summary(res.body);
  return 0;
}

async function direct(config: Config): Promise<number> {
  // Silent app: the progress bar and the summary are the output, after the folders (a service started with another
  // DATA_DIR is not found, and this indexes a folder of its own).
  console.log(`no service runs on DATA_DIR=${config.DATA_DIR}: indexing DOCS_DIR=${config.DOCS_DIR} here`);
  const app = await buildApp({ config: { ...config, LOG_LEVEL: 'warn' } });
  const bar = progressBar();
  try {
    const rag = await app.rag.service();
    const result = await rag.index({ full: values.full }, (done, total, file) => bar.update(done, total, file));
    bar.stop();
    summary(result);
    return 0;
  } finally {
    await app.close();
  }
}

async function main(): Promise<number> {
  const config = loadConfig();
  const found = await findRunningService(config);
  if (found.kind === 'unreachable') {
    console.error(unreachableMessage(config, found));
    return 1;
  }
  if (found.kind === 'running') {
    const served = found.owner.docsDir;
    // A folder named here that is not the service's: the service would index its own, not the one meant.
    if (process.env.DOCS_DIR !== undefined && served && served !== fromRoot(config.DOCS_DIR)) {
      console.error(
        `a service (pid ${found.owner.pid}) runs on DATA_DIR=${config.DATA_DIR} and indexes DOCS_DIR=${served}, not ${config.DOCS_DIR}: ` +
          'nothing was indexed. Start the service with that DOCS_DIR (or stop it, and this command indexes the folder itself).',
      );
      return 2;
    }
    console.log(`a service (pid ${found.owner.pid}) runs on DATA_DIR=${config.DATA_DIR}: it indexes${served ? ` DOCS_DIR=${served}` : ''}, at ${found.url}`);
    return viaService(config, found.url);
  }
  try {
    return await direct(config);
  } catch (err) {
    if (err instanceof RagBusyError) {
      console.error(`${err.message}: nothing was started; run this again when it ends.`);
      return 1;
    }
    if (!(err instanceof DirLockedError)) throw err;
    console.error(`${err.message}: wait for it to finish, then run this command again.`);
    return 1;
  }
}

process.exitCode = await main();
