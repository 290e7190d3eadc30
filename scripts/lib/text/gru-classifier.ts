// Trains a BiGRU text classifier with PyTorch (scripts/train_text_classifier.py) and writes a model directory that
// transformers.js's text-classification pipeline loads: the vocabulary and tokenizer.json are chosen here, every text
// is tokenised here with that tokenizer (so training sees exactly the ids serving will), and the exported ONNX is
// scored afterwards through the pipeline itself (classifier-eval.ts).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { fromRoot } from '../../../src/infra/paths.js';
import type { Example } from './data.js';
import type { Glove } from './glove.js';
import { tokenizerJson, writeModelDir } from './model-dir.js';
import { buildVocab, gloveTable } from './classifier-data.js';

/**
 * The word-level tokenizer of model-dir.ts with typographic apostrophes made plain first (phones type "don’t", the
 * training text mostly "don't"), and the apostrophe and comma of text escaped twice read as themselves (scraped
 * text such as tweets often holds the six characters `\u2019` for an apostrophe: "don\u2019t" would otherwise
 * lose its "t" to an unknown word); then the BERT normaliser and pre-tokeniser.
 */
export function gruTokenizerJson(vocab: string[]): Record<string, unknown> {
  const base = tokenizerJson(vocab) as Record<string, unknown>;
  const replace = (from: string, to = "'") => ({ type: 'Replace', pattern: { String: from }, content: to });
  const escaped = [replace('\\u2019'), replace('\\u2018'), replace('\\u002c', ','), replace('\\u002C', ',')];
  return { ...base, normalizer: { type: 'Sequence', normalizers: [...escaped, replace('\u2019'), replace('\u2018'), base.normalizer] } };
}

/** The shipped tokenizer, loaded through transformers.js, so training sees exactly the ids serving will. */
async function tokenizerFor(vocab: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'tok-'));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(gruTokenizerJson(vocab)));
  // As writeModelDir writes it: without unk_token, transformers.js gives unknown words no id at all.
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      model_max_length: 512,
      do_lower_case: true,
      unk_token: '[UNK]',
      pad_token: '[PAD]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
    }),
  );
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const tok = await AutoTokenizer.from_pretrained(dir);
  return (text: string) => Int32Array.from(tok.encode(text, { add_special_tokens: false }));
}

export interface GruParams {
  hidden: number;
  lr: number;
  epochs: number;
  batch: number;
  dropout: number;
  emb_dropout: number;
  weight_decay: number;
  lr_decay: number;
  patience: number;
  /** The word table's learning rate relative to lr. */
  emb_lr_scale?: number;
  /** Development figures this many times an epoch (early stopping may pick a point inside an epoch); 1 by default. */
  checks_per_epoch?: number;
  /** Decay of an exponential moving average of the weights after every batch (0 or absent: off); the averaged weights are the ones checked and exported. */
  ema?: number;
  /** Members of the ensemble (seeds seed, seed + 1, ...); the exported model answers the mean of their logits. 1 by default. */
  members?: number;
  seed: number;
}

export interface GruSpec {
  name: string;
  outDir: string;
  labels: string[];
  /** Weighted training examples (Example.weight; Example.allowed restricts a loss to some labels). */
  train: Example[];
  /** Development slices: early stopping, the temperature and the class offsets maximise their mean figure. */
  selection: { name: string; examples: Example[]; metric: 'accuracy' | 'macro_recall' | 'macro_f1' }[];
  /** Fit per-class logit offsets (the last label fixed at 0) on the development slices. */
  fitOffsets: boolean;
  params: GruParams;
  glove: Glove & { lexiconWords?: string[] };
  topGlove: number;
  minCount: number;
  /** Training texts are cut to this many tokens (serving reads chunks of up to 510). */
  maxTokens: number;
  threads: number;
  python?: string;
  workDir: string;
}

export interface GruResult {
  vocab: string[];
  report: {
    history: unknown[];
    best_epoch: number;
    /** Each member's seed, chosen epoch, best mean development figure and history (absent before ensembles). */
    members?: { seed: number; best_epoch: number; best_mean: number; history: unknown[] }[];
    calibration: Record<string, unknown>;
    torch: string;
    threads: number;
  };
  onnxSha256: string;
  python: string;
}

/** The first Python that has torch and onnx: --python, $PYTHON, python3, Debian's /usr/bin/python3. */
export function findPython(preferred?: string): string {
  const candidates = [preferred, process.env.PYTHON, 'python3', '/usr/bin/python3'].filter((p): p is string => !!p);
  for (const p of candidates) {
    if (spawnSync(p, ['-c', 'import torch, onnx'], { stdio: 'ignore' }).status === 0) return p;
  }
  throw new Error(`no Python with torch and onnx among ${candidates.join(', ')}; on Debian: apt-get install -y python3-torch python3-onnx`);
}

/**
 * What a finished training left behind (the model directory and the work folder's report.json), to score and
 * document a model again without training it (`--evaluate-only`). Without the work folder (a fresh clone: data/ is
 * not in git) the report is read back from the model card, which holds all of it.
 */
