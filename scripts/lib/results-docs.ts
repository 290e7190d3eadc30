// The docs' figures, rendered from the results files: each `<!-- results:<file>:<view> -->` ... `<!-- /results -->`
// span of a doc is the view's output for docs/results/<file>.json. A marker on its own line holds a table (with the
// line that says where and when it was measured); a marker inside a sentence holds a few words.
import { existsSync, readFileSync } from 'node:fs';
import { fromRoot } from '../../src/infra/paths.js';
import { QA_VIEWS } from './results-docs-qa.js';
import { everydaySet, sentimentBenchmarks } from './results-docs-sentiment.js';
import { type Results, type View, fixed, int, ms, pct, provenance, rate, secs, table, view, median } from './results-format.js';

export { provenance } from './results-format.js';

/** The docs whose figures come from results files, in the order the generator rewrites them. */
export const RESULTS_DOCS = ['docs/benchmarks.md', 'README.md', 'docs/operations.md', 'docs/production.md', 'docs/text.md'];

/** A share of a rate alone; within a tenth either side it is run-to-run noise, and says so. */
function shareOfAlone(beside: number, alone: number): string {
  const share = beside / alone;
  return share >= 0.9 ? `${pct(share)} (as fast as alone: the difference is noise)` : pct(share);
}

interface Rate {
  connections: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}
interface Mixed {
  predict_alone: Rate;
  predict_beside: Rate;
  ask: Rate;
  explain: Rate;
  total_beside_rps: number;
  predict_beside_long_sentiment: Rate;
  long_sentiment: Rate & { words: number };
  event_loop_p99_ms: number;
  errors: number;
  rss_mb: { start: number; end: number };
}
interface Route {
  route: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}
interface Soak {
  soak: Route[];
  total_rps: number;
  errors: number;
  event_loop_p99_ms: number;
  rss_mb: { start: number; end: number; growth_percent: number };
  images: { count: number; max: number };
}
interface Predict {
  connections: number;
  duration_s: number;
  runs: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
}
interface Explain {
  trees: number;
  shapley_alone_ms: { p50: number; p99: number };
  explain_waterfall_ms: { p50: number; p99: number; runs: number };
  rps_one_connection: number;
}
interface CollectRate {
  requests: number;
  limit_per_s: number;
  steady_per_s: number;
  max_in_1s: number;
}
interface Collect {
  runs: number;
  catalog_rate: CollectRate;
  ratings_rate: CollectRate;
  upsert_10000_pglite_ms?: { insert: number; update: number };
  upsert_10000_postgresql_ms?: { insert: number; update: number };
}
interface Rag {
  stats: { documents: number; chunks: number; sentence_vectors: number };
  indexing_ms: number[];
  search: { p50: string; p99: string };
  ask: { p50: string; p99: string };
  ask_once: Record<string, { docs: string; questions: number; first_ms: number; first_again_ms: number; p50: number; p90: number; max: number }>;
}
interface SentimentBench {
  cold_first_request_ms: number;
  model_load_ms: number;
  requests: { request: string; requests: number; p50_ms: number; p99_ms: number }[];
  rss_mb: { before_models: number; after: number };
}
interface TextModelsBench {
  words: number;
  calls: number;
  pipelines: { pipeline: string; p50_ms: number; p99_ms: number }[];
}
interface ModelLoading {
  models: { role: string; bytes: number; load_ms_median: Record<string, number>; rss_added_mb_median: Record<string, number> }[];
}
const mixed: Record<string, View> = {
  predict: view<Mixed>((x) =>
    table(
      ['`POST /api/predict`, 1 connection', 'req/s', 'p99', 'of its rate alone'],
      [
        ['alone', int(x.predict_alone.rps), ms(x.predict_alone.p99_ms), '-'],
        [
          `beside \`/rag/ask\` (${x.ask.connections} connections) and \`/api/explain\` (${x.explain.connections}), plots and the reader in a worker`,
          int(x.predict_beside.rps),
          ms(x.predict_beside.p99_ms),
          shareOfAlone(x.predict_beside.rps, x.predict_alone.rps),
        ],
        [
          `beside \`/analyze/sentiment\` on a ${int(x.long_sentiment.words)}-word text (${x.long_sentiment.connections}), scored in a worker`,
          int(x.predict_beside_long_sentiment.rps),
          ms(x.predict_beside_long_sentiment.p99_ms),
          shareOfAlone(x.predict_beside_long_sentiment.rps, x.predict_alone.rps),
        ],
      ],
    ),
  ),
  others: view<Mixed>((x) =>
    table(
      ['beside the others', 'req/s', 'p99'],
      [
        [`\`/rag/ask\` (${x.ask.connections} connections)`, fixed(x.ask.rps, 1), ms(x.ask.p99_ms)],
        [`\`/api/explain\` with a PNG (${x.explain.connections} connection)`, fixed(x.explain.rps, 1), ms(x.explain.p99_ms)],
        ['all three routes together', int(x.total_beside_rps), '-'],
        [
          `\`/analyze/sentiment\`, ${int(x.long_sentiment.words)} words (${x.long_sentiment.connections} connection)`,
          `${fixed(x.long_sentiment.rps, 1)} (p50 ${ms(x.long_sentiment.p50_ms)})`,
          '-',
        ],
      ],
    ),
  ),
  summary: view<Mixed>(
    (x) =>
      `event-loop delay p99 ${x.event_loop_p99_ms} ms; ${x.errors} errors; resident memory ${x.rss_mb.start} MB at the start and ${x.rss_mb.end} MB at the end`,
  ),
  alone: view<Mixed>((x) => `${int(x.predict_alone.rps)} req/s`),
  targets: view<Mixed>((x) => {
    const met = x.predict_beside.p99_ms <= 10 && x.predict_beside.rps >= 0.5 * x.predict_alone.rps;
    return met ? '**met**' : '**not met**';
  }),
};

