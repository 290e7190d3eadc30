// npm run train:support-gate [-- --squad data/datasets/squad/dev-v1.1-part-a.json]
// Trains the support gate (src/text/rag/ask/support-gate.ts) on SQuAD through /rag/ask's own pipeline, without an LLM.
// Questions are asked of a collection that holds a quarter of the articles (articles a with a % 4 = f, for f = 0 and
// 2 on the even-numbered articles, 1 and 3 on the odd-numbered): a question of an indexed article is answerable, the
// others are not. The logistic model is fitted on the even-numbered articles' questions that the support rule refuses
// for missing words only (the gate's cases); its threshold is chosen on the odd-numbered ones, where the rule's
// other outcomes stand: the one with the most answerable questions answered plus unanswerable ones refused (Youden's
// J). The two halves are asked in parallel (two child processes). Writes models/text/reader/support-gate.json and
// docs/results/support-gate.json. The fit has no random state, but the passages' similarity scores vary slightly
// between index builds: a re-run gives the same threshold, weights within about 0.01 and a table within one question.
// With --evaluate-only, the shipped gate is scored on the same questions and only docs/results/support-gate.json is
// written, with how far a fresh fit lands from the shipped one (its threshold and its largest weight difference).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { GATE_FEATURES, SUPPORT_GATE_FILE, type SupportGate, gateProbability, loadSupportGate } from '../src/text/rag/ask/support-gate.js';
import { fitLogistic, largestDifference, openModel } from './lib/ml/logistic.js';
import { round4, writeResults } from './lib/results.js';
import { withSquadCollection } from './lib/text/squad-collection.js';
import { bestF1 } from './lib/text/squad-eval.js';

const { values } = parseArgs({
  options: {
    squad: { type: 'string', default: 'data/datasets/squad/dev-v1.1-part-a.json' },
    half: { type: 'string' },
    out: { type: 'string' },
    'evaluate-only': { type: 'boolean', default: false },
  },
});

interface Row {
  answerable: boolean;
  /** The gate's inputs when it applied (the rule refused for missing words only); null otherwise. */
  features: number[] | null;
  /** "Not in the collection" with every gate case answered: the rule's refusals that the gate cannot change. */
  notFound: boolean;
  f1: number;
}

/** A gate that answers every question it applies to, so that each one's features and answer are recorded. */
const OPEN_GATE: SupportGate = openModel(GATE_FEATURES);

async function record(parity: 0 | 1, out: string) {
  const rows: Row[] = [];
  for (const fold of [parity, parity + 2]) {
    await withSquadCollection(
      values.squad,
      async (app, questions) => {
        const asker = await app.rag.ask();
        // The gate acts only where no learned decision is shipped (the decision replaces it): without this, with
        // models/text/reader/answerability.json in place, no question reaches the gate and there is nothing to fit.
        asker.useAnswerability(null);
        asker.useSupportGate(OPEN_GATE);
        const asked = questions.filter((q) => q.article % 2 === parity);
        for (const [i, q] of asked.entries()) {
          let features: number[] | null = null;
          const r = await asker.ask(q.question, 5, (step, data) => {
            if (step === 'guardrail_support_gate') features = GATE_FEATURES.map((f) => (data.features as Record<string, number>)[f]!);
          });
          const notFound = r.answer_passage === null;
          rows.push({ answerable: q.indexed, features, notFound, f1: notFound || !q.indexed ? 0 : bestF1(r.answer, q.answers) });
          if ((i + 1) % 500 === 0) console.log(`${parity ? 'odd' : 'even'} articles, fold ${fold}: ${i + 1}/${asked.length}`);
        }
      },
      (article) => article % 4 === fold,
    );
  }
  writeFileSync(out, JSON.stringify(rows));
}

