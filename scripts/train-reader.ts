// npm run train:reader [-- --squad ../shared/data/squad/dev-v1.1-part-a.json --out models/text/reader --seed 7]
// Trains the extractive reader's two rankers on SQuAD: the sentence ranker (does this sentence of the retrieved chunks
// hold the answer?) and the span ranker (token F1 of a word span of the answer's sentence). Training uses the
// even-numbered articles only; hyper-parameters and the number of sentences the span step reads are chosen on the
// odd-numbered ones. Retrieval is simulated by BM25 over each half's own chunks (the service's chunker), so the
// candidate sentences look like those the pipeline sees. Writes two ONNX tree ensembles, settings.json and
// model-card.json; a re-run reproduces them byte for byte.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../src/infra/paths.js';
import { rng } from '../src/infra/rng.js';
import { type Ensemble, predictRaw } from '../src/infra/tree-ensemble.js';
import { termsOf } from '../src/text/rag/ask/extractive.js';
import {
  LearnedReader,
  type QuestionInfo,
  SENTENCE_FEATURES,
  SPAN_FEATURES,
  type SentenceCandidate,
  analyseQuestion,
  sentenceFeatures,
  spanCandidates,
  spanFeatures,
} from '../src/text/rag/ask/reader.js';
import { chunkDocument } from '../src/text/rag/chunker.js';
import { Bm25Index, bm25Tokens } from '../src/text/search/bm25.js';
import { splitSentences } from '../src/text/sentences.js';
import { type GbdtParams, trainGbdtHistogram } from './lib/ml/gbdt.js';
import { ensembleToOnnx } from './lib/ml/onnx-trees.js';
import { bestF1, exactMatch } from './lib/text/squad-eval.js';

const VERSION = '1.0.0';
const { values: args } = parseArgs({
  options: {
    squad: { type: 'string', default: '../shared/data/squad/dev-v1.1-part-a.json' },
    out: { type: 'string', default: 'models/text/reader' },
    seed: { type: 'string', default: '7' },
  },
});
const seed = Number(args.seed);
const TOP_CHUNKS = 5;
/** Negative rows kept per question (all positives are kept): enough to learn from, small enough to train fast. */
const SENTENCE_NEGATIVES = 12;
const SPAN_NEGATIVES = 12;
const SPAN_PARTIAL = 6;

type SquadFile = {
  data: { title: string; paragraphs: { context: string; qas: { question: string; answers: { text: string; answer_start: number }[] }[] }[] }[];
};
const squad = JSON.parse(readFileSync(fromRoot(args.squad), 'utf8')) as SquadFile;

interface Question {
  question: string;
  answers: string[];
}

interface Half {
  questions: Question[];
  chunks: string[];
  bm25: Bm25Index;
  rarity: (stem: string) => number;
}

function half(parity: 0 | 1): Half {
  const questions: Question[] = [];
  const chunks: string[] = [];
  squad.data.forEach((article, i) => {
    if (i % 2 !== parity) return;
    // The same document text as the evaluation's collection (scripts/lib/text/squad-collection.ts).
    for (const c of chunkDocument(article.paragraphs.map((p) => p.context).join('\n\n'))) chunks.push(c.text);
    for (const p of article.paragraphs) for (const qa of p.qas) questions.push({ question: qa.question, answers: qa.answers.map((x) => x.text) });
  });
  const bm25 = new Bm25Index();
  chunks.forEach((c, i) => bm25.add(String(i), c));
  bm25.build();
  // As the pipeline computes it: stem document frequencies over the chunks, smoothed IDF.
  const df = new Map<string, number>();
  for (const c of chunks) for (const s of new Set(bm25Tokens(c))) df.set(s, (df.get(s) ?? 0) + 1);
  const rarity = (stem: string) => Math.log(1 + chunks.length / (1 + (df.get(stem) ?? 0)));
  return { questions, chunks, bm25, rarity };
}

interface Prepared {
  q: QuestionInfo;
  item: Question;
  candidates: SentenceCandidate[];
  labels: number[];
  features: Float32Array[];
}

