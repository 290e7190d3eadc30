// npm run bench:mixed [-- --duration 15 --runs 3]: does one domain's heavy work stall the others? POST /api/predict on
// one connection, alone and then beside /rag/ask (2 connections) and /api/explain (1 connection), and beside
// /analyze/sentiment on a 20,000-word text (1 connection), against the built service. Prints predict's rate and p99 in both, each route's throughput and p99, the event-loop delay p99 and the
// resident memory before and after; medians over runs. Writes docs/results/bench-mixed.json.
import { parseArgs } from 'node:util';
import { writeResults } from '../lib/results.js';
import { median, settled, startService } from './lib.js';
import { type RouteResult, drive, metric, rssMb, warm } from './workload.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '15' }, runs: { type: 'string', default: '3' } } });
const duration = Number(values.duration);
const runs = Number(values.runs);

const service = await startService({ LOG_LEVEL: 'warn' });
try {
  await settled(service.url);
  await warm(service.url);
  const rssStart = await rssMb(service.url);
  const rounds: { alone: RouteResult; beside: RouteResult[]; eventLoopP99Ms: number; besideLongSentiment: RouteResult[] }[] = [];
  for (let run = 1; run <= runs; run++) {
    const alone = await drive(service.url, 'predict', 1, duration);
    await metric(service.url, 'nodejs_eventloop_lag_p99_seconds'); // reading it resets the window
    const beside = await Promise.all([
      drive(service.url, 'predict', 1, duration),
      drive(service.url, 'ask', 2, duration),
      drive(service.url, 'explain', 1, duration),
    ]);
    const eventLoopP99Ms = Math.round((await metric(service.url, 'nodejs_eventloop_lag_p99_seconds')) * 1e4) / 10;
    const besideLongSentiment = await Promise.all([drive(service.url, 'predict', 1, duration), drive(service.url, 'sentiment-long', 1, duration)]);
    rounds.push({ alone, beside, eventLoopP99Ms, besideLongSentiment });
    console.log(
      `run ${run}: predict alone ${alone.rps.toFixed(0)} req/s p99 ${alone.p99} ms; beside ask and explain ${beside[0].rps.toFixed(0)} req/s p99 ${beside[0].p99} ms` +
        ` (ask ${beside[1].rps.toFixed(1)} req/s p99 ${beside[1].p99} ms, explain ${beside[2].rps.toFixed(1)} req/s p99 ${beside[2].p99} ms; event loop p99 ${eventLoopP99Ms} ms);` +
        ` beside 20,000-word sentiment ${besideLongSentiment[0].rps.toFixed(0)} req/s p99 ${besideLongSentiment[0].p99} ms (sentiment p50 ${besideLongSentiment[1].p50} ms)`,
    );
  }
  const rssEnd = await rssMb(service.url);
  const med = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
  const summary = {
    duration_s: duration,
    runs,
    predict_alone: { rps: med((r) => r.alone.rps), p99_ms: med((r) => r.alone.p99) },
    predict_beside: { rps: med((r) => r.beside[0]!.rps), p99_ms: med((r) => r.beside[0]!.p99) },
    ask: { connections: 2, rps: med((r) => r.beside[1]!.rps), p99_ms: med((r) => r.beside[1]!.p99) },
    explain: { connections: 1, rps: med((r) => r.beside[2]!.rps), p99_ms: med((r) => r.beside[2]!.p99) },
    total_beside_rps: med((r) => r.beside.reduce((s, x) => s + x.rps, 0)),
    predict_beside_long_sentiment: { rps: med((r) => r.besideLongSentiment[0]!.rps), p99_ms: med((r) => r.besideLongSentiment[0]!.p99) },
    long_sentiment: { words: 20_000, connections: 1, rps: med((r) => r.besideLongSentiment[1]!.rps), p50_ms: med((r) => r.besideLongSentiment[1]!.p50) },
    event_loop_p99_ms: med((r) => r.eventLoopP99Ms),
    errors: rounds.reduce((s, r) => s + [r.alone, ...r.beside, ...r.besideLongSentiment].reduce((t, x) => t + x.errors + x.non2xx, 0), 0),
    rss_mb: { start: rssStart, end: rssEnd },
    rounds,
  };
  const file = writeResults('bench-mixed', summary);
  const share = (summary.predict_beside.rps / summary.predict_alone.rps) * 100;
  console.log(`\n| POST /api/predict, 1 connection (median of ${runs} x ${duration} s) | req/s | p99 |\n|---|---|---|`);
  console.log(`| alone | ${summary.predict_alone.rps.toFixed(0)} | ${summary.predict_alone.p99_ms} ms |`);
  console.log(
    `| beside /rag/ask (2 connections) and /api/explain (1) | ${summary.predict_beside.rps.toFixed(0)} (${share.toFixed(0)}% of alone) | ${summary.predict_beside.p99_ms} ms |`,
  );
  console.log(
    `| beside /analyze/sentiment on 20,000 words (1) | ${summary.predict_beside_long_sentiment.rps.toFixed(0)} (${((summary.predict_beside_long_sentiment.rps / summary.predict_alone.rps) * 100).toFixed(0)}% of alone) | ${summary.predict_beside_long_sentiment.p99_ms} ms |`,
  );
  console.log(`\n| route beside the others | req/s | p99 |\n|---|---|---|`);
  for (const [name, r] of [
    ['/rag/ask (2 connections)', summary.ask],
    ['/api/explain (1 connection)', summary.explain],
  ] as const) {
    console.log(`| ${name} | ${r.rps.toFixed(1)} | ${r.p99_ms} ms |`);
  }
  console.log(
    `\nall routes together: ${summary.total_beside_rps.toFixed(0)} req/s; event-loop delay p99 ${summary.event_loop_p99_ms} ms; errors ${summary.errors}`,
  );
  console.log(`resident memory: ${rssStart} MB at the start, ${rssEnd} MB at the end\n${file}`);
} finally {
  await service.stop();
}