const soakTable: View = view<Soak>((x) =>
  table(
    ['route (connections)', 'req/s', 'p50', 'p99', 'errors'],
    x.soak.map((r) => [`${r.route} (${r.connections})`, rate(r.rps), ms(r.p50), ms(r.p99), r.errors + r.non2xx]),
  ),
);

const soak: Record<string, View> = {
  table: soakTable,
  summary: view<Soak>(
    (x) =>
      `${int(x.total_rps)} req/s in all, ${x.errors} errors (target 0); event-loop delay p99 ${x.event_loop_p99_ms} ms; resident memory ${x.rss_mb.start} MB after warm-up and ${x.rss_mb.end} MB at the end (${x.rss_mb.growth_percent}%; targets: growth under 10%, at most 400 MB); ${x.images.count} explanation images on disk (bound ${x.images.max})`,
  ),
  'rss-end': view<Soak>((x) => `${x.rss_mb.end} MB`),
  'rss-range': view<Soak>((x) => `${Math.min(x.rss_mb.start, x.rss_mb.end)} to ${Math.max(x.rss_mb.start, x.rss_mb.end)} MB`),
  'long-texts': view<Soak>((x) => {
    const peak = Math.max(x.rss_mb.start, x.rss_mb.end);
    return `resident memory ${x.rss_mb.start} MB after warm-up and ${x.rss_mb.end} MB at the end, ${x.errors} errors; ${peak > 400 ? `**over the 400 MB target** by ${peak - 400} MB at its peak` : 'within the 400 MB target'}`;
  }),
};

const predict: Record<string, View> = {
  table: view<Predict>((x) =>
    table(
      [`\`bench:predict\` (${x.connections} connections, ${x.runs} runs x ${x.duration_s} s, median)`, 'value'],
      [
        ['requests/s', int(x.rps)],
        ['p50 latency', ms(x.p50_ms)],
        ['p99 latency', ms(x.p99_ms)],
        ['errors and non-2xx answers', x.errors],
      ],
    ),
  ),
};

