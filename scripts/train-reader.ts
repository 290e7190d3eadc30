// npm run train:reader [-- --squad data/datasets/squad/dev-v1.1-part-a.json --out models/text/reader --seed 7]
// Trains the extractive reader's two rankers on SQuAD: the sentence ranker (does this sentence of the retrieved chunks
// hold the answer?) and the span ranker over the word spans of the best few sentences (which span is the answer?).
// Training uses the even-numbered articles only; hyper-parameters, the number of sentences the span step reads and
// how the best spans decide the answer (the best one, or their consensus) are chosen on the odd-numbered ones. Retrieval is simulated by BM25 over each half's own chunks (the service's chunker), so the
// candidate sentences look like those the pipeline sees. Writes two ONNX tree ensembles, settings.json and
// model-card.json; a re-run reproduces them byte for byte.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { rng } from '../src/infra/rng.js';
import { type Ensemble, compactEnsemble, predictRaw } from '../src/infra/tree-ensemble.js';
import { termsOf } from '../src/text/rag/ask/extractive.js';
import {
  LearnedReader,
  type QuestionInfo,
  SENTENCE_FEATURES,
  SPAN_FEATURES,
  type SentenceCandidate,
  type SentenceFeatures,
  analyseQuestion,
  featureVector,
  titleStems,
  sentenceFeatures,
  spanCandidates,
  spanRows,
} from '../src/text/rag/ask/reader.js';
import { contextStems, sectionHeadings } from '../src/text/rag/ask/sections.js';
import type { ConsensusSettings } from '../src/text/rag/ask/span-consensus.js';
import { chunkDocument } from '../src/text/rag/chunker.js';
import { sentenceSpans } from '../src/text/sentences.js';
import { type GbdtParams, bagEnsembles, trainGbdtHistogram } from './lib/ml/gbdt.js';
import { ensembleToOnnx } from './lib/ml/onnx-trees.js';
import { round4 } from './lib/results.js';
import { type Half, type Question, indexed, readTrainSets } from './lib/text/reader-train-sets.js';
import { bestF1, exactMatch, squadFileName } from './lib/text/squad-eval.js';

const VERSION = '3.2.0';
const { values: args } = parseArgs({
  options: {
    squad: { type: 'string', default: 'data/datasets/squad/dev-v1.1-part-a.json' },
    out: { type: 'string', default: 'models/text/reader' },
    seed: { type: 'string', default: '7' },
    // Development: one configuration of each model (the last chosen ones), for trying features quickly.
    quick: { type: 'boolean', default: false },
    // Training sets of other kinds of text beside SQuAD's even half (scripts/lib/text/reader-train-sets.ts), e.g.
    // train/qa; "none" (the shipped reader): SQuAD only. Tried with train/qa and not kept (docs/text.md).
    'train-sets': { type: 'string', default: 'none' },
  },
});
const seed = Number(args.seed);
const TOP_CHUNKS = 5;
/** Negative rows kept per question (all positives are kept): enough to learn from, small enough to train fast. */
const SENTENCE_NEGATIVES = 40;
const SPAN_NEGATIVES = 30;
const SPAN_PARTIAL = 10;
/** Sentences whose spans make the span ranker's training rows (their scores cross-fitted on the even half). */
const TRAIN_SENTENCES = 3;
/** Span models averaged (each with its own seed). */
const SPAN_BAG = 3;

type SquadFile = {
  data: { title: string; paragraphs: { context: string; qas: { question: string; answers: { text: string; answer_start: number }[] }[] }[] }[];
};
const squad = JSON.parse(readFileSync(fromRoot(args.squad), 'utf8')) as SquadFile;

function half(parity: 0 | 1): Half {
  const questions: Question[] = [];
  const chunks: { text: string; source: string }[] = [];
  squad.data.forEach((article, i) => {
    if (i % 2 !== parity) return;
    // The same documents as the evaluation's collection (scripts/lib/text/squad-collection.ts).
    const source = squadFileName(article.title);
    for (const c of chunkDocument(article.paragraphs.map((p) => p.context).join('\n\n'))) chunks.push({ text: c.text, source });
    for (const p of article.paragraphs) for (const qa of p.qas) questions.push({ question: qa.question, answers: qa.answers.map((x) => x.text), article: i });
  });
  return indexed(questions, chunks);
}