function prepare(h: Half): Prepared[] {
  return h.questions.map((item) => {
    const q = analyseQuestion(item.question, h.rarity);
    const candidates: SentenceCandidate[] = [];
    const hits = h.bm25.search(item.question, TOP_CHUNKS);
    const top = Math.max(0, ...hits.map(([, score]) => score));
    hits.forEach(([id, score], chunkRank) => {
      const chunkBm25 = top > 0 ? score / top : 1;
      splitSentences(h.chunks[Number(id)]!).forEach((text, position) => candidates.push({ text, chunkRank, chunkBm25, position }));
    });
    const labels = candidates.map((c) => Number(item.answers.some((a) => c.text.includes(a))));
    return { q, item, candidates, labels, features: candidates.length ? sentenceFeatures(q, candidates) : [] };
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

const argmax = (xs: number[]) => xs.reduce((best, x, i) => (x > xs[best]! ? i : best), 0);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const round = (x: number) => Math.round(x * 1e4) / 1e4;

console.log('preparing candidates (BM25 top chunks of each half)...');
const even = half(0);
const odd = half(1);
const train = prepare(even);
const heldOut = prepare(odd);
console.log(`even half: ${train.length} questions, ${even.chunks.length} chunks; odd half: ${heldOut.length} questions, ${odd.chunks.length} chunks`);

// ---- Sentence ranker ----
const rand = rng(seed);
const sX: Float32Array[] = [];
const sY: number[] = [];
for (const p of train) {
  const pos = p.labels.flatMap((l, i) => (l ? [i] : []));
  const neg = sample(
    p.labels.flatMap((l, i) => (l ? [] : [i])),
    SENTENCE_NEGATIVES,
    rand,
  );
  for (const i of [...pos, ...neg]) {
    sX.push(p.features[i]!);
    sY.push(p.labels[i]!);
  }
}
const answerable = (ps: Prepared[]) => ps.filter((p) => p.labels.some(Boolean));
/** Share of questions whose top-ranked sentence holds a gold answer. */
const sentenceAccuracy = (model: Ensemble, ps: Prepared[]) =>
  mean(ps.map((p) => (p.candidates.length ? p.labels[argmax(p.features.map((x) => predictRaw(model, x)))]! : 0)));
const baselineAccuracy = (ps: Prepared[]) => mean(ps.map((p) => (p.candidates.length ? p.labels[argmax(p.features.map((x) => x[0]!))]! : 0)));

const base: GbdtParams = { nTrees: 150, maxDepth: 4, learningRate: 0.1, minChildWeight: 5, lambda: 1, gamma: 0, subsample: 0.8, colsample: 0.8, seed };
const grid = (variants: Partial<GbdtParams>[]) => variants.map((v) => ({ ...base, ...v }));
console.log(`sentence ranker: ${sX.length} rows x ${SENTENCE_FEATURES.length} features`);
let sentence: { params: GbdtParams; model: Ensemble; accuracy: number } | null = null;
for (const params of grid([{ maxDepth: 3 }, { maxDepth: 5 }])) {
  const t0 = performance.now();
  const model = trainGbdtHistogram(sX, sY, { ...params, bins: 64 });
  const accuracy = sentenceAccuracy(model, heldOut);
  console.log(
    `  depth ${params.maxDepth}, ${params.nTrees} trees, lr ${params.learningRate}: odd-half top-1 ${accuracy.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  if (!sentence || accuracy > sentence.accuracy) sentence = { params, model, accuracy };
}
const sentenceBaseline = baselineAccuracy(heldOut);
console.log(`  chosen depth ${sentence!.params.maxDepth}; rare-word overlap alone: ${sentenceBaseline.toFixed(4)}`);

// ---- Span ranker (on the sentence that holds the answer) ----
interface SpanRows {
  q: QuestionInfo;
  item: Question;
  texts: string[];
  y: number[];
  X: Float32Array[];
}
/**
 * Span rows of a question: the best-ranked candidate sentence that holds a gold answer and, with `hardNegative`, the
 * best-ranked one that does not (its spans teach the model what a span of the wrong sentence looks like).
 */
function spanRows(ps: Prepared[], model: Ensemble, hardNegative: boolean): SpanRows[] {
  const out: SpanRows[] = [];
  for (const p of ps) {
    if (!p.labels.some(Boolean)) continue;
    const score = p.features.map((x) => predictRaw(model, x));
    const best = (label: number) => {
      let k = -1;
      p.labels.forEach((l, i) => {
        if (l === label && (k < 0 || score[i]! > score[k]!)) k = i;
      });
      return k;
    };
    for (const i of hardNegative ? [best(1), best(0)] : [best(1)]) {
      if (i < 0) continue;
      const terms = termsOf(p.candidates[i]!.text);
      const spans = spanCandidates(terms, p.q);
      if (!spans.length) continue;
      out.push({
        q: p.q,
        item: p.item,
        texts: spans.map((s) => s.text),
        y: spans.map((s) => bestF1(s.text, p.item.answers)),
        X: spanFeatures(terms, spans, p.q, p.features[i]!),
      });
    }
  }
  return out;
}
const spanTrain = spanRows(train, sentence!.model, true);
const spanHeldOut = spanRows(heldOut, sentence!.model, false);
const pX: Float32Array[] = [];
const pY: number[] = [];
for (const r of spanTrain) {
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
}
const spanF1 = (model: Ensemble, rows: SpanRows[]) => mean(rows.map((r) => r.y[argmax(r.X.map((x) => predictRaw(model, x)))]!));
const upper = mean(spanHeldOut.map((r) => Math.max(...r.y)));
const answerSentences = spanHeldOut.length;
console.log(
  `span ranker: ${pX.length} rows x ${SPAN_FEATURES.length} features; best candidate's F1 on ${answerSentences} odd-half answer sentences ${upper.toFixed(4)}`,
);
let span: { params: GbdtParams; model: Ensemble; f1: number } | null = null;
for (const params of grid([{ maxDepth: 5 }, { maxDepth: 7 }])) {
  const t0 = performance.now();
  const model = trainGbdtHistogram(pX, pY, { ...params, bins: 64 });
  const f1 = spanF1(model, spanHeldOut);
  console.log(
    `  depth ${params.maxDepth}, ${params.nTrees} trees, lr ${params.learningRate}: odd-half F1 on answer sentences ${f1.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  if (!span || f1 > span.f1) span = { params, model, f1 };
}

// ---- End to end on the odd half (BM25 top chunks): how many sentences the span step reads ----
const endToEnd = (k: number) => {
  const reader = new LearnedReader({ sentence: sentence!.model, span: span!.model, sentencesForSpans: k });
  const f1s: number[] = [];
  const ems: number[] = [];
  for (const p of heldOut) {
    const r = reader.read({ ...p.q, answerType: 'factoid' }, p.candidates);
    f1s.push(r ? bestF1(r.answer, p.item.answers) : 0);
    ems.push(r && exactMatch(r.answer, p.item.answers) ? 1 : 0);
  }
  return { f1: mean(f1s), exact_match: mean(ems) };
};
const choices = [1, 2, 3].map((k) => ({ k, ...endToEnd(k) }));
for (const c of choices) console.log(`end to end, spans from the best ${c.k} sentence(s): odd-half F1 ${c.f1.toFixed(4)}, EM ${c.exact_match.toFixed(4)}`);
const chosen = choices.reduce((a, b) => (b.f1 > a.f1 ? b : a));

// ---- Artefacts ----
const outDir = fromRoot(args.out);
mkdirSync(outDir, { recursive: true });
const about = (what: string) => ({ producer: 'reader-gbdt', docString: `Extractive reader: ${what}`, graph: `reader_${what.split(' ')[0]}` });
writeFileSync(
  join(outDir, 'sentence.onnx'),
  ensembleToOnnx(sentence!.model, { featureNames: [...SENTENCE_FEATURES], version: VERSION }, about('sentence ranker')),
);
writeFileSync(join(outDir, 'span.onnx'), ensembleToOnnx(span!.model, { featureNames: [...SPAN_FEATURES], version: VERSION }, about('span ranker')));
writeFileSync(join(outDir, 'settings.json'), `${JSON.stringify({ sentencesForSpans: chosen.k }, null, 2)}\n`);
const card = {
  name: 'extractive-reader',
  version: VERSION,
  task: 'extractive question answering without a language model: rank the sentences of the retrieved chunks, then the word spans of the best ones',
  use: 'src/text/rag/ask/reader.ts (loadLearnedReader); inference is plain tree traversal, no ONNX Runtime session',
  data: {
    name: 'SQuAD v1.1 development set, part a (../shared/data/squad/dev-v1.1-part-a.json)',
    licence: 'CC BY-SA 4.0',
    split:
      "articles by their index in the file's data array: even-numbered (0, 2, 4, ...) for training, odd-numbered for choosing hyper-parameters and settings; never the reverse",
    train_questions: train.length,
    held_out_questions: heldOut.length,
    retrieval: `candidate sentences are those of the top ${TOP_CHUNKS} chunks (the service's chunker) by BM25 within each half`,
  },
  sentence_ranker: {
    model: 'gradient-boosted trees (scripts/lib/ml/gbdt.ts), binary log-loss; label: the sentence contains a gold answer',
    file: 'sentence.onnx',
    params: sentence!.params,
    features: SENTENCE_FEATURES,
    rows: sX.length,
    negatives_per_question: SENTENCE_NEGATIVES,
    odd_half: {
      top1_holds_answer: round(sentence!.accuracy),
      rare_word_overlap_baseline: round(sentenceBaseline),
      questions_with_answer_in_candidates: round(answerable(heldOut).length / heldOut.length),
    },
  },
  span_ranker: {
    model:
      'gradient-boosted trees, log-loss on soft labels: the token F1 of the span against the best gold answer; rows from the best-ranked candidate sentence holding an answer and the best-ranked one without',
    file: 'span.onnx',
    params: span!.params,
    features: SPAN_FEATURES,
    rows: pX.length,
    negatives_per_question: SPAN_NEGATIVES,
    partial_overlaps_per_question: SPAN_PARTIAL,
    odd_half: { f1_on_answer_sentence: round(span!.f1), best_candidate_f1_on_answer_sentence: round(upper) },
  },
  settings: { sentences_for_spans: chosen.k, chosen_on: 'odd half, end-to-end token F1' },
  end_to_end_odd_half_bm25_retrieval: choices.map((c) => ({ sentences_for_spans: c.k, f1: round(c.f1), exact_match: round(c.exact_match) })),
  note: 'The odd half chose the hyper-parameters, so its figures are slightly optimistic; the service evaluation is npm run eval:qa (docs/results/qa-squad.json).',
};
writeFileSync(join(outDir, 'model-card.json'), `${JSON.stringify(card, null, 2)}\n`);
console.log(`wrote ${outDir}`);
