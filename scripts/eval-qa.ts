// npm run eval:qa -- --squad ../shared/data/squad/dev-v1.1-part-a.json [--limit N]
// Asks every SQuAD question through /rag/ask's pipeline without any LLM and scores the extractive answers with the
// official SQuAD v1.1 normalisation (exact match, token F1, best over the gold answers) and the grounded share.
// npm run eval:qa -- --natural [--questions eval/questions/sample-collection.json --docs docs/sample-collection]
// The natural-question set instead (scripts/lib/text/natural-eval.ts): writes docs/results/qa-natural.json.
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { runNaturalEval } from './lib/text/natural-eval.js';
import { withSquadCollection } from './lib/text/squad-collection.js';

const { values } = parseArgs({
  options: {
    squad: { type: 'string', default: '../shared/data/squad/dev-v1.1-part-a.json' },
    limit: { type: 'string' },
    natural: { type: 'boolean', default: false },
    questions: { type: 'string', default: 'eval/questions/sample-collection.json' },
    docs: { type: 'string', default: 'docs/sample-collection' },
  },
});

/** Lower case, no punctuation, no articles, single spaces: the official evaluation script's normalisation. */
export function normalise(s: string): string {
  return s
    .toLowerCase()
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

export function f1(prediction: string, gold: string): number {
  const p = normalise(prediction).split(' ').filter(Boolean);
  const g = normalise(gold).split(' ').filter(Boolean);
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

if (values.natural) await runNaturalEval(values.questions, values.docs, normalise);
else
  await withSquadCollection(values.squad, async (app, questions) => {
    if (app.llm.available) console.log('note: LLM_API_KEY is set, but this evaluation scores the extractive answers only');
    const asker = await app.rag.ask();
    const asked = values.limit ? questions.slice(0, Number(values.limit)) : questions;
    let em = 0;
    let f1Sum = 0;
    let sentenceF1 = 0;
    let grounded = 0;
    let notFound = 0;
    let inPassage = 0;
    // The span rules were developed on the even-numbered articles only; the odd-numbered ones are reported apart.
    const halves = { development: { n: 0, f1: 0 }, 'held-out': { n: 0, f1: 0 } };
    const bar = new cliProgress.SingleBar(
      { format: ' questions |{bar}| {value}/{total}  F1 {f1}', noTTYOutput: true, notTTYSchedule: 5000 },
      cliProgress.Presets.shades_classic,
    );
    bar.start(asked.length, 0, { f1: '-' });
    for (const [i, { question, answers, article }] of asked.entries()) {
      let answer = '';
      let passage = '';
      try {
        const r = await asker.ask(question, 5);
        if (r.answer_passage === null) notFound++;
        answer = r.answer_passage === null ? '' : r.answer;
        passage = r.answer_passage ?? '';
        if (r.grounding_score >= 0.5 && r.answer_passage !== null) grounded++;
      } catch {
        // A refused question scores zero.
      }
      em += answers.some((a) => normalise(a) === normalise(answer)) ? 1 : 0;
      const score = Math.max(...answers.map((a) => f1(answer, a)));
      f1Sum += score;
      const half = halves[article % 2 === 0 ? 'development' : 'held-out'];
      half.n++;
      half.f1 += score;
      sentenceF1 += Math.max(...answers.map((a) => f1(passage, a)));
      if (answers.some((a) => passage.includes(a))) inPassage++;
      bar.update(i + 1, { f1: (f1Sum / (i + 1)).toFixed(3) });
    }
    bar.stop();
    const n = asked.length;
    console.log(`\n| extractive QA, no LLM (${n} questions) | value |\n|---|---|`);
    console.log(`| exact match | ${(em / n).toFixed(3)} |`);
    console.log(`| token F1 (span) | ${(f1Sum / n).toFixed(3)} |`);
    for (const [name, h] of Object.entries(halves))
      if (h.n) console.log(`| token F1 (span), ${name} articles (${h.n} questions) | ${(h.f1 / h.n).toFixed(3)} |`);
    console.log(`| token F1 if the whole sentence were the answer | ${(sentenceF1 / n).toFixed(3)} |`);
    console.log(`| grounded answers (grounding >= 0.5) | ${(grounded / n).toFixed(3)} |`);
    console.log(`| "not in the collection" answers | ${(notFound / n).toFixed(3)} |`);
    console.log(`| chosen sentence contains a gold answer | ${(inPassage / n).toFixed(3)} |`);
  });
