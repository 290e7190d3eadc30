// Scores a text classifier as the service runs it (transformers.js's text-classification pipeline, batches of 32)
// on labelled examples: accuracy, macro-F1, macro recall, per-class recall and F1, and the confusion matrix.
import type { TextClassifier } from '../../../src/text/models.js';
import { round4 } from '../results.js';
import type { Example } from './data.js';

export interface ClassifierFigures {
  n: number;
  /** A prediction in the gold set counts as right (multi-label emotion rows). */
  accuracy: number;
  macro_f1: number;
  /** The mean of the classes' recall over the classes that occur (TweetEval's measure). */
  macro_recall: number;
  per_class_f1: Record<string, number>;
  per_class_recall: Record<string, number>;
  /** confusion[gold][predicted]: counts, gold being an example's first label. */
  confusion: Record<string, Record<string, number>>;
  /** Examples restricted to some labels (SST-2: positive or negative) are predicted among those; this is the share that the unrestricted model would call something else (neutral). */
  outside_allowed_share?: number;
}

type Scored = { label: string; score: number }[];

/** The probability of every label for each text, in `labels` order. */
export async function probabilities(clf: TextClassifier, labels: string[], texts: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += 32) {
    const batch = texts.slice(i, i + 32);
    const res = (await clf(batch, { top_k: null })) as unknown as Scored[];
    const rows = batch.length === 1 && !Array.isArray(res[0]) ? [res as unknown as Scored] : res;
    for (const row of rows) {
      const p = labels.map(() => 0);
      for (const { label, score: s } of row) {
        const k = labels.indexOf(label.toLowerCase());
        if (k >= 0) p[k] = s;
      }
      out.push(p);
    }
  }
  return out;
}

export function figures(labels: string[], examples: Example[], probs: number[][]): ClassifierFigures {
  const argmaxOf = (p: number[], allowed?: string[]) => {
    let best = -1;
    p.forEach((v, k) => {
      if ((!allowed || allowed.includes(labels[k]!)) && (best < 0 || v > p[best]!)) best = k;
    });
    return best;
  };
  const predicted = examples.map((e, i) => argmaxOf(probs[i]!, e.allowed));
  const m = score(
    labels,
    examples.map((e) => e.labels),
    predicted,
  );
  const confusion = Object.fromEntries(labels.map((g) => [g, Object.fromEntries(labels.map((p) => [p, 0]))])) as Record<string, Record<string, number>>;
  examples.forEach((e, i) => confusion[e.labels[0]!]![labels[predicted[i]!]!]!++);
  const recall: Record<string, number> = {};
  for (const l of labels) {
    const n = Object.values(confusion[l]!).reduce((a, b) => a + b, 0);
    if (n) recall[l] = round4(confusion[l]![l]! / n);
  }
  const restricted = examples.map((e, i) => [e, i] as const).filter(([e]) => e.allowed);
  return {
    n: m.n,
    accuracy: m.accuracy,
    macro_f1: m.macro_f1,
    macro_recall: Object.values(recall).reduce((a, b) => a + b, 0) / Object.keys(recall).length,
    per_class_f1: m.per_class_f1,
    per_class_recall: recall,
    confusion,
    ...(restricted.length
      ? { outside_allowed_share: restricted.filter(([e, i]) => !e.allowed!.includes(labels[argmaxOf(probs[i]!)]!)).length / restricted.length }
      : {}),
  };
}

export async function evaluateClassifier(clf: TextClassifier, labels: string[], examples: Example[]): Promise<ClassifierFigures> {
  return figures(
    labels,
    examples,
    await probabilities(
      clf,
      labels,
      examples.map((e) => e.text),
    ),
  );
}

export interface ClassMetrics {
  accuracy: number;
  macro_f1: number;
  per_class_f1: Record<string, number>;
  n: number;
}

/** Single-label scoring of argmax predictions; on a multi-label row a prediction in the gold set counts as right. */
export function score(labels: string[], gold: string[][], predicted: number[]): ClassMetrics {
  const L = labels.length;
  const tp = new Array<number>(L).fill(0);
  const fp = new Array<number>(L).fill(0);
  const fn = new Array<number>(L).fill(0);
  let correct = 0;
  gold.forEach((g, i) => {
    const p = labels[predicted[i]!]!;
    if (g.includes(p)) {
      correct++;
      tp[predicted[i]!]!++;
    } else {
      fp[predicted[i]!]!++;
      fn[labels.indexOf(g[0]!)]!++;
    }
  });
  const f1 = labels.map((_, k) => (tp[k]! === 0 ? 0 : (2 * tp[k]!) / (2 * tp[k]! + fp[k]! + fn[k]!)));
  return {
    accuracy: correct / gold.length,
    macro_f1: f1.reduce((s, v) => s + v, 0) / L,
    per_class_f1: Object.fromEntries(labels.map((l, k) => [l, round4(f1[k]!)])),
    n: gold.length,
  };
}
