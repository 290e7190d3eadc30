// What `npm run collect` prints at the end of a run: one row per figure of its stats.
import type { CollectionStats } from './orchestrator.js';

export function outcomeTable(s: CollectionStats): Record<string, string | number> {
  return {
    // Discovery's failure is the run's error, printed above the table; "movies failed" counts the refreshes that failed.
    discovery: s.discovery_error ? 'failed' : 'done',
    discovered: s.discovered,
    'refresh planned': s.planned,
    'catalog updated': s.catalog_updated,
    'ratings updated': s.ratings_updated,
    frozen: s.frozen,
    'movies failed': s.failures.length,
    'skipped: no IMDb id': s.skipped.no_imdb_id,
    'skipped: release status': s.skipped.release_status,
    'skipped: ratings quota': s.skipped.ratings_quota,
    'skipped: ratings cap': s.skipped.ratings_cap,
    'skipped: catalog quota': s.skipped.catalog_quota,
  };
}
