// npm run eval:sentiment [-- --texts eval/sentiment/everyday.json --model models/text/sentiment]
//   [--benchmarks [--emotion-model models/text/emotion] [--data data/datasets] [--name sentiment-benchmarks]]
// Reads everyday and financial sentences, grouped by kind of text (reviews, complaints stated as facts, negation,
// sarcasm, plain statements, financial news), with the sentiment model and reports how many of each kind it reads
// as a person would. Writes docs/results/sentiment-everyday.json (for another --texts file, sentiment-<its name>.json;
// for a test half, a file named *-test.json, only the counts: its failures are not to be read). With --benchmarks it
// also scores the sentiment model on the development splits (SST-2 dev, TweetEval validation, the tweets' sent_valid,
// GoEmotions dev, the PhraseBank held-out sentences) and the emotion model on GoEmotions dev.tsv, and writes
// docs/results/<--name>.json: how any model, the shipped one or another, compares on the same figures.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { DEFAULT_TEXT_MODELS, loadClassifier } from '../src/text/models.js';
import { writeResults } from './lib/results.js';
import { type ClassifierFigures, evaluateClassifier } from './lib/text/classifier-eval.js';
import { readGoEmotions } from './lib/text/data.js';
import { DEFAULT_DATASETS, datasetsDir } from './lib/text/dataset-files.js';
import { loadSentimentData } from './lib/text/sentiment-data.js';

/** The first everyday set: its results file keeps its old name, sentiment-everyday.json. */
const EVERYDAY_TEXTS = 'eval/sentiment/everyday.json';
const { values } = parseArgs({
  options: {
    texts: { type: 'string', default: EVERYDAY_TEXTS },
    model: { type: 'string', default: DEFAULT_TEXT_MODELS.sentiment },
    benchmarks: { type: 'boolean', default: false },
    'emotion-model': { type: 'string', default: DEFAULT_TEXT_MODELS.emotion },
    data: { type: 'string', default: DEFAULT_DATASETS },
    name: { type: 'string', default: 'sentiment-benchmarks' },
  },
});
type Kind = { kind: string; label: string; texts: string[] };
const { kinds } = JSON.parse(readFileSync(fromRoot(values.texts), 'utf8')) as { kinds: Kind[] };
const classify = await loadClassifier(values.model);
const testHalf = values.texts.endsWith('-test.json');
const resultsName = values.texts === EVERYDAY_TEXTS ? 'sentiment-everyday' : `sentiment-${basename(values.texts, '.json')}`;
const rows = [];
let right = 0;
let total = 0;
for (const k of kinds) {
  const wrong: { text: string; read_as: string }[] = [];
  for (const text of k.texts) {
    const [top] = (await classify(text, { top_k: 1 })) as { label: string }[];
    if (top!.label !== k.label) wrong.push({ text, read_as: top!.label });
  }
  right += k.texts.length - wrong.length;
  total += k.texts.length;
  rows.push({ kind: k.kind, label: k.label, texts: k.texts.length, right: k.texts.length - wrong.length, ...(testHalf ? {} : { wrong }) });
}
console.log(`| kind of text | sentiment | right |\n|---|---|---|`);
for (const r of rows) console.log(`| ${r.kind} | ${r.label} | ${r.right} of ${r.texts} |`);
console.log(`| all | | ${right} of ${total} |`);
console.log(`wrote ${writeResults(resultsName, { texts: values.texts, model: values.model, right, total, kinds: rows })}`);

if (values.benchmarks) {
  const labels = ['positive', 'negative', 'neutral'];
  // The PhraseBank's held-out sentences depend on the split's seed: 7, as the sentiment trainer uses.
  const d = loadSentimentData(values.data, new Set(['twitter', 'phrasebank', 'goemotions', 'sst2', 'tweeteval']), 7);
  const sentiment: Record<string, ClassifierFigures> = {};
  for (const s of d.selection) sentiment[s.name] = await evaluateClassifier(classify, labels, s.examples);
  for (const name of ['phrasebank_AllAgree', 'phrasebank_50Agree']) sentiment[name] = await evaluateClassifier(classify, labels, d.tests[name]!);
  for (const [name, f] of Object.entries(sentiment)) {
    console.log(`sentiment ${name}: accuracy ${f.accuracy.toFixed(4)} macro recall ${f.macro_recall.toFixed(4)} macro-F1 ${f.macro_f1.toFixed(4)} (n=${f.n})`);
  }
  const emotionLabels = ['anger', 'disgust', 'fear', 'joy', 'neutral', 'sadness', 'surprise'];
  const emotionClf = await loadClassifier(values['emotion-model']);
  const dir = join(datasetsDir(values.data, ['goemotions/dev.tsv', 'goemotions/ekman_mapping.json']), 'goemotions');
  const emotion = await evaluateClassifier(emotionClf, emotionLabels, readGoEmotions(dir, 'dev'));
  console.log(`emotion goemotions_dev: accuracy ${emotion.accuracy.toFixed(4)} macro-F1 ${emotion.macro_f1.toFixed(4)} (n=${emotion.n})`);
  await emotionClf.dispose();
  console.log(
    `wrote ${writeResults(values.name, {
      model: values.model,
      emotion_model: values['emotion-model'],
      everyday: { right, total },
      sentiment,
      emotion: { goemotions_dev: emotion },
    })}`,
  );
}
await classify.dispose();
