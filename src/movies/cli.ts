// npm run collect -- --start-year 2020 --end-year 2024 [--refresh-only] [--refresh-limit N] [--dry-run]
//                    [--include-frozen] [--unfreeze TMDB_ID] [--max-pages N] [--min-vote-count N]
// When a service runs on the same DATA_DIR, the work is done by that service (its operator routes) and followed here;
// otherwise this process opens the database itself (refusing if another process holds the embedded one).
import cliProgress from 'cli-progress';
import { pino } from 'pino';
import { cliArgs } from '../infra/cli-args.js';
import { type Config, loadConfig } from '../infra/config.js';
import { DirLockedError } from '../infra/dir-lock.js';
import { callService, findRunningService, unreachableMessage } from '../infra/running-service.js';
import { outcomeTable } from './cli-output.js';
import { createMoviesContext, missingKeys } from './context.js';
import { type CollectionStats, type PlanSummary, summarisePlan } from './orchestrator.js';
import type { RunRecord } from './runner.js';
import { type RunRequest, runParams } from './routes.js';
import { loadCollectionSettings } from './settings.js';

const USAGE = [
  'usage: npm run collect -- [options]',
  'Discovers, enriches and refreshes movies (a service running on the same DATA_DIR does the work; this follows it).',
  '  --start-year Y                discover movies released from year Y (with the API keys of .env.example)',
  '  --end-year Y                  ... up to year Y',
  '  --refresh-only                refresh the movies already collected, discover nothing',
  '  --refresh-limit N             refresh at most N of the movies due, the most overdue first',
  '  --include-frozen              refresh frozen movies too (a change thaws them)',
  '  --dry-run                     print what the next refresh would fetch: no network, no writes',
  '  --unfreeze TMDB_ID            thaw one movie (exit 1 when there is none)',
  '  --max-pages N                 walk at most N discover pages',
  '  --min-vote-count N            discover only movies with at least N votes',
  '  --help                        this text',
].join('\n');

const flags = cliArgs(
  {
    'start-year': { type: 'string' },
    'end-year': { type: 'string' },
    'refresh-only': { type: 'boolean', default: false },
    'refresh-limit': { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    'include-frozen': { type: 'boolean', default: false },
    unfreeze: { type: 'string' },
    'max-pages': { type: 'string' },
    'min-vote-count': { type: 'string' },
  },
  USAGE,
);

function int(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) {
    console.error(`--${name} must be a whole number, got "${v}"`);
    process.exit(2);
  }
  return Number(v);
}

function progressBars() {
  const bars = new cliProgress.MultiBar(
    { format: ' {phase} |{bar}| {value}/{total}', hideCursor: true, clearOnComplete: false, noTTYOutput: true, notTTYSchedule: 5000 },
    cliProgress.Presets.shades_classic,
  );
  const byPhase = new Map<string, cliProgress.SingleBar>();
  return {
    update(phase: string, done: number, total: number) {
      let bar = byPhase.get(phase);
      if (!bar) byPhase.set(phase, (bar = bars.create(total, 0, { phase: phase.padEnd(8) })));
      bar.setTotal(total);
      bar.update(done, { phase: phase.padEnd(8) });
    },
    stop: () => bars.stop(),
  };
}

function printOutcome(runId: number | null, status: string, error: string | undefined, s: CollectionStats | null | undefined): void {
  console.log(`\nrun ${runId ?? '-'}: ${status}${error ? ` (${error})` : ''}`);
  if (!s) return;
  console.table(outcomeTable(s));
}

/** What a dry run shows; `missing`: the keys that the process doing the run lacks, and which process that is. */
function printPlan(plan: PlanSummary, missing: { keys: string[]; where: 'here' | 'in the service' }): void {
  if (plan.first.length)
    console.table(plan.first.map((p) => ({ tmdb_id: p.tmdb_id, title: p.title, category: p.category, catalog: p.catalog, ratings: p.ratings })));
  console.log(
    plan.movies
      ? `${plan.movies} movies would be refreshed (${plan.catalog} catalog, ${plan.ratings} ratings)`
      : 'no movie is due for a refresh (the collection is empty, or every movie is fresh or frozen)',
  );
  // A dry run needs no keys, but the run it previews does, in the process that does it.
  const { keys, where } = missing;
  if (keys.length) console.log(`note: ${keys.join(' and ')} ${keys.length > 1 ? 'are' : 'is'} not set ${where}; a real run needs them (see .env.example).`);
}