/**
 * The training sets of other kinds of text (reader-train-sets.ts), each retrieved within its own documents. Their
 * documents are numbered after SQuAD's articles (10,000 apart per set), so the cross-fitting folds split them by document.
 */
function otherSets(): (Half & { name: string })[] {
  if (args['train-sets'] === 'none') return [];
  return readTrainSets(fromRoot(args['train-sets'])).map((set, k) => ({
    name: set.name,
    ...indexed(
      set.questions.map((q) => ({ question: q.question, answers: q.answers, article: 10_000 * (k + 1) + q.document })),
      set.chunks,
    ),
    wrapped: true,
  }));
}

interface Prepared {
  q: QuestionInfo;
  item: Question;
  candidates: SentenceCandidate[];
  labels: number[];
  /** Each candidate's features by name, and as the sentence model's input row (in SENTENCE_FEATURES' order). */
  features: SentenceFeatures[];
  rows: Float32Array[];
}

function prepare(h: Half): Prepared[] {
  return h.questions.map((item) => {
    const q = analyseQuestion(item.question, h.rarity);
    const candidates: SentenceCandidate[] = [];
    const hits = h.bm25.search(item.question, TOP_CHUNKS);
    const top = Math.max(0, ...hits.map(([, score]) => score));
    hits.forEach(([id, score], chunkRank) => {
      const chunkBm25 = top > 0 ? score / top : 1;
      const title = titleStems(h.sources[Number(id)]!);
      const chunk = h.chunks[Number(id)]!;
      // As the service reads: each sentence holds its section heading's words too (sections.ts; within the chunk).
      const spans = sentenceSpans(chunk);
      const headings = sectionHeadings(chunk, spans, null, false);
      spans.forEach(({ text }, position) => candidates.push({ text, chunkRank, chunkBm25, position, titleStems: contextStems(title, headings[position]!) }));
    });
    // In the other sets, whitespace-insensitive: a hard-wrapped file's answer may run across a line break.
    const plain = h.wrapped ? oneLine : (s: string) => s;
    const answers = item.answers.map(plain);
    const labels = candidates.map((c) => Number(answers.some((a) => plain(c.text).includes(a))));
    const features = candidates.length ? sentenceFeatures(q, candidates) : [];
    return { q, item, candidates, labels, features, rows: features.map((f) => featureVector(f, SENTENCE_FEATURES)) };
  });
}

function sample<T>(rows: T[], n: number, rand: () => number): T[] {
  if (rows.length <= n) return rows;
  const idx = rows.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => rows[i]!);
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ');
const argmax = (xs: number[]) => xs.reduce((best, x, i) => (x > xs[best]! ? i : best), 0);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

console.log('preparing candidates (BM25 top chunks of each half)...');
const even = half(0);
const odd = half(1);
const others = otherSets();
const train = [...prepare(even), ...others.flatMap(prepare)];
const heldOut = prepare(odd);
console.log(
  `even half: ${even.questions.length} questions, ${even.chunks.length} chunks; other training sets: ${others.reduce((n, h) => n + h.questions.length, 0)} questions, ${others.reduce((n, h) => n + h.chunks.length, 0)} chunks; odd half: ${heldOut.length} questions, ${odd.chunks.length} chunks`,
);

// ---- Sentence ranker ----
const rand = rng(seed);
/** Rows of the sentence ranker: every sentence holding an answer and a sample of the others, per question. */
function sentenceRows(ps: Prepared[]) {
  const X: Float32Array[] = [];
  const y: number[] = [];
  for (const p of ps) {
    const pos = p.labels.flatMap((l, i) => (l ? [i] : []));
    const neg = sample(
      p.labels.flatMap((l, i) => (l ? [] : [i])),
      SENTENCE_NEGATIVES,
      rand,
    );
    for (const i of [...pos, ...neg]) {
      X.push(p.rows[i]!);
      y.push(p.labels[i]!);
    }
  }
  return { X, y };
}
const answerable = (ps: Prepared[]) => ps.filter((p) => p.labels.some(Boolean));
/** Share of questions whose top-ranked sentence holds a gold answer. */
const sentenceAccuracy = (model: Ensemble, ps: Prepared[]) =>
  mean(ps.map((p) => (p.candidates.length ? p.labels[argmax(p.rows.map((x) => predictRaw(model, x)))]! : 0)));
