// The one typed configuration: zod schema over config/*.yaml and the environment (environment wins).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PROJECT_ROOT, fromRoot } from './paths.js';

const LOG_LEVEL_ALIASES: Record<string, string> = { warning: 'warn', critical: 'fatal', notset: 'trace' };

/** Accepts true/false in the spellings people type into .env files (True, FALSE, 1, 0, yes, no). */
const BoolSchema = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off', ''].includes(s)) return false;
  return v;
}, z.boolean());

const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Comma-separated list in the environment, a YAML list in files. */
const ListSchema = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : v,
  z.array(z.string()),
);

/** Fastify's trustProxy: a boolean, a hop count, or a list of addresses and CIDR ranges. */
const TrustProxySchema = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    const s = v.trim();
    if (/^(true|false|yes|no|on|off|)$/i.test(s)) return /^(true|yes|on)$/i.test(s);
    if (/^\d+$/.test(s)) return Number(s) === 0 ? false : Number(s);
    return s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  },
  z.union([z.boolean(), z.int().min(1).max(100), z.array(z.string().regex(/^[0-9a-fA-F:.]+(\/\d{1,3})?$/, 'expected an IP address or CIDR range'))]),
);

export const ConfigSchema = z
  .object({
    PORT: intIn(0, 65535).default(5000).describe('TCP port to listen on'),
    HOST: z.string().min(1).default('0.0.0.0').describe('Interface to bind'),
    APP_ENV: z.enum(['development', 'production']).default('production').describe('Deployment environment'),
    APP_DEBUG: BoolSchema.default(false).describe('Debug mode (error details in 5xx bodies); refused in production'),
    LOG_TEXT: BoolSchema.default(false).describe("Log users' free text (sentiment texts, questions, search queries) as it is; off: its length and a hash"),
    LOG_LEVEL: z
      .preprocess(
        (v) => (typeof v === 'string' ? (LOG_LEVEL_ALIASES[v.toLowerCase()] ?? v.toLowerCase()) : v),
        z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']),
      )
      .default('info')
      .describe('Log level, case-insensitive (DEBUG, INFO, WARNING, ERROR, ...)'),
    DATA_DIR: z.string().min(1).default('./data').describe('Writable folder for the database, vector store and images'),
    MODEL_PATH: z.string().min(1).default('models/survival/model.onnx').describe('Survival model (ONNX)'),
    PREPROCESSOR_PATH: z.string().min(1).default('models/survival/preprocessor.json').describe('Survival preprocessor (JSON)'),
    BODY_LIMIT_BYTES: intIn(1024, 100 * 1024 * 1024)
      .default(1024 * 1024)
      .describe('Largest accepted request body'),
    SHUTDOWN_TIMEOUT_MS: intIn(100, 600_000).default(10_000).describe('Grace period for in-flight requests on shutdown'),
    HEADERS_TIMEOUT_MS: intIn(1000, 600_000).default(10_000).describe("Longest wait for a request's headers (slow clients are cut off)"),
    REQUEST_TIMEOUT_MS: intIn(1000, 3_600_000).default(30_000).describe('Longest wait for a whole request, headers and body'),
    KEEP_ALIVE_TIMEOUT_MS: intIn(1000, 600_000)
      .default(72_000)
      .describe('How long an idle keep-alive connection stays open (above a load balancer idle timeout, often 60 s)'),
    METRICS_ENABLED: BoolSchema.default(true).describe('Serve Prometheus metrics at /metrics'),
    RATE_LIMIT_MAX: intIn(0, 1_000_000).default(0).describe('Requests per window per client; 0 turns rate limiting off'),
    RATE_LIMIT_WINDOW_MS: intIn(1, 86_400_000).default(60_000).describe('Rate-limit window'),
    CORS_ORIGINS: ListSchema.default([]).describe('Allowed CORS origins, comma-separated; empty turns CORS off'),
    TRUST_PROXY: TrustProxySchema.default(false).describe(
      'Behind a proxy: true (trust every hop), a hop count, or comma-separated proxy addresses/CIDRs; the client address then comes from X-Forwarded-For',
    ),
    ADMIN_TOKEN: z
      .string()
      .min(16, 'use at least 16 characters')
      .optional()
      .describe('Bearer token for the operator routes (secret); without it they answer loopback clients only'),
    WORKER_THREADS: intIn(1, 256)
      .optional()
      .describe(
        'Worker threads for CPU-bound steps (explanation plots, the question-answering reader, topics, sentiment of long texts); default: cores - 1, at least 1',
      ),
    WORKER_NICE: intIn(0, 19)
      .default(10)
      .describe(
        'Nice increment of the worker threads (Linux, macOS): the event loop, which answers every request, wins the CPU over heavy steps; 0 = same priority',
      ),
    WORKER_QUEUE_MAX: intIn(1, 100_000).default(64).describe('Tasks that may wait for a worker; beyond, requests get 503 with Retry-After'),
    MAX_EVENT_LOOP_DELAY_MS: intIn(0, 60_000)
      .default(1000)
      .describe('Answer 503 with Retry-After while the event loop lags more than this (0 = off); /live, /health and /ready always answer'),
    IMAGES_MAX_COUNT: intIn(1, 1_000_000).default(500).describe('Most explanation images kept on disk'),
    IMAGES_MAX_AGE_S: intIn(1, 31_536_000).default(86_400).describe('Explanation images older than this are deleted'),
    DATABASE_URL: z.string().optional().describe('PostgreSQL URL; without it an embedded PGlite under DATA_DIR/pglite'),
    COLLECTION_CONFIG: z.string().default('config/collection.yaml').describe('Movie collection settings file'),
    COLLECTION_CRON: z.string().optional().describe('Cron expression for the in-process collection run; empty = off'),
    COLLECTION_SCHEDULER: BoolSchema.default(true).describe(
      'Run the collection schedule in this process; set false on all replicas but one (the run itself is exclusive anyway)',
    ),
    CATALOG_BASE_URL: z.url().optional().describe('Catalog (TMDB-shaped) API base URL; unset = the one in COLLECTION_CONFIG (TMDB)'),
    CATALOG_API_KEY: z
      .string()
      .optional()
      .describe("Catalog API key (secret): TMDB's v3 API Key or its v4 API Read Access Token; CATALOG_AUTH says how it is sent"),
    CATALOG_AUTH: z
      .enum(['query', 'bearer'])
      .optional()
      .describe(
        'How CATALOG_API_KEY is sent: query (the api_key parameter, for a v3 API Key) or bearer (an Authorization header, for a v4 token); unset = query for 32 hexadecimal characters, bearer otherwise',
      ),
    RATINGS_BASE_URL: z.url().optional().describe('Ratings (OMDb-shaped) API base URL; unset = the one in COLLECTION_CONFIG (OMDb)'),
    RATINGS_API_KEY: z.string().optional().describe('Ratings API key, sent as the apikey parameter (secret)'),
    LLM_PROVIDER: z.enum(['gemini', 'openai', 'anthropic']).default('gemini').describe('LLM provider'),
    LLM_API_KEY: z
      .string()
      .optional()
      .describe('LLM provider key (secret); without it the fallbacks apply, unless LLM_PROVIDER=openai with LLM_BASE_URL (a local server, no key needed)'),
    LLM_MODEL_NAME: z.string().optional().describe('LLM model id; default per provider'),
    LLM_MAX_OUTPUT_TOKENS: intIn(1, 100_000).default(2000).describe('LLM output token limit (answers; the default of the per-purpose limits)'),
    LLM_MAX_OUTPUT_TOKENS_SENTIMENT: intIn(1, 100_000).optional().describe('Output token limit of the sentiment interpretation; unset = LLM_MAX_OUTPUT_TOKENS'),
    LLM_MAX_OUTPUT_TOKENS_REWRITE: intIn(1, 100_000).optional().describe('Output token limit of the question rewrite; unset = LLM_MAX_OUTPUT_TOKENS'),
    LLM_THINKING: z
      .enum(['off', 'low', 'medium', 'high'])
      .default('off')
      .describe("Thinking / reasoning: off (or the model's lowest level where it cannot be turned off), low, medium or high"),
    LLM_BASE_URL: z
      .url()
      .optional()
      .describe('Provider base URL with its version path; with LLM_PROVIDER=openai, a local OpenAI-compatible server (Ollama: http://localhost:11434/v1)'),
    LLM_TIMEOUT_MS: intIn(100, 600_000).default(15_000).describe('LLM call timeout'),
    HF_ENDPOINT: z.url().default('https://huggingface.co').describe('Hugging Face Hub (or mirror) that Hub model ids are downloaded from'),
    MODEL_CACHE_DIR: z.string().optional().describe('Writable folder for downloaded Hub models; unset = DATA_DIR/models'),
    SENTIMENT_MODEL: z.string().default('models/text/sentiment').describe('Sentiment model: local directory or Hub id'),
    EMOTION_MODEL: z.string().default('models/text/emotion').describe('Emotion model: local directory or Hub id'),
    TEXT_MODELS_EAGER: BoolSchema.default(false).describe('Load the sentiment models at start-up instead of on first use'),
    SENTIMENT_MAX_CHARS: intIn(1, 10_000_000).default(200_000).describe('Longest text /analyze/sentiment accepts'),
    CHROMA_URL: z.url().optional().describe('Chroma server; without it the service runs its own under DATA_DIR/chroma'),
    DOCS_DIR: z.string().default('docs/sample-collection').describe('Folder of .txt documents for question answering'),
    // Chroma's rule for collection names: 3 characters or more, letters, digits, ".", "_" and "-", a letter or digit at
    // either end (a name it refuses would stop the first index run, not the start).
    RAG_COLLECTION: z
      .string()
      .regex(/^[a-zA-Z0-9][a-zA-Z0-9._-]{1,61}[a-zA-Z0-9]$/, 'must be 3 to 63 letters, digits, ".", "_" or "-", starting and ending with a letter or digit')
      .default('documents')
      .describe('Chroma collection name'),
    EMBEDDING_MODEL: z.string().default('models/text/embedder').describe('Sentence embedder: local directory or Hub id'),
    RAG_SEMANTIC_WEIGHT: z.coerce.number().min(0).max(1).default(0.7).describe('Weight of semantic similarity in hybrid search'),
    RAG_SCORE_NORMALISATION: z
      .enum(['theoretical', 'minmax'])
      .default('theoretical')
      .describe('How hybrid search scales scores to [0, 1]: from the theoretical minimum (cosine -1, BM25 0) or from the worst candidate'),
    RERANK_MODEL: z
      .string()
      .default('Xenova/ms-marco-MiniLM-L-6-v2')
      .describe('Cross-encoder for /rag/search {"rerank": true} and RAG_RERANK: Hub id or local directory; loaded on first use'),
    RAG_RERANK: BoolSchema.default(false).describe('Rerank the retrieved passages of /rag/ask with RERANK_MODEL before the relevance filter'),
    READER_MODEL: z
      .string()
      .optional()
      .describe('Extractive question-answering model (transformers.js question-answering, Hub id or local directory); unset = none'),
    RAG_INDEX_ON_START: BoolSchema.default(true).describe(
      'Bring the index up to date with DOCS_DIR at start-up (new and changed files indexed, removed ones dropped, unchanged ones skipped); off: use the index as it is',
    ),
    RAG_READ_AHEAD: intIn(0, 8_000)
      .default(8_000)
      .describe(
        'Sentences of the collection tagged before /ready (their part-of-speech tags are remembered), so that early questions do not pay for reading their passages; at most 20 s; 0 = none',
      ),
    RAG_SYNC_INTERVAL_MS: intIn(0, 3_600_000)
      .default(1000)
      .describe('How often a search checks whether another process re-indexed (then the in-memory index reloads); 0 = every search'),
    RAG_MIN_SEMANTIC: z.coerce
      .number()
      .min(-1)
      .max(1)
      .default(-1)
      .describe(
        'Guardrail 2: a chunk is relevant from this cosine similarity (of its best-matching sentence); -1 keeps every chunk (the support check and the learned decision refuse instead)',
      ),
    RAG_MIN_BM25: z.coerce.number().min(0).default(0).describe('Guardrail 2: ... or from this BM25 score; 0 keeps every chunk'),
    RAG_GROUNDING_THRESHOLD: z.coerce.number().min(0).max(1).default(0.5).describe('Guardrail 3: answers grounded below this are flagged'),
    RAG_ABBREVIATIONS: z
      .string()
      .default('')
      .describe(
        'Abbreviations expanded in questions: empty for the built-in list (US, UK, UN, GDP, ...), "none" for none, or a JSON file of {"abbreviation": "expansion"}',
      ),
    RAG_LLM_REWRITE: BoolSchema.default(false).describe('Let the LLM rewrite questions (discarded when it drifts)'),
  })
  .superRefine((c, ctx) => {
    if (c.APP_ENV === 'production' && c.APP_DEBUG) {
      ctx.addIssue({
        code: 'custom',
        path: ['APP_DEBUG'],
        message: 'debug mode must be off when APP_ENV=production',
      });
    }
  });