/** The work, done by the service that holds the database: started there, followed here. */
async function viaService(config: Config, url: string, request: RunRequest): Promise<number> {
  const call = <T>(method: 'GET' | 'POST', path: string, body?: unknown) => callService<T>(url, config, method, path, body);
  const refused = (res: { status: number; body: unknown }) => {
    const b = res.body as { message?: string; details?: unknown };
    console.error(`the service answered ${res.status}: ${b.message ?? JSON.stringify(res.body)}`);
    return 1;
  };
  if (flags.unfreeze) {
    const id = int('unfreeze', flags.unfreeze)!;
    const res = await call<{ unfrozen: boolean }>('POST', `/api/collection/movies/${id}/unfreeze`);
    if (res.status === 404) {
      console.error(`no movie with tmdb_id ${id}`);
      return 1;
    }
    if (res.status !== 200) return refused(res);
    console.log(`movie ${id} unfrozen`);
    return 0;
  }
  if (flags['dry-run']) {
    const query = new URLSearchParams({ include_frozen: String(request.include_frozen) });
    if (request.refresh_limit !== undefined) query.set('limit', String(request.refresh_limit));
    const res = await call<PlanSummary & { missing_keys: string[] }>('GET', `/api/collection/plan?${query.toString()}`);
    if (res.status !== 200) return refused(res);
    printPlan(res.body, { keys: res.body.missing_keys, where: 'in the service' });
    return 0;
  }
  const started = await call<{ run_id: number; details?: { run_id?: number } }>('POST', '/api/collection/run', request);
  if (started.status === 409) {
    const other = started.body.details?.run_id;
    console.error(`another collection run${other ? ` (run ${other})` : ''} is in progress; nothing was started`);
    return 1;
  }
  if (started.status !== 202) return refused(started);
  const runId = started.body.run_id;
  console.log(`run ${runId} started by the service; following it (Ctrl-C stops following, not the run)`);
  const bars = progressBars();
  let run: RunRecord & { progress?: Record<string, { done: number; total: number }> };
  for (;;) {
    const res = await call<typeof run>('GET', `/api/collection/runs/${runId}`);
    if (res.status !== 200) {
      bars.stop();
      return refused(res);
    }
    run = res.body;
    for (const [phase, p] of Object.entries(run.progress ?? {})) bars.update(phase, p.done, p.total);
    if (run.status !== 'running') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  bars.stop();
  const errors = Array.isArray(run.errors) ? (run.errors as { message?: string }[]) : [];
  printOutcome(runId, run.status, run.status !== 'succeeded' ? errors[0]?.message : undefined, run.stats as CollectionStats | null);
  return run.status === 'succeeded' ? 0 : 1;
}

/** No service holds the database: this process opens it (and holds it until it ends). */
async function direct(config: Config, request: RunRequest): Promise<number> {
  // Logs go to stderr as JSON lines, warnings and up, so the progress bars stay readable.
  const log = pino({ level: process.env.LOG_LEVEL?.toLowerCase() === 'debug' ? 'debug' : 'warn' }, pino.destination(2));
  const ctx = await createMoviesContext(config, log);
  try {
    if (flags.unfreeze) {
      const id = int('unfreeze', flags.unfreeze)!;
      if (!(await ctx.repo.unfreeze(id))) {
        console.error(`no movie with tmdb_id ${id}`);
        return 1;
      }
      console.log(`movie ${id} unfrozen`);
      return 0;
    }
    const params = runParams(request);
    if (flags['dry-run']) {
      // No network and no writes: what the next refresh would fetch, from the database as it is.
      const plan = await ctx.collector.planRefresh(params.refreshLimit ?? ctx.settings.refresh.limit, params.includeFrozen ?? false);
      printPlan(summarisePlan(plan), { keys: missingKeys(loadCollectionSettings(config)), where: 'here' });
      return 0;
    }
    const bars = progressBars();
    const outcome = await ctx.runner.run('cli', params, (phase, done, total) => bars.update(phase, done, total));
    bars.stop();
    printOutcome(outcome.run_id, outcome.status, outcome.error, outcome.stats);
    return outcome.status === 'succeeded' ? 0 : 1;
  } finally {
    await ctx.close();
  }
}

async function main(): Promise<number> {
  const request: RunRequest = {
    refresh_only: flags['refresh-only'],
    include_frozen: flags['include-frozen'],
    ...(flags['start-year'] !== undefined ? { start_year: int('start-year', flags['start-year'])! } : {}),
    ...(flags['end-year'] !== undefined ? { end_year: int('end-year', flags['end-year'])! } : {}),
    ...(flags['refresh-limit'] !== undefined ? { refresh_limit: int('refresh-limit', flags['refresh-limit'])! } : {}),
    ...(flags['max-pages'] !== undefined ? { max_pages: int('max-pages', flags['max-pages'])! } : {}),
    ...(flags['min-vote-count'] !== undefined ? { min_vote_count: int('min-vote-count', flags['min-vote-count'])! } : {}),
  };
  const params = runParams(request);
  if (params.discoverStartYear > params.discoverEndYear) {
    console.error('--start-year must not be after --end-year');
    return 2;
  }
  const config = loadConfig();
  const found = await findRunningService(config);
  if (found.kind === 'unreachable') {
    console.error(unreachableMessage(config, found));
    return 1;
  }
  if (found.kind === 'running') {
    console.log(`a service (pid ${found.owner.pid}) runs on DATA_DIR=${config.DATA_DIR}: the work goes through it at ${found.url}`);
    return viaService(config, found.url, request);
  }
  // Before anything is opened: a run without its API keys could only retry and fail.
  const missing = flags['dry-run'] || flags.unfreeze ? [] : missingKeys(loadCollectionSettings(config));
  if (missing.length) {
    console.error(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: put the key(s) in .env or the environment (see .env.example).`);
    return 2;
  }
  const database = config.DATABASE_URL ? 'the PostgreSQL database of DATABASE_URL' : `the embedded database in ${config.DATA_DIR}`;
  console.log(`no service runs on DATA_DIR=${config.DATA_DIR}: this command opens ${database} itself`);
  try {
    return await direct(config, request);
  } catch (err) {
    if (!(err instanceof DirLockedError)) throw err;
    console.error(`${err.message}: wait for it to finish, then run this command again.`);
    return 1;
  }
}

process.exitCode = await main();
