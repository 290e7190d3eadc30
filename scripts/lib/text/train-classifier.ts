// Shared driver for the compact classifiers: vocabulary, tokenisation by the shipped tokenizer, training with
// early stopping on a development split, held-out evaluation, ONNX export and a parity check through transformers.js.
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env, pipeline } from '@huggingface/transformers';
import { rng } from '../../../src/infra/rng.js';
import { calibration } from '../ml/metrics.js';
import {
  BIGRAM_BUCKETS,
  BIGRAM_PRIME,
  type BagParams,
  BagClassifier,
  type ClassMetrics,
  NEGATION_BOUNDARIES,
  NEGATORS,
  type TrainExample,
  score,
  softmax,
} from './bag-model.js';
import type { Example } from './data.js';
import { type Glove, roughTokens } from './glove.js';
import { SPECIAL, tokenizerJson, writeModelDir } from './model-dir.js';
import { type ClassifierWeights, classifierOnnx, ensembleClassifierOnnx, interleaveMembers, quantiseMemberRows } from './onnx-classifier.js';

export interface ClassifierSpec {
  name: string;
  outDir: string;
  labels: string[];
  train: Example[];
  dev: Example[];
  tests: Record<string, Example[]>;
  /** Slices of the development split, reported for model choices (never the held-out tests). */
  devSlices?: Record<string, Example[]>;
  /**
   * Dev slices that count equally for early stopping (mean of their macro-F1) and for the temperature (mean of their
   * log-losses), so that one large source does not decide alone. Default: the pooled dev split.
   */
  selectionSlices?: string[];
  params: BagParams;
  /** Most frequent GloVe words always in the vocabulary, so unseen words still carry meaning. */
  topGlove: number;
  /** Weigh classes by 1/sqrt(frequency) against imbalance. */
  balance: boolean;
  /**
   * Members of an ensemble (default 1): each is trained with its own seed (params.seed + k) and early stopping, and
   * the shipped graph outputs the mean of their logits.
   */
  members?: number;
  /** Precision of the word and pair tables in the ONNX file (default half; int8 with a scale per row and member). */
  tables?: 'half' | 'int8';
  /** Words up to this many tokens after a negator (NEGATORS), before a boundary, pool apart (default 0: off). */
  negationWindow?: number;
  /**
   * After training, add to the logits the per-class offset (one class fixed at 0) that maximises the mean accuracy over
   * the selection slices (grid -1.5 to 1.5 by 0.05): class weights that help macro-F1 during training shift the
   * decision towards rare classes, which costs accuracy where those classes are rare (default off).
   */
  priorShift?: boolean;
  /** What early stopping maximises over the selection slices (their mean): macro-F1 (default) or accuracy. */
  selectionMetric?: 'macro_f1' | 'accuracy';
  card: Record<string, unknown>;
  glove: Glove;
}

export function buildVocab(texts: string[], glove: Glove, topGlove: number, minCount = 2, lexiconWords: string[] = []): string[] {
  const counts = new Map<string, number>();
  for (const t of texts) for (const w of roughTokens(t)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const vocab: string[] = [...SPECIAL];
  const seen = new Set<string>(vocab);
  for (const w of [...glove.words.slice(0, topGlove), ...lexiconWords]) {
    if (!seen.has(w) && !/\s/.test(w)) {
      vocab.push(w);
      seen.add(w);
    }
  }
  const extra = [...counts.entries()].filter(([w, c]) => !seen.has(w) && c >= minCount).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [w] of extra) vocab.push(w);
  return vocab;
}

/** The shipped tokenizer, loaded through transformers.js, so training sees exactly the ids serving will. */
export async function tokenizerFor(vocab: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'tok-'));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ tokenizer_class: 'BertTokenizer', model_max_length: 512 }));
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const tok = await AutoTokenizer.from_pretrained(dir);
  return (text: string) => Int32Array.from(tok.encode(text, { add_special_tokens: false }));
}

export function gloveTable(vocab: string[], glove: Glove, seed: number): Float32Array {
  const D = glove.dim;
  const table = new Float32Array(vocab.length * D);
  const rand = rng(seed);
  let normSum = 0;
  let found = 0;
  vocab.forEach((w, i) => {
    const v = glove.vector(w);
    if (!v) return;
    table.set(v, i * D);
    normSum += Math.hypot(...v);
    found++;
  });
  // Unit average norm keeps the first layer's inputs in a friendly range; unknown words start small and random.
  const scale = found ? found / normSum : 1;
  vocab.forEach((w, i) => {
    if (i < SPECIAL.length) return;
    if (glove.vector(w)) for (let d = 0; d < D; d++) table[i * D + d]! *= scale;
    else for (let d = 0; d < D; d++) table[i * D + d] = (rand() - 0.5) * 0.1;
  });
  return table;
}