const explain: Record<string, View> = {
  table: view<Explain>((x) =>
    table(
      [`\`bench:explain\` (${x.explain_waterfall_ms.runs} runs, median)`, 'p50', 'p99'],
      [
        [`Shapley values alone, ${x.trees} trees (ms per passenger)`, fixed(x.shapley_alone_ms.p50, 3), fixed(x.shapley_alone_ms.p99, 3)],
        [
          `\`POST /api/explain\` with a PNG, 1 connection (ms; ${fixed(x.rps_one_connection, 1)} req/s)`,
          fixed(x.explain_waterfall_ms.p50, 0),
          fixed(x.explain_waterfall_ms.p99, 0),
        ],
      ],
    ),
  ),
};

const collect: Record<string, View> = {
  table: view<Collect>((x) => {
    const row = (name: string, s: CollectRate) => [
      `${name} rate, ${s.requests} requests, 50 ms latency`,
      `<= ${s.limit_per_s}/s, >= 95%`,
      `${fixed(s.steady_per_s, 3)}/s (${fixed((s.steady_per_s / s.limit_per_s) * 100, 1)}%; at most ${s.max_in_1s} in any 1 s)`,
    ];
    const upsert = (name: string, target: string, u?: { insert: number; update: number }) =>
      u ? [[`upsert 10,000 movies, ${name}`, target, `insert ${int(u.insert)} ms, update ${int(u.update)} ms`]] : [];
    return table(
      ['`bench:collect`', 'target', `median of ${x.runs} runs`],
      [
        row('catalog', x.catalog_rate),
        row('ratings', x.ratings_rate),
        ...upsert('PGlite', '<= 3 s', x.upsert_10000_pglite_ms),
        ...upsert('PostgreSQL', '<= 1 s', x.upsert_10000_postgresql_ms),
      ],
    );
  }),
};

const rag: Record<string, View> = {
  table: view<Rag>((x) =>
    table(
      [
        `\`bench:rag\` (sample collection; index: median of ${x.indexing_ms.length} full runs; requests: 3 runs of 200 sequential, the median run)`,
        'p50',
        'p99',
        'target',
      ],
      [
        [
          `\`POST /rag/index {"full": true}\`: ${x.stats.documents} files, ${int(x.stats.chunks)} chunks, ${int(x.stats.sentence_vectors)} sentences`,
          secs(median(x.indexing_ms)),
          '-',
          '<= 30 s',
        ],
        ['`POST /rag/search`, top_k 5', `${x.search.p50} ms`, `${x.search.p99} ms`, 'p50 <= 30 ms'],
        ['`POST /rag/ask`, no LLM (learned reader; the question tagged and read in the worker)', `${x.ask.p50} ms`, `${x.ask.p99} ms`, 'p50 <= 60 ms'],
      ],
    ),
  ),
  // Varied questions, each asked once, in a fresh service right after /ready: nothing is remembered between them.
  'ask-once': view<Rag>((x) =>
    table(
      ['`POST /rag/ask`, no LLM, each question asked once', 'questions', 'first question', 'the same, asked again at the end', 'p50', 'p90', 'target'],
      Object.values(x.ask_once).map((o) => [
        `\`${o.docs}\``,
        o.questions,
        `${fixed(o.first_ms, 0)} ms`,
        `${fixed(o.first_again_ms, 0)} ms`,
        `${fixed(o.p50, 0)} ms`,
        `${fixed(o.p90, 0)} ms`,
        'p50 <= 60 ms, p90 <= 150 ms',
      ]),
    ),
  ),
};

/** The latency targets: a short text and a page of text, at the median. */
const SENTIMENT_TARGETS: Record<string, number> = { '20 words': 10, '2,000 words': 60 };
const sentimentBench: Record<string, View> = {
  table: view<SentimentBench>((x) =>
    table(
      ['`POST /analyze/sentiment`', 'requests', 'p50', 'p99', 'target'],
      [
        ['cold first request (loads both models)', 1, `${fixed(x.cold_first_request_ms, 0)} ms`, '-', '<= 2 s'],
        ...x.requests.map((q) => {
          const target = SENTIMENT_TARGETS[q.request];
          const verdict = target === undefined ? '-' : `p50 <= ${target} ms: ${q.p50_ms <= target ? 'met' : '**not met**'}`;
          const t = (n: number) => (n >= 100 ? `${int(n)} ms` : `${fixed(n, 1)} ms`);
          return [q.request, q.requests, t(q.p50_ms), t(q.p99_ms), verdict];
        }),
      ],
    ),
  ),
  memory: view<SentimentBench>((x) => `${int(x.rss_mb.before_models)} MB before the models and ${int(x.rss_mb.after)} MB after`),
};