export type Config = z.output<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const KEYS = new Set(Object.keys(ConfigSchema.shape ?? {}));

/** YAML files use lower-case keys (port, log_level); they map to the upper-case variable names. */
function readYaml(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const doc: unknown = parseYaml(readFileSync(file, 'utf8'));
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`${file}: expected a mapping of settings`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    const key = k.toUpperCase();
    if (!KEYS.has(key)) throw new ConfigError(`${file}: unknown setting "${k}"`);
    out[key] = v;
  }
  return out;
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  configDir?: string;
  /** Read .env from the project root (only when env is the real process environment). */
  dotenvFile?: string | null;
  overrides?: Partial<Config>;
}

export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const configDir = opts.configDir ?? join(PROJECT_ROOT, 'config');
  const dotenvFile = opts.dotenvFile === undefined ? join(PROJECT_ROOT, '.env') : opts.dotenvFile;
  // Real environment beats .env, which beats YAML.
  const fromDotenv = dotenvFile && existsSync(dotenvFile) ? parseDotenv(readFileSync(dotenvFile)) : {};
  const env = { ...fromDotenv, ...(opts.env ?? process.env) };
  const pick = (src: Record<string, unknown>) => Object.fromEntries(Object.entries(src).filter(([k, v]) => KEYS.has(k) && v !== undefined));

  const appEnv = (env.APP_ENV ?? readYaml(join(configDir, 'default.yaml')).APP_ENV ?? 'production') as string;
  if (!/^[a-z]+$/.test(appEnv)) throw new ConfigError(`APP_ENV: invalid value "${appEnv}"`);
  const merged = {
    ...readYaml(join(configDir, 'default.yaml')),
    ...readYaml(join(configDir, `${appEnv}.yaml`)),
    ...pick(env),
    ...opts.overrides,
  };
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Creates the data directory and its sub-folders; returns their absolute paths. */
export function ensureDataDirs(config: Config): { dataDir: string; imagesDir: string } {
  const dataDir = fromRoot(config.DATA_DIR);
  const imagesDir = join(dataDir, 'images');
  try {
    mkdirSync(imagesDir, { recursive: true });
  } catch (err) {
    throw new ConfigError(`DATA_DIR: cannot create ${dataDir}: ${(err as Error).message}`);
  }
  return { dataDir, imagesDir };
}

/** The settings with anything secret-looking masked, for logs and the health endpoint. */
export function describeConfig(config: Config): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, /KEY|SECRET|TOKEN|PASSWORD|DATABASE_URL/.test(k) ? '[redacted]' : v]));
}
