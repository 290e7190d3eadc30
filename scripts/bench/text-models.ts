// npm run bench:text-models: latency of one short text through each shipped model's transformers.js pipeline.
import { DEFAULT_TEXT_MODELS, loadClassifier, loadEmbedder } from '../../src/text/models.js';
import { percentile } from './lib.js';
import { writeResults } from '../lib/results.js';

const TEXT = 'Quarterly profit rose 20% and beat analyst expectations.';
const N = 2000;
const measured: { pipeline: string; p50_ms: number; p99_ms: number }[] = [];

async function time(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 200; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  measured.push({ pipeline: name, p50_ms: percentile(times, 0.5), p99_ms: percentile(times, 0.99) });
  return `| ${name} | ${percentile(times, 0.5).toFixed(3)} | ${percentile(times, 0.99).toFixed(3)} |`;
}

const loadStart = performance.now();
const sentiment = await loadClassifier(DEFAULT_TEXT_MODELS.sentiment);
const emotion = await loadClassifier(DEFAULT_TEXT_MODELS.emotion);
const embedder = await loadEmbedder(DEFAULT_TEXT_MODELS.embedder);
const loadMs = performance.now() - loadStart;
console.log(`three models loaded in ${loadMs.toFixed(0)} ms`);
const rows = [
  await time('sentiment (text-classification, all scores)', () => sentiment(TEXT, { top_k: null })),
  await time('emotion (text-classification, all scores)', () => emotion(TEXT, { top_k: null })),
  await time('embedder (feature-extraction, mean + normalise)', () => embedder(TEXT, { pooling: 'mean', normalize: true })),
];
console.log(`\none ${TEXT.split(' ').length}-word text, ${N} sequential calls after 200 warm-up, one ONNX Runtime thread\n`);
console.log('| pipeline | p50 (ms) | p99 (ms) |\n|---|---|---|');
console.log(rows.join('\n'));
console.log(writeResults('bench-text-models', { words: TEXT.split(' ').length, calls: N, load_ms: loadMs, pipelines: measured }));
