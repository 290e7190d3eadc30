// npm run collect -- --start-year 2020 --end-year 2024 [--refresh-only] [--refresh-limit N] [--dry-run]
//                    [--include-frozen] [--unfreeze TMDB_ID] [--max-pages N] [--min-vote-count N]
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { pino } from 'pino';
import { loadConfig } from '../infra/config.js';
import { createMoviesContext, defaultRunParams } from './context.js';
import type { FullCollectionOptions } from './orchestrator.js';

const { values: flags } = parseArgs({
  options: {
    'start-year': { type: 'string' },
    'end-year': { type: 'string' },
    'refresh-only': { type: 'boolean', default: false },
    'refresh-limit': { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    'include-frozen': { type: 'boolean', default: false },
    unfreeze: { type: 'string' },
    'max-pages': { type: 'string' },
    'min-vote-count': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

function int(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) {
    console.error(`--${name} must be a whole number, got "${v}"`);
    process.exit(2);
  }
  return Number(v);
}

async function main() {
  if (flags.help) {
    console.log('usage: npm run collect -- --start-year 2020 --end-year 2024 [--refresh-only] [--refresh-limit N] [--dry-run] [--include-frozen] [--unfreeze TMDB_ID] [--max-pages N] [--min-vote-count N]');
    return;
  }
  const config = loadConfig();
  // Logs go to stderr as JSON lines, warnings and up, so the progress bars stay readable.
  const log = pino({ level: process.env.LOG_LEVEL?.toLowerCase() === 'debug' ? 'debug' : 'warn' }, pino.destination(2));
  const refreshLimit = int('refresh-limit', flags['refresh-limit']);
  const ctx = await createMoviesContext(config, log);
  try {
    if (flags.unfreeze) {
      const id = int('unfreeze', flags.unfreeze)!;
      console.log((await ctx.repo.unfreeze(id)) ? `movie ${id} unfrozen` : `no movie with tmdb_id ${id}`);
      return;
    }
    const defaults = defaultRunParams();
    const params: FullCollectionOptions = {
      discoverStartYear: int('start-year', flags['start-year']) ?? defaults.discoverStartYear,
      discoverEndYear: int('end-year', flags['end-year']) ?? defaults.discoverEndYear,
      refreshOnly: flags['refresh-only'],
      includeFrozen: flags['include-frozen'],
      ...(refreshLimit !== undefined ? { refreshLimit } : {}),
      ...(flags['max-pages'] ? { maxDiscoverPages: int('max-pages', flags['max-pages'])! } : {}),
      ...(flags['min-vote-count'] ? { discoverMinVoteCount: int('min-vote-count', flags['min-vote-count'])! } : {}),
    };
    if (params.discoverStartYear > params.discoverEndYear) {
      console.error('--start-year must not be after --end-year');
      process.exitCode = 2;
      return;
    }
    if (flags['dry-run']) {
      // No network and no writes: what the next refresh would fetch, from the database as it is.
      const plan = await ctx.collector.planRefresh(params.refreshLimit ?? ctx.settings.refresh.limit, params.includeFrozen ?? false);
      console.table(plan.slice(0, 50).map((p) => ({ tmdb_id: p.movie.tmdb_id, title: p.movie.title, category: p.category, catalog: p.needsCatalog, ratings: p.needsRatings })));
      console.log(`${plan.length} movies would be refreshed (${plan.filter((p) => p.needsCatalog).length} catalog, ${plan.filter((p) => p.needsRatings).length} ratings)`);
      return;
    }
    const bars = new cliProgress.MultiBar(
      { format: ' {phase} |{bar}| {value}/{total}', hideCursor: true, clearOnComplete: false, noTTYOutput: true, notTTYSchedule: 5000 },
      cliProgress.Presets.shades_classic,
    );
    const byPhase = new Map<string, cliProgress.SingleBar>();
    const outcome = await ctx.runner.run('cli', params, (phase, done, total) => {
      let bar = byPhase.get(phase);
      if (!bar) byPhase.set(phase, (bar = bars.create(total, 0, { phase: phase.padEnd(8) })));
      bar.setTotal(total);
      bar.update(done, { phase: phase.padEnd(8) });
    });
    bars.stop();
    const s = outcome.stats;
    console.log(`\nrun ${outcome.run_id ?? '-'}: ${outcome.status}${outcome.error ? ` (${outcome.error})` : ''}`);
    if (s) {
      console.table({
        discovered: s.discovered,
        'refresh planned': s.planned,
        'catalog updated': s.catalog_updated,
        'ratings updated': s.ratings_updated,
        frozen: s.frozen,
        failures: s.failures.length,
        'skipped: no IMDb id': s.skipped.no_imdb_id,
        'skipped: release status': s.skipped.release_status,
        'skipped: ratings quota': s.skipped.ratings_quota,
        'skipped: ratings cap': s.skipped.ratings_cap,
        'skipped: catalog quota': s.skipped.catalog_quota,
      });
    }
    if (outcome.status === 'failed') process.exitCode = 1;
  } finally {
    await ctx.close();
  }
}

await main();
