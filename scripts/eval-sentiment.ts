// npm run eval:sentiment [-- --texts eval/sentiment/everyday.json --model models/text/sentiment]
// Reads everyday and financial sentences, grouped by kind of text (reviews, complaints stated as facts, negation,
// sarcasm, plain statements, financial news), with the sentiment model and reports how many of each kind it reads
// as a person would. Writes docs/results/sentiment-everyday.json.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { DEFAULT_TEXT_MODELS, loadClassifier } from '../src/text/models.js';
import { writeResults } from './lib/results.js';

const { values } = parseArgs({
  options: {
    texts: { type: 'string', default: 'eval/sentiment/everyday.json' },
    model: { type: 'string', default: DEFAULT_TEXT_MODELS.sentiment },
  },
});
type Kind = { kind: string; label: string; texts: string[] };
const { kinds } = JSON.parse(readFileSync(fromRoot(values.texts), 'utf8')) as { kinds: Kind[] };
const classify = await loadClassifier(values.model);
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
  rows.push({ kind: k.kind, label: k.label, texts: k.texts.length, right: k.texts.length - wrong.length, wrong });
}
console.log(`| kind of text | sentiment | right |\n|---|---|---|`);
for (const r of rows) console.log(`| ${r.kind} | ${r.label} | ${r.right} of ${r.texts} |`);
console.log(`| all | | ${right} of ${total} |`);
console.log(`wrote ${writeResults('sentiment-everyday', { texts: values.texts, model: values.model, right, total, kinds: rows })}`);