export function trainedGru(outDir: string, workDir: string): GruResult {
  const vocab = Object.keys((JSON.parse(readFileSync(join(outDir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab);
  const reportFile = join(fromRoot(workDir), 'report.json');
  const report = existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as GruResult['report']) : reportFromCard(outDir);
  const onnx = readFileSync(join(outDir, 'onnx', 'model.onnx'));
  return { vocab, report, onnxSha256: createHash('sha256').update(onnx).digest('hex'), python: 'none (--evaluate-only)' };
}

/** The training report as the model card's `training` section records it (framework: "PyTorch <version> on CPU, <n> threads, ..."). */
function reportFromCard(outDir: string): GruResult['report'] {
  const card = join(outDir, 'model-card.json');
  const { training } = JSON.parse(readFileSync(card, 'utf8')) as {
    training?: { framework?: string; best_epoch?: number; history?: unknown[]; calibration?: Record<string, unknown> };
  };
  const framework = /^PyTorch (\S+) on CPU, (\d+) threads/.exec(training?.framework ?? '');
  if (!training || !framework || training.best_epoch === undefined || !training.history || !training.calibration)
    throw new Error(`no training report: neither report.json in the work folder nor a training section in ${card}`);
  return { history: training.history, best_epoch: training.best_epoch, calibration: training.calibration, torch: framework[1]!, threads: Number(framework[2]) };
}

export async function trainGru(spec: GruSpec): Promise<GruResult> {
  const python = findPython(spec.python);
  const vocab = buildVocab(
    spec.train.map((e) => e.text),
    spec.glove,
    spec.topGlove,
    spec.minCount,
    spec.glove.lexiconWords ?? [],
  );
  console.log(`${spec.name}: vocabulary ${vocab.length} (top ${spec.topGlove} GloVe words, lexicon words, training words seen ${spec.minCount} times)`);
  const encode = await tokenizerFor(vocab);
  // [CLS] text [SEP], as the pipeline feeds the model.
  const ids = (text: string) => [2, ...Array.from(encode(text).subarray(0, spec.maxTokens - 2)), 3];
  const index = (labels: string[]) => labels.map((l) => spec.labels.indexOf(l)).filter((k) => k >= 0);
  const allowedMask = (allowed?: string[]) => (allowed ? spec.labels.map((l) => (allowed.includes(l) ? 1 : 0)) : undefined);
  const train = spec.train.map((e) => {
    const ks = index(e.labels);
    return {
      ids: ids(e.text),
      target: spec.labels.map((_, k) => (ks.includes(k) ? 1 / ks.length : 0)),
      weight: e.weight ?? 1,
      ...(e.allowed ? { allowed: allowedMask(e.allowed) } : {}),
    };
  });
  const selection = spec.selection.map((s) => ({
    name: s.name,
    metric: s.metric,
    // A slice's examples share their restriction (SST-2 dev: positive or negative).
    ...(s.examples[0]?.allowed ? { allowed: allowedMask(s.examples[0].allowed) } : {}),
    examples: s.examples.map((e) => ({ ids: ids(e.text), gold: index(e.labels) })),
  }));
  const work = fromRoot(spec.workDir);
  mkdirSync(work, { recursive: true });
  const table = gloveTable(vocab, spec.glove, spec.params.seed);
  writeFileSync(join(work, 'embeddings.f32'), Buffer.from(table.buffer, table.byteOffset, table.byteLength));
  writeFileSync(
    join(work, 'input.json'),
    JSON.stringify({ labels: spec.labels, vocab_size: vocab.length, dim: spec.glove.dim, params: spec.params, fit_offsets: spec.fitOffsets, train, selection }),
  );
  const onnxPath = join(work, 'model.onnx');
  console.log(`${spec.name}: ${train.length} training examples; training with ${python} (${spec.threads} threads)`);
  await trainMembers(python, work, spec.params.members ?? 1, spec.threads);
  const run = spawnSync(python, [fromRoot('scripts/train_text_classifier.py'), '--work', work, '--out', onnxPath, '--threads', String(spec.threads)], {
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`${python} scripts/train_text_classifier.py failed (exit ${run.status})`);
  const onnx = readFileSync(onnxPath);
  const report = JSON.parse(readFileSync(join(work, 'report.json'), 'utf8')) as GruResult['report'];
  writeModelDir({ dir: spec.outDir, vocab, dim: 4 * spec.params.hidden, labels: spec.labels, onnx, card: {} });
  writeFileSync(join(spec.outDir, 'tokenizer.json'), JSON.stringify(gruTokenizerJson(vocab)));
  return { vocab, report, onnxSha256: createHash('sha256').update(onnx).digest('hex'), python };
}

/**
 * The ensemble's members, each in a Python process of its own (one thread each, so as many run at once as there are
 * threads); members left in the work folder by an earlier run are removed first. The combining run that follows
 * loads them.
 */
async function trainMembers(python: string, work: string, members: number, threads: number): Promise<void> {
  for (const f of readdirSync(work)) if (/^member-\d+\.(?:pt|json)$/.test(f)) rmSync(join(work, f));
  if (members <= 1) return;
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(python, [fromRoot('scripts/train_text_classifier.py'), '--work', work, '--member', String(i), '--threads', '1'], {
        stdio: 'inherit',
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`member ${i}: ${python} scripts/train_text_classifier.py failed (exit ${code})`))));
    });
  const queue = Array.from({ length: members }, (_, i) => i);
  const worker = async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) await one(i);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(threads, members)) }, worker));
}