if (values.half) {
  await record(values.half === 'odd' ? 1 : 0, values.out!);
} else {
  const files = { even: join(tmpdir(), `support-gate-even-${process.pid}.json`), odd: join(tmpdir(), `support-gate-odd-${process.pid}.json`) };
  console.log("asking the even- and odd-numbered articles' questions (two processes)...");
  await Promise.all(
    (['even', 'odd'] as const).map(
      (half) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, '--squad', values.squad, '--half', half, '--out', files[half]], {
            stdio: ['ignore', 'inherit', 'inherit'],
          });
          child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the ${half} half exited with ${code}`))));
        }),
    ),
  );
  const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Row[];
  const even = read(files.even);
  const odd = read(files.odd);
  for (const f of Object.values(files)) rmSync(f, { force: true });

  const train = even.filter((r) => r.features);
  const fitted = fitLogistic(
    train.map((r) => r.features!),
    train.map((r) => (r.answerable ? 1 : 0)),
  );
  const shipped = values['evaluate-only'] ? loadSupportGate() : null;
  const gateAt = (threshold: number, weights = shipped ?? fitted): SupportGate => ({ features: GATE_FEATURES, ...weights, threshold });
  const outcome = (rows: Row[], gate: SupportGate | null) => {
    // Without a gate, every gate case is refused (the rule alone).
    const refused = (r: Row) => (r.features ? !gate || gateProbability(gate, r.features) < gate.threshold : r.notFound);
    const answerable = rows.filter((r) => r.answerable);
    const unanswerable = rows.filter((r) => !r.answerable);
    const falseNotFound = answerable.filter(refused).length / answerable.length;
    const caught = unanswerable.filter(refused).length / unanswerable.length;
    return {
      false_not_found: round4(falseNotFound),
      caught: round4(caught),
      answerable_f1: round4(answerable.reduce((s, r) => s + (refused(r) ? 0 : r.f1), 0) / answerable.length),
      youden: 1 - falseNotFound + caught,
    };
  };
  const thresholds = Array.from({ length: 19 }, (_, i) => round4(0.05 * (i + 1)));
  const sweep = thresholds.map((threshold) => ({ threshold, ...outcome(odd, gateAt(threshold)) }));
  const withoutJ = ({ youden: _, ...o }: ReturnType<typeof outcome>) => o;
  // On a tie, the higher threshold: between two equally good gates, the one that answers "not in the collection" more.
  const bestOf = (rows: typeof sweep) => rows.reduce((b, s) => (s.youden >= b.youden - 1e-12 ? s : b));
  const best = shipped ? { threshold: shipped.threshold } : bestOf(sweep);
  const refit = shipped && {
    threshold: bestOf(thresholds.map((threshold) => ({ threshold, ...outcome(odd, gateAt(threshold, fitted)) }))).threshold,
    largest_weight_difference: round4(largestDifference(fitted, shipped)),
  };
  const results = {
    model: shipped ? `the shipped ${SUPPORT_GATE_FILE}` : 'fitted by this run',
    threshold: best.threshold,
    ...(refit ? { refit } : {}),
    data: values.squad,
    features: GATE_FEATURES,
    training_rows: train.length,
    training_answerable: train.filter((r) => r.answerable).length,
    threshold_chosen_by: "Youden's J on the odd-numbered articles: answerable questions answered plus unanswerable ones refused",
    odd_half: {
      questions: odd.length,
      gate_cases: odd.filter((r) => r.features).length,
      rule_alone: withoutJ(outcome(odd, null)),
      with_gate: withoutJ(outcome(odd, gateAt(best.threshold))),
      sweep: sweep.map(({ youden, ...o }) => ({ ...o, youden: round4(youden) })),
    },
    even_half: { rule_alone: withoutJ(outcome(even, null)), with_gate: withoutJ(outcome(even, gateAt(best.threshold))) },
  };
  if (!shipped)
    writeFileSync(
      fromRoot(SUPPORT_GATE_FILE),
      `${JSON.stringify(
        {
          name: 'support-gate',
          task: 'whether the passages support a question that the support rule refuses for missing words only (src/text/rag/ask/support-gate.ts)',
          data: 'SQuAD v1.1 development set, part a; even-numbered articles for the weights, odd-numbered for the threshold; never the reverse',
          command: 'npm run train:support-gate',
          model: gateAt(best.threshold),
          results,
        },
        null,
        2,
      )}\n`,
    );
  console.log(`\n| SQuAD odd-numbered articles | false not-found | caught | answerable F1 |\n|---|---|---|---|`);
  for (const [name, o] of [
    ['support rule alone', results.odd_half.rule_alone],
    [`with the gate (threshold ${best.threshold})`, results.odd_half.with_gate],
  ] as const)
    console.log(`| ${name} | ${o.false_not_found} | ${o.caught} | ${o.answerable_f1} |`);
  if (refit) console.log(`a fresh fit: ${JSON.stringify(refit)}`);
  console.log(`\nwrote ${shipped ? '' : `${SUPPORT_GATE_FILE} and `}${writeResults('support-gate', results)}`);
}
