// npm run bench:explain: Shapley values alone (in process) and POST /api/explain with a PNG (over HTTP).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fromRoot } from '../../src/infra/paths.js';
import { shapValues } from '../../src/survival/explain/treeshap.js';
import { ensembleFromOnnx } from '../../src/infra/tree-ensemble.js';
import { type PreprocessorParams, toFeatures } from '../../src/survival/preprocess.js';
import { load, median, percentile, startService } from './lib.js';
import { writeResults } from '../lib/results.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, duration: { type: 'string', default: '8' } } });
const runs = Number(values.runs);

function shapAlone() {
  const { model } = ensembleFromOnnx(readFileSync(fromRoot('models/survival/model.onnx')));
  const params = JSON.parse(readFileSync(fromRoot('models/survival/preprocessor.json'), 'utf8')) as PreprocessorParams;
  const passengers = Array.from({ length: 500 }, (_, i) => ({
    pclass: ((i % 3) + 1) as 1 | 2 | 3,
    sex: i % 2 ? ('male' as const) : ('female' as const),
    age: (i * 7) % 80,
    sibsp: i % 4,
    parch: i % 3,
    embarked: (['S', 'C', 'Q'] as const)[i % 3]!,
    cabin_multiple: 0 as const,
    name_title: ['Mr', 'Mrs', 'Miss', 'Master', 'Dr'][i % 5]!,
  }));
  const xs = passengers.map((p) => toFeatures(params, p));
  for (const x of xs) shapValues(model, x); // warm-up
  const times: number[] = [];
  for (let r = 0; r < 10; r++) {
    for (const x of xs) {
      const t = process.hrtime.bigint();
      shapValues(model, x);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function main() {
  const s = shapAlone();
  console.log(`Shapley values alone (${model()} trees): p50 ${s.p50.toFixed(3)} ms  p99 ${s.p99.toFixed(3)} ms per passenger`);
  const service = await startService();
  const body = JSON.stringify({ pclass: 1, sex: 'female', age: 29, sibsp: 0, parch: 0, embarked: 'C' });
  try {
    const p50s: number[] = [];
    const p99s: number[] = [];
    const rps: number[] = [];
    for (let i = 0; i < runs; i++) {
      // One connection: the latency of a single user's request, not of a queue.
      const r = await load({
        url: `${service.url}/api/explain`,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        connections: 1,
        duration: Number(values.duration),
      });
      p50s.push(r.p50);
      p99s.push(r.p99);
      rps.push(r.rps);
      console.log(`run ${i + 1}: p50 ${r.p50} ms  p99 ${r.p99} ms  ${r.rps.toFixed(0)} req/s  errors ${r.errors + r.non2xx}`);
    }
    console.log('\n| measure | p50 | p99 |\n|---|---|---|');
    console.log(`| Shapley values alone (ms per passenger) | ${s.p50.toFixed(3)} | ${s.p99.toFixed(3)} |`);
    console.log(`| POST /api/explain with waterfall PNG (ms, median of ${runs} runs) | ${median(p50s)} | ${median(p99s)} |`);
    console.log(`\nthroughput on one connection: ${median(rps).toFixed(0)} req/s`);
    const file = writeResults('bench-explain', {
      trees: model(),
      shapley_alone_ms: { p50: s.p50, p99: s.p99 },
      explain_waterfall_ms: { p50: median(p50s), p99: median(p99s), runs },
      rps_one_connection: median(rps),
    });
    console.log(file);
  } finally {
    await service.stop();
  }
}

function model() {
  return ensembleFromOnnx(readFileSync(fromRoot('models/survival/model.onnx'))).model.trees.length;
}

await main();