const baselineAccuracy = (ps: Prepared[]) => mean(ps.map((p) => (p.candidates.length ? p.labels[argmax(p.features.map((f) => f.idf_overlap))]! : 0)));

const base: GbdtParams = { nTrees: 150, maxDepth: 4, learningRate: 0.1, minChildWeight: 5, lambda: 1, gamma: 0, subsample: 0.8, colsample: 0.8, seed };
const grid = (variants: Partial<GbdtParams>[]) => variants.map((v) => ({ ...base, ...v }));
const sRows = sentenceRows(train);
console.log(`sentence ranker: ${sRows.X.length} rows x ${SENTENCE_FEATURES.length} features`);
let sentence: { params: GbdtParams; model: Ensemble; accuracy: number } | null = null;
const sentenceTrials: { depth: number; trees: number; top1_holds_answer: number }[] = [];
for (const params of grid(args.quick ? [{ maxDepth: 5, nTrees: 500 }] : [{ maxDepth: 5 }, { maxDepth: 5, nTrees: 300 }, { maxDepth: 5, nTrees: 500 }])) {
  const t0 = performance.now();
  const model = trainGbdtHistogram(sRows.X, sRows.y, { ...params, bins: 64 });
  const accuracy = sentenceAccuracy(model, heldOut);
  console.log(
    `  depth ${params.maxDepth}, ${params.nTrees} trees, lr ${params.learningRate}: odd-half top-1 ${accuracy.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  sentenceTrials.push({ depth: params.maxDepth, trees: params.nTrees, top1_holds_answer: round4(accuracy) });
  if (!sentence || accuracy > sentence.accuracy) sentence = { params, model, accuracy };
}
const sentenceBaseline = baselineAccuracy(heldOut);
console.log(`  chosen depth ${sentence!.params.maxDepth}, ${sentence!.params.nTrees} trees; rare-word overlap alone: ${sentenceBaseline.toFixed(4)}`);

// The span ranker sees each sentence's score, so its training rows need scores like those of unseen questions: on
// the even half they are cross-fitted (two folds of articles, each scored by a ranker trained on the other).
console.log('cross-fitting sentence scores on the even half (2 folds of articles)...');
const trainScores: number[][] = train.map(() => []);
for (const fold of [0, 1]) {
  const inFold = (p: Prepared) => (p.item.article % 4 === 0 ? 0 : 1) === fold;
  const rows = sentenceRows(train.filter((p) => !inFold(p)));
  const model = trainGbdtHistogram(rows.X, rows.y, { ...sentence!.params, bins: 64 });
  train.forEach((p, k) => {
    if (inFold(p)) trainScores[k] = p.rows.map((x) => predictRaw(model, x));
  });
}

// ---- Span ranker (spans of the best few sentences, competing with each other) ----
interface SpanRows {
  y: number[];
  X: Float32Array[];
}
/** Every candidate span of a question's best `k` sentences by `scores`, with its features and token F1. */
function questionSpanRows(p: Prepared, scores: number[], k: number): SpanRows {
  const order = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  const out: SpanRows = { y: [], X: [] };
  order.slice(0, k).forEach((i, rank) => {
    const terms = termsOf(p.candidates[i]!.text);
    const spans = spanCandidates(terms, p.q);
    if (!spans.length) return;
    const standing = { score: scores[i]!, rank, gap: scores[order[0]!]! - scores[i]! };
    spanRows(terms, spans, p.q, p.features[i]!, standing, SPAN_FEATURES).forEach((x, j) => {
      out.X.push(x);
      out.y.push(bestF1(spans[j]!.text, p.item.answers));
    });
  });
  return out;
}
const pX: Float32Array[] = [];
const pY: number[] = [];
train.forEach((p, k) => {
  if (!p.candidates.length) return;
  const r = questionSpanRows(p, trainScores[k]!, TRAIN_SENTENCES);
  // Every good span (F1 >= 0.5), and a sample of the partial overlaps and of the misses.
  const good = r.y.flatMap((y, i) => (y >= 0.5 ? [i] : []));
  const partial = sample(
    r.y.flatMap((y, i) => (y > 0 && y < 0.5 ? [i] : [])),
    SPAN_PARTIAL,
    rand,
  );
  const neg = sample(
    r.y.flatMap((y, i) => (y > 0 ? [] : [i])),
    SPAN_NEGATIVES,
    rand,
  );
  for (const i of [...good, ...partial, ...neg]) {
    pX.push(r.X[i]!);
    pY.push(r.y[i]!);
  }
});
console.log(`span ranker: ${pX.length} rows x ${SPAN_FEATURES.length} features from the best ${TRAIN_SENTENCES} sentences of each question`);

const endToEnd = (spanModel: Ensemble, k: number, consensus?: ConsensusSettings) => {
  const reader = new LearnedReader({
    sentence: compactEnsemble(sentence!.model),
    span: compactEnsemble(spanModel),
    sentencesForSpans: k,
    ...(consensus ? { consensus } : {}),
  });
  const f1s: number[] = [];
  const ems: number[] = [];
  for (const p of heldOut) {
    const r = reader.read({ ...p.q, answerType: 'factoid' }, p.candidates);
    f1s.push(r ? bestF1(r.answer, p.item.answers) : 0);
    ems.push(r && exactMatch(r.answer, p.item.answers) ? 1 : 0);
  }
  return { f1: mean(f1s), exact_match: mean(ems) };
};
type SpanChoice = { params: GbdtParams; model: Ensemble; k: number; f1: number; exact_match: number };
const spanTrials: { depth: number; trees: number; learning_rate: number; k: number; f1: number; exact_match: number }[] = [];
let span: SpanChoice | null = null;
for (const params of grid(args.quick ? [{ maxDepth: 9 }] : [{ maxDepth: 7 }, { maxDepth: 9 }])) {
  const t0 = performance.now();
  // A bag of models that differ in their row and feature samples (seeds seed .. seed + SPAN_BAG - 1), averaged: one
  // model's choice of the best of hundreds of spans varies with its samples.
  const model = bagEnsembles(Array.from({ length: SPAN_BAG }, (_, b) => trainGbdtHistogram(pX, pY, { ...params, seed: params.seed + b, bins: 64 })));
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  for (const k of args.quick ? [4] : [3, 4, 5]) {
    const e = endToEnd(model, k);
    spanTrials.push({
      depth: params.maxDepth,
      trees: params.nTrees,
      learning_rate: params.learningRate,
      k,
      f1: round4(e.f1),
      exact_match: round4(e.exact_match),
    });
    console.log(
      `  depth ${params.maxDepth}, ${params.nTrees} trees, lr ${params.learningRate} (${seconds} s), spans of the best ${k} sentences: odd-half end-to-end F1 ${e.f1.toFixed(4)}, EM ${e.exact_match.toFixed(4)}`,
    );
    if (!span || e.f1 > span.f1) span = { params, model, k, ...e };
  }
}
console.log(`  chosen: depth ${span!.params.maxDepth}, ${span!.params.nTrees} trees, ${span!.k} sentences`);

// ---- Decoding: the best span, or the one the best few agree on (span-consensus.ts), chosen on the odd half ----
const decodingTrials: { spans: number; temperature: number; f1: number; exact_match: number }[] = [];
let decoding: { consensus: ConsensusSettings | null; f1: number; exact_match: number } = { consensus: null, f1: span!.f1, exact_match: span!.exact_match };
for (const spans of args.quick ? [10] : [5, 10, 20])
  for (const temperature of args.quick ? [0.5] : [0.25, 0.5, 1]) {
    const e = endToEnd(span!.model, span!.k, { spans, temperature });
    decodingTrials.push({ spans, temperature, f1: round4(e.f1), exact_match: round4(e.exact_match) });
    console.log(
      `  consensus of the best ${spans} spans, temperature ${temperature}: odd-half end-to-end F1 ${e.f1.toFixed(4)}, EM ${e.exact_match.toFixed(4)}`,
    );
    if (e.f1 > decoding.f1) decoding = { consensus: { spans, temperature }, ...e };
  }
console.log(
  `  chosen decoding: ${decoding.consensus ? `consensus of ${decoding.consensus.spans} spans at ${decoding.consensus.temperature}` : 'the best span'}`,
);

// ---- Artefacts ----
const outDir = fromRoot(args.out);
mkdirSync(outDir, { recursive: true });
const about = (what: string) => ({ producer: 'reader-gbdt', docString: `Extractive reader: ${what}`, graph: `reader_${what.split(' ')[0]}` });
writeFileSync(
  join(outDir, 'sentence.onnx'),
  ensembleToOnnx(sentence!.model, { featureNames: [...SENTENCE_FEATURES], version: VERSION }, about('sentence ranker')),
);
writeFileSync(join(outDir, 'span.onnx'), ensembleToOnnx(span!.model, { featureNames: [...SPAN_FEATURES], version: VERSION }, about('span ranker')));
writeFileSync(
  join(outDir, 'settings.json'),
  `${JSON.stringify({ sentencesForSpans: span!.k, ...(decoding.consensus ? { consensus: decoding.consensus } : {}) }, null, 2)}\n`,
);
const card = {
  name: 'extractive-reader',
  version: VERSION,
  task: 'extractive question answering without a language model: rank the sentences of the retrieved chunks, then the word spans of the best ones',
  use: 'src/text/rag/ask/reader.ts (loadLearnedReader); inference is plain tree traversal, no ONNX Runtime session',
  data: {
    name: 'SQuAD v1.1 development set, part a (data/datasets/squad/dev-v1.1-part-a.json)',
    licence: 'CC BY-SA 4.0',
    split:
      "articles by their index in the file's data array: even-numbered (0, 2, 4, ...) for training, odd-numbered for choosing hyper-parameters and settings; never the reverse",
    train_questions: train.length,
    ...(others.length ? { other_training_sets: Object.fromEntries(others.map((h) => [`${args['train-sets']}/${h.name}`, h.questions.length])) } : {}),
    held_out_questions: heldOut.length,
    retrieval: `candidate sentences are those of the top ${TOP_CHUNKS} chunks (the service's chunker) by BM25 within each half`,
  },
  sentence_ranker: {
    model: 'gradient-boosted trees (scripts/lib/ml/gbdt.ts), binary log-loss; label: the sentence contains a gold answer',
    file: 'sentence.onnx',
    params: sentence!.params,
    features: SENTENCE_FEATURES,
    rows: sRows.X.length,
    negatives_per_question: SENTENCE_NEGATIVES,
    odd_half: {
      top1_holds_answer: round4(sentence!.accuracy),
      rare_word_overlap_baseline: round4(sentenceBaseline),
      questions_with_answer_in_candidates: round4(answerable(heldOut).length / heldOut.length),
      trials: sentenceTrials,
    },
  },
  span_ranker: {
    model: `the mean of ${SPAN_BAG} gradient-boosted tree models (seeds ${seed} to ${seed + SPAN_BAG - 1}; one ensemble of all their trees, leaves divided by ${SPAN_BAG}), log-loss on soft labels: each span's token F1 against the best gold answer`,
    candidates: `the word spans of the best ${TRAIN_SENTENCES} sentences by the sentence ranker's score (cross-fitted over two folds of the even half), each with its sentence's score, rank and gap to the best`,
    file: 'span.onnx',
    params: span!.params,
    features: SPAN_FEATURES,
    rows: pX.length,
    negatives_per_question: SPAN_NEGATIVES,
    partial_overlaps_per_question: SPAN_PARTIAL,
  },
  settings: { sentences_for_spans: span!.k, consensus: decoding.consensus, chosen_on: 'odd half, end-to-end token F1' },
  decoding: {
    rule: 'consensus (minimum-Bayes-risk) decoding: among the best `spans` candidates by score, the one with the highest sum of token F1 with the others, each weighted exp((score - best) / temperature); null: the best-scoring span',
    best_span: { f1: round4(span!.f1), exact_match: round4(span!.exact_match) },
    trials: decodingTrials,
  },
  end_to_end_odd_half_bm25_retrieval: {
    chosen: { f1: round4(decoding.f1), exact_match: round4(decoding.exact_match) },
    trials: spanTrials,
  },
  note: 'The odd half chose the hyper-parameters, so its figures are slightly optimistic; the service evaluation is npm run eval:qa (docs/results/qa-squad.json).',
};
writeFileSync(join(outDir, 'model-card.json'), `${JSON.stringify(card, null, 2)}\n`);
console.log(`wrote ${outDir}`);
