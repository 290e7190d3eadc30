// npm run bench:soak [-- --duration 60] [-- --long-texts]: the mixed workload (predict x4, explain x2, sentiment x2,
// search x1, ask x2 connections; with --long-texts also sentiment on a 20,000-word text x1, written to
// docs/results/bench-soak-long-texts.json) for a minute at 80% of the capacity measured just before, against the built service. Prints errors,
// each route's throughput and p99, resident memory at the start and end, and the image folder's size. Writes
// docs/results/bench-soak.json. Targets: no errors, memory growth under 10%, the image folder within its bound.
import { parseArgs } from 'node:util';
import { writeResults } from '../lib/results.js';
import { settled, startService } from './lib.js';
import { type Route, type RouteResult, drive, metric, rssMb, settledImageCount, warm } from './workload.js';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '60' }, 'images-max': { type: 'string', default: '500' }, 'long-texts': { type: 'boolean', default: false } },
});
const duration = Number(values.duration);
const MIX: [Route, number][] = [
  ['predict', 4],
  ['explain', 2],
  ['sentiment', 2],
  ['search', 1],
  ['ask', 2],
  ...(values['long-texts'] ? ([['sentiment-long', 1]] as [Route, number][]) : []),
];

const service = await startService({ LOG_LEVEL: 'warn', IMAGES_MAX_COUNT: values['images-max'] });
try {
  await settled(service.url);
  await warm(service.url);
  // Capacity: the same mix, unthrottled, for 10 s.
  const capacity = await Promise.all(MIX.map(([route, c]) => drive(service.url, route, c, 10)));
  console.log(`capacity: ${capacity.map((r) => `${r.route} ${r.rps.toFixed(1)}/s`).join(', ')}`);
  const rssStart = await rssMb(service.url);
  await metric(service.url, 'nodejs_eventloop_lag_p99_seconds'); // reading it resets the window
  const soak: RouteResult[] = await Promise.all(
    MIX.map(([route, c], i) => drive(service.url, route, c, duration, Math.max(1, Math.floor(capacity[i]!.rps * 0.8)))),
  );
  const eventLoopP99Ms = Math.round((await metric(service.url, 'nodejs_eventloop_lag_p99_seconds')) * 1e4) / 10;
  const rssEnd = await rssMb(service.url);
  const images = await settledImageCount(service.dataDir);
  const errors = soak.reduce((s, r) => s + r.errors + r.non2xx, 0);
  const growth = ((rssEnd - rssStart) / rssStart) * 100;
  const file = writeResults(values['long-texts'] ? 'bench-soak-long-texts' : 'bench-soak', {
    duration_s: duration,
    load: '80% of the capacity measured just before, per route',
    capacity,
    soak,
    total_rps: soak.reduce((s, r) => s + r.rps, 0),
    errors,
    event_loop_p99_ms: eventLoopP99Ms,
    rss_mb: { start: rssStart, end: rssEnd, growth_percent: Math.round(growth * 10) / 10 },
    images: { count: images, max: Number(values['images-max']) },
  });
  console.log(`\n| route (connections) | req/s | p99 | errors |\n|---|---|---|---|`);
  for (const r of soak) console.log(`| ${r.route} (${r.connections}) | ${r.rps.toFixed(1)} | ${r.p99} ms | ${r.errors + r.non2xx} |`);
  console.log(`\ntotal ${soak.reduce((s, r) => s + r.rps, 0).toFixed(0)} req/s over ${duration} s; errors ${errors} (target 0)`);
  console.log(`event-loop delay p99 ${eventLoopP99Ms} ms`);
  console.log(`resident memory ${rssStart} MB -> ${rssEnd} MB (${growth.toFixed(1)}%, target under 10%)`);
  console.log(`explanation images on disk: ${images} (bound ${values['images-max']})\n${file}`);
  process.exitCode = errors === 0 && growth < 10 && images <= Number(values['images-max']) ? 0 : 1;
} finally {
  await service.stop();
}