export async function trainClassifier(spec: ClassifierSpec): Promise<Record<string, unknown>> {
  const { labels, glove, params } = spec;
  const lexiconWords = 'lexiconWords' in glove ? (glove.lexiconWords as string[]) : [];
  const vocab = buildVocab(
    spec.train.map((e) => e.text),
    glove,
    spec.topGlove,
    2,
    lexiconWords,
  );
  console.log(
    `${spec.name}: vocabulary ${vocab.length} (top ${spec.topGlove} GloVe words${lexiconWords.length ? ', the sentiment lexicon' : ''} + training words seen twice)`,
  );
  const encode = await tokenizerFor(vocab);
  const freq = labels.map((l) => spec.train.filter((e) => e.labels.includes(l)).length / spec.train.length);
  const classWeight = labels.map((_, k) => (spec.balance ? 1 / Math.sqrt(Math.max(freq[k]!, 1e-3)) : 1));
  const meanWeight = freq.reduce((s, f, k) => s + f * classWeight[k]!, 0);
  const toExample = (e: Example): TrainExample => {
    const target = new Float32Array(labels.length);
    const ks = e.labels.map((l) => labels.indexOf(l)).filter((k) => k >= 0);
    for (const k of ks) target[k] = 1 / ks.length;
    const weight = ks.reduce((s, k) => s + classWeight[k]!, 0) / ks.length / meanWeight;
    return { ids: encode(e.text), target, weight: weight * (e.weight ?? 1) };
  };
  const train = spec.train.map(toExample);
  const devIds = spec.dev.map((e) => encode(e.text));
  const tokenWeights = Float32Array.from(vocab, (_, i) => (i < SPECIAL.length ? 0 : 1));
  const K = spec.members ?? 1;
  const flags = (words: string[]) => Float32Array.from(vocab, (w) => (words.includes(w) ? 1 : 0));
  const negation = spec.negationWindow ? { negators: flags(NEGATORS), boundaries: flags(NEGATION_BOUNDARIES), window: spec.negationWindow } : undefined;
  const members: BagClassifier[] = [];
  // The ensemble's probabilities: softmax of the mean of the members' logits (one member: its own probabilities).
  const model = {
    probabilities(ids: Int32Array): Float32Array {
      if (members.length === 1) return members[0]!.probabilities(ids);
      const z = new Float32Array(labels.length);
      const all = members.map((m) => m.logitsOf(ids));
      for (let l = 0; l < labels.length; l++) z[l] = all.reduce((s, zk) => s + zk[l]!, 0) / all.length;
      return softmax(z);
    },
  };

  const argmax = (p: Float32Array) => p.indexOf(Math.max(...p));
  const evaluateWith = (predict: (x: Int32Array) => Float32Array, ids: Int32Array[], examples: Example[]): ClassMetrics =>
    score(
      labels,
      examples.map((e) => e.labels),
      ids.map((x) => argmax(predict(x))),
    );
  const evaluate = (ids: Int32Array[], examples: Example[]) => evaluateWith((x) => model.probabilities(x), ids, examples);
  // The development sets that choose the epoch and the temperature: the pooled dev split, or the named slices.
  const selection = spec.selectionSlices
    ? spec.selectionSlices.map((name) => {
        const examples = spec.devSlices?.[name];
        if (!examples) throw new Error(`selection slice ${name} is not a dev slice`);
        return { name, examples, ids: examples.map((e) => encode(e.text)) };
      })
    : [{ name: 'dev', examples: spec.dev, ids: devIds }];
  const bestEpochs: number[] = [];
  const t0 = performance.now();
  for (let k = 0; k < K; k++) {
    const seed = params.seed + k;
    const member = new BagClassifier(gloveTable(vocab, glove, seed), tokenWeights, glove.dim, labels.length, params.hidden, seed, negation);
    if (K > 1) console.log(`  member ${k + 1} of ${K} (seed ${seed})`);
    let best = { score: -1, epoch: 0, weights: member.snapshot() };
    member.train(train, { ...params, seed }, (epoch) => {
      const per = selection.map((s) => evaluateWith((x) => member.probabilities(x), s.ids, s.examples));
      const score = per.reduce((a, m) => a + m[spec.selectionMetric ?? 'macro_f1'], 0) / per.length;
      const shown = per.map(
        (m, i) => `${selection.length > 1 ? `${selection[i]!.name} ` : ''}accuracy ${m.accuracy.toFixed(4)} macro-F1 ${m.macro_f1.toFixed(4)}`,
      );
      console.log(`  epoch ${epoch}: dev ${shown.join(', ')} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      if (score > best.score) best = { score, epoch, weights: member.snapshot() };
      return epoch - best.epoch < 2; // stop after two epochs without improvement
    });
    member.restore(best.weights);
    bestEpochs.push(best.epoch);
    members.push(member);
  }
  const V = vocab.length;
  const D = glove.dim;
  if (spec.tables === 'int8') {
    // The trainer evaluates the tables the ONNX file holds: int8 with a scale per row and member, dequantised.
    for (const [name, rows] of [
      ['embeddings', V],
      ['bigrams', BIGRAM_BUCKETS],
    ] as const) {
      const { dequantised } = quantiseMemberRows(
        rows,
        K,
        D,
        interleaveMembers(
          members.map((m) => m.w[name]),
          rows,
          D,
        ),
      );
      members.forEach((m, k) => {
        for (let r = 0; r < rows; r++) m.w[name].set(dequantised.subarray((r * K + k) * D, (r * K + k + 1) * D), r * D);
      });
    }
  }
  if (K > 1) {
    const per = selection.map((s) => evaluate(s.ids, s.examples));
    console.log(
      `  ensemble of ${K}: dev ${per.map((m, i) => `${selection[i]!.name} accuracy ${m.accuracy.toFixed(4)} macro-F1 ${m.macro_f1.toFixed(4)}`).join(', ')}`,
    );
  }

  let priorShift: Record<string, unknown> | undefined;
  if (spec.priorShift) {
    const shift = fitPriorShift(
      labels.length,
      selection.map((s) => ({ z: s.ids.map((x) => model.probabilities(x)).map((p) => p.map((v) => Math.log(Math.max(v, 1e-12)))), examples: s.examples })),
      (e) => e.labels.map((l) => labels.indexOf(l)),
    );
    for (const m of members) for (let k = 0; k < labels.length; k++) m.w.b2[k]! += shift.offset[k]!;
    priorShift = {
      rule: 'per-class offset added to the logits (neutral fixed at 0), grid -1.5 to 1.5 by 0.05, maximising the mean dev accuracy of the selection slices; ties go to the smaller offset',
      offset: Object.fromEntries(labels.map((l, k) => [l, Math.round(shift.offset[k]! * 100) / 100])),
      dev_accuracy: Object.fromEntries(selection.map((s, i) => [s.name, { before: shift.before[i], after: shift.after[i] }])),
    };
    console.log(
      `  prior shift ${JSON.stringify(priorShift.offset)}: dev accuracy ${shift.before.map((a) => a.toFixed(4)).join(', ')} -> ${shift.after.map((a) => a.toFixed(4)).join(', ')}`,
    );
  }

  // Temperature scaling on the development split: the logits are divided by the T that minimises dev log-loss,
  // so the probabilities the service reports (its "confidence") are honest. Accuracy does not change.
  const logProbs = (ids: Int32Array[]) => ids.map((x) => model.probabilities(x)).map((p) => p.map((v) => Math.log(Math.max(v, 1e-12))));
  const gold = (examples: Example[]) => examples.map((e) => e.labels.map((l) => labels.indexOf(l)));
  const selLogits = selection.map((s) => ({ z: logProbs(s.ids), gold: gold(s.examples) }));
  const nll = (T: number) => selLogits.reduce((s, { z, gold: g }) => s + calibrationAt(z, g, T).log_loss, 0) / selLogits.length;
  let temperature = 1;
  for (let T = 0.5; T <= 8; T += 0.05) if (nll(T) < nll(temperature)) temperature = Math.round(T * 100) / 100;
  console.log(`  temperature ${temperature} (dev log-loss ${nll(1).toFixed(4)} -> ${nll(temperature).toFixed(4)})`);
  for (const m of members) {
    for (let i = 0; i < m.w.w2.length; i++) m.w.w2[i]! /= temperature;
    for (let i = 0; i < m.w.b2.length; i++) m.w.b2[i]! /= temperature;
  }

  const devMetrics: Record<string, ClassMetrics> = {};
  for (const [name, examples] of Object.entries(spec.devSlices ?? {})) {
    devMetrics[name] = evaluate(
      examples.map((e) => encode(e.text)),
      examples,
    );
    console.log(`  dev ${name}: accuracy ${devMetrics[name].accuracy.toFixed(4)} macro-F1 ${devMetrics[name].macro_f1.toFixed(4)} (n=${examples.length})`);
  }
  const metrics: Record<string, ClassMetrics> = {};
  // Calibration before and after the temperature: the shipped model's probabilities p are softmax(z / T), so the
  // untempered ones are softmax(T log p) exactly.
  const calib: Record<string, Record<string, unknown>> = {};
  const calibrate = (name: string, ids: Int32Array[], examples: Example[]) => {
    const z = logProbs(ids).map((lp) => lp.map((v) => v * temperature));
    const g = gold(examples);
    const [before, after] = [calibrationAt(z, g, 1), calibrationAt(z, g, temperature)];
    calib[name] = { n: examples.length, before_temperature: before, after_temperature: after };
    console.log(
      `  calibration ${name}: log-loss ${before.log_loss.toFixed(4)} -> ${after.log_loss.toFixed(4)}, ECE ${before.ece_15_bins.toFixed(4)} -> ${after.ece_15_bins.toFixed(4)}`,
    );
  };
  for (const s of selection) calibrate(`dev${selection.length > 1 ? `_${s.name}` : ''}`, s.ids, s.examples);
  for (const [name, examples] of Object.entries(spec.tests)) {
    const ids = examples.map((e) => encode(e.text));
    metrics[name] = evaluate(ids, examples);
    console.log(`  held-out ${name}: accuracy ${metrics[name].accuracy.toFixed(4)} macro-F1 ${metrics[name].macro_f1.toFixed(4)} (n=${examples.length})`);
    calibrate(name, ids, examples);
  }

  mkdirSync(spec.outDir, { recursive: true });
  const weights: ClassifierWeights[] = members.map((m) => m.w);
  const onnxBytes =
    K === 1 && spec.tables !== 'int8' && !negation
      ? classifierOnnx(weights[0]!, `${spec.name}: mean and max of word vectors, mean of word-pair vectors -> ReLU layer -> softmax`, BIGRAM_PRIME)
      : ensembleClassifierOnnx(
          weights,
          spec.tables ?? 'half',
          `${spec.name}: ${K} members, each mean and max of word vectors, mean of word-pair vectors -> ReLU layer; mean of their logits -> softmax`,
          BIGRAM_PRIME,
        );
  const card = {
    ...spec.card,
    labels,
    architecture: `${K > 1 ? `mean of the logits of ${K} members (seeds ${params.seed} to ${params.seed + K - 1}), each ` : ''}[mean, max] of ${glove.dim}-d word vectors (${lexiconWords.length ? `${glove.dim - 1} GloVe-initialised dimensions and one from the AFINN-165 valence, all fine-tuned` : 'GloVe-initialised, fine-tuned'}) and mean of hashed word-pair vectors (${BIGRAM_BUCKETS} buckets) -> ${params.hidden} ReLU -> ${labels.length} logits${negation ? `; the words up to ${negation.window} tokens after a negator (${NEGATORS.join(' ')}), with no boundary (${NEGATION_BOUNDARIES.join(' ')}) between, leave the word mean and max for a fourth block, their own mean` : ''}${spec.tables === 'int8' ? '; word and pair tables int8 with a scale per row and member' : ''}`,
    vocabulary_size: vocab.length,
    hyper_parameters: params,
    best_epoch: K === 1 ? bestEpochs[0] : bestEpochs,
    temperature,
    ...(priorShift ? { prior_shift: priorShift } : {}),
    class_weights: spec.balance ? Object.fromEntries(labels.map((l, k) => [l, Math.round((classWeight[k]! / meanWeight) * 1000) / 1000])) : 'none',
    metrics,
    dev_metrics: devMetrics,
    calibration: {
      method:
        'temperature fitted on the development split only (grid 0.5 to 8 by 0.05, minimum dev log-loss); figures on the dev split and on each held-out set, with the temperature (after) and without it (before)',
      log_loss: 'mean of -ln(probability given to the gold label); on a multi-label row, of the summed probability of its gold labels',
      ece_15_bins:
        'expected calibration error of the top label: 15 equal-width confidence bins over [0, 1], sum over bins of (bin share) x |accuracy - mean confidence|; a prediction in the gold set counts as right',
      temperature,
      sets: calib,
    },
  };
  writeModelDir({ dir: spec.outDir, vocab, dim: glove.dim, labels, onnx: onnxBytes, card });

  // The shipped directory must give the same answers through transformers.js as the trainer computes.
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const clf = await pipeline('text-classification', spec.outDir, { dtype: 'fp32' });
  const sample = spec.dev.slice(0, 200);
  let agree = 0;
  for (const e of sample) {
    const out = (await clf(e.text, { top_k: 1 })) as { label: string }[];
    if (out[0]!.label === labels[argmax(model.probabilities(encode(e.text)))]) agree++;
  }
  const sizes = Object.fromEntries(
    ['onnx/model.onnx', 'tokenizer.json', 'config.json', 'tokenizer_config.json'].map((f) => [f, statSync(join(spec.outDir, f)).size]),
  );
  const final = {
    ...card,
    pipeline_parity: `${agree}/${sample.length} dev predictions equal through transformers.js (${spec.tables === 'int8' ? 'int8 tables' : K > 1 ? 'fp16 tables' : 'fp16 table'})`,
    file_sizes_bytes: sizes,
  };
  writeFileSync(join(spec.outDir, 'model-card.json'), `${JSON.stringify(final, null, 2)}\n`);
  console.log(`  wrote ${spec.outDir} (${(sizes['onnx/model.onnx']! / 1e6).toFixed(1)} MB model); pipeline parity ${agree}/${sample.length}`);
  return final;
}

/**
 * The offset to add to the logits (the last class fixed at 0) that maximises the mean accuracy over the slices; a
 * prediction in the gold set counts as right. Ties go to the offset nearest 0.
 */
export function fitPriorShift(
  classes: number,
  slices: { z: Float32Array[]; examples: Example[] }[],
  goldOf: (e: Example) => number[],
): { offset: number[]; before: number[]; after: number[] } {
  const accuracies = (offset: number[]) =>
    slices.map(({ z, examples }) => {
      let right = 0;
      z.forEach((logits, i) => {
        let best = 0;
        for (let k = 1; k < classes; k++) if (logits[k]! + offset[k]! > logits[best]! + offset[best]!) best = k;
        if (goldOf(examples[i]!).includes(best)) right++;
      });
      return right / Math.max(z.length, 1);
    });
  const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
  const zero = new Array<number>(classes).fill(0);
  const steps = Array.from({ length: 61 }, (_, i) => Math.round((-1.5 + i * 0.05) * 100) / 100);
  let best = { offset: zero, score: mean(accuracies(zero)), norm: 0 };
  const visit = (prefix: number[]) => {
    if (prefix.length === classes - 1) {
      const offset = [...prefix, 0];
      const score = mean(accuracies(offset));
      const norm = prefix.reduce((s, v) => s + Math.abs(v), 0);
      if (score > best.score + 1e-12 || (Math.abs(score - best.score) <= 1e-12 && norm < best.norm)) best = { offset, score, norm };
      return;
    }
    for (const v of steps) visit([...prefix, v]);
  };
  visit([]);
  return { offset: best.offset, before: accuracies(zero), after: accuracies(best.offset) };
}

/** Log-loss and 15-bin top-label ECE of softmax(z / T) against gold label sets. */
export function calibrationAt(z: Float32Array[], gold: number[][], T: number): { log_loss: number; ece_15_bins: number } {
  let nll = 0;
  const correct: number[] = [];
  const confidence: number[] = [];
  z.forEach((row, i) => {
    const p = softmax(Float32Array.from(row, (v) => v / T));
    const g = gold[i]!;
    nll -= Math.log(
      Math.max(
        g.reduce((a, k) => a + p[k]!, 0),
        1e-12,
      ),
    );
    const top = p.indexOf(Math.max(...p));
    correct.push(g.includes(top) ? 1 : 0);
    confidence.push(p[top]!);
  });
  return { log_loss: nll / z.length, ece_15_bins: calibration(correct, confidence, 15).ece };
}

/** Deterministic stratified split by the first label. */
export function split<T extends Example>(examples: T[], testShare: number, seed: number): { train: T[]; test: T[] } {
  const rand = rng(seed);
  const train: T[] = [];
  const test: T[] = [];
  const byLabel = new Map<string, T[]>();
  for (const e of examples) byLabel.set(e.labels[0]!, [...(byLabel.get(e.labels[0]!) ?? []), e]);
  for (const group of [...byLabel.keys()].sort().map((k) => byLabel.get(k)!)) {
    const shuffled = [...group];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const cut = Math.round(shuffled.length * testShare);
    test.push(...shuffled.slice(0, cut));
    train.push(...shuffled.slice(cut));
  }
  return { train, test };
}