const textModels: Record<string, View> = {
  table: view<TextModelsBench>((x) =>
    table(
      ['pipeline', 'p50 (ms)', 'p99 (ms)', 'target'],
      x.pipelines.map((p) => [p.pipeline, fixed(p.p50_ms, 3), fixed(p.p99_ms, 3), `<= 2 ms: ${p.p50_ms <= 2 ? 'met' : '**not met**'}`]),
    ),
  ),
  calls: view<TextModelsBench>((x) => `one ${x.words}-word text, ${int(x.calls)} sequential calls`),
};

const modelLoading: Record<string, View> = {
  table: view<ModelLoading>((x) =>
    table(
      ['Model (files)', 'Local directory (ms)', 'Hub, empty cache (ms)', 'Cache, Hub down (ms)', 'Memory added, local (MB)'],
      x.models.map((m) => [
        `${m.role} (${fixed(m.bytes / 1e6, 1)} MB)`,
        m.load_ms_median.local_directory!,
        m.load_ms_median.hub_empty_cache!,
        m.load_ms_median.cache_hub_down!,
        m.rss_added_mb_median.local_directory!,
      ]),
    ),
  ),
};

export const VIEWS: Record<string, Record<string, View>> = {
  ...QA_VIEWS,
  'bench-mixed': mixed,
  'bench-soak': soak,
  'bench-soak-long-texts': soak,
  'bench-predict': predict,
  'bench-explain': explain,
  'bench-collect': collect,
  'bench-rag': rag,
  'bench-sentiment': sentimentBench,
  'bench-text-models': textModels,
  'sentiment-benchmarks': sentimentBenchmarks,
  'sentiment-baseline-bag-of-words': sentimentBenchmarks,
  'sentiment-everyday-2-dev': everydaySet,
  'sentiment-everyday-2-test': everydaySet,
  'model-loading': modelLoading,
};

const MARKED = /<!-- results:([\w-]+):([\w-]+) -->(\n?)([\s\S]*?)<!-- \/results -->/g;

export function readResults(name: string): Results {
  const file = `docs/results/${name}.json`;
  if (!existsSync(fromRoot(file))) throw new Error(`${file} is missing: run the command that writes it (docs/benchmarks.md lists them)`);
  return JSON.parse(readFileSync(fromRoot(file), 'utf8')) as Results;
}

/** The doc with every marked span rendered from its results file; `read` is how a results file is found. */
export function renderResults(doc: string, read: (name: string) => Results = readResults): string {
  return doc.replace(MARKED, (_all, file: string, name: string, newline: string) => {
    const render = VIEWS[file]?.[name];
    if (!render) throw new Error(`no view "${name}" for results file ${file}`);
    const r = read(file);
    let out: string;
    try {
      out = render(r);
    } catch (err) {
      throw new Error(`docs/results/${file}.json, view ${name}: ${(err as Error).message}`);
    }
    // A field the file lacks (a script that changed its output) shows as NaN or undefined: fail, not print it.
    if (/NaN|undefined/.test(out)) throw new Error(`docs/results/${file}.json, view ${name}: a field is missing (${out})`);
    // A table says where it was measured, on the line under it.
    return newline
      ? `<!-- results:${file}:${name} -->\n${out}\n\n_${provenance(r)}_\n<!-- /results -->`
      : `<!-- results:${file}:${name} -->${out}<!-- /results -->`;
  });
}

/** The results files a doc links to (`results/<name>.json`), to check that each exists. */
export const citedResults = (doc: string): string[] => [...new Set([...doc.matchAll(/results\/([\w-]+)\.json/g)].map((m) => m[1]!))];
