// buildApp(): infrastructure plugins, then the domains in a fixed order, then the error and 404 handlers.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import formbody from '@fastify/formbody';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Config, ensureDataDirs, loadConfig } from './infra/config.js';
import database, { type DatabaseOptions } from './infra/database.js';
import errors, { clientErrors, frameworkErrors } from './infra/errors.js';
import workers from './infra/worker-pool.js';
import health from './infra/health.js';
import httpExtras from './infra/http-extras.js';
import { createLogger, requestLog } from './infra/logging.js';
import securityHeaders from './infra/security-headers.js';
import staticFiles from './infra/static-files.js';
import swagger from './infra/swagger.js';
import type { ContextOptions } from './movies/context.js';
import type { CanvasModule } from './survival/plots/draw.js';
import movies from './movies/plugin.js';
import text, { TEXT_API_PREFIXES, type TextOptions } from './text/plugin.js';
import rag from './text/rag/plugin.js';
import survival from './survival/plugin.js';
import pages, { renderNotFound } from './web/pages.js';
import predictionPages from './web/prediction.js';
import sentimentPages from './web/sentiment.js';
import askPages from './web/ask.js';
import collectionPages from './web/collection.js';

export interface BuildOptions {
  /** A complete config; when absent it is loaded from the environment and config/ with `overrides` on top. */
  config?: Config;
  overrides?: Partial<Config>;
  /** false silences logs (tests); true uses the config's level. */
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: NodeJS.WritableStream;
  /** Replaceable dependencies (tests use these to prove failure paths). */
  deps?: { loadCanvas?: () => Promise<CanvasModule> };
  /** Text analysis wiring (tests replace the model loader). */
  text?: TextOptions;
  /** The database's schema (tests isolate themselves in one). */
  database?: DatabaseOptions;
  /** Movie collection wiring (tests give a fake clock, a fast sleep). */
  movies?: ContextOptions;
  /** Extra plugins registered after the domains (tests use this for probe routes). */
  plugins?: ((app: FastifyInstance) => Promise<void>)[];
}

export async function buildApp(opts: BuildOptions = {}) {
  const config = opts.config ? { ...opts.config, ...opts.overrides } : loadConfig(opts.overrides ? { overrides: opts.overrides } : {});
  const { imagesDir } = ensureDataDirs(config);

  const app = Fastify({
    ...(opts.logger === false ? { logger: false } : { loggerInstance: createLogger(config, opts.logStream) }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Slow or stalled clients are cut off: headers, then the whole request; idle keep-alive connections close.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS),
      // Node checks these timeouts on an interval (30 s by default): often enough that they mean what they say.
      connectionsCheckingInterval: Math.min(1000, config.HEADERS_TIMEOUT_MS),
    },
    // Our request-log plugin writes one richer line per request instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // A hop count trusts that many proxies in front (what proxy-addr does with a number; Fastify's types want a function).
    trustProxy: typeof config.TRUST_PROXY === 'number' ? trustHops(config.TRUST_PROXY) : config.TRUST_PROXY,
    return503OnClosing: true,
    // A request id from the caller (a proxy or another service) is kept when it is a plain token; otherwise a UUID.
    requestIdHeader: false,
    genReqId: (req) => incomingRequestId(req.headers['x-request-id']) ?? randomUUID(),
    frameworkErrors: frameworkErrors(TEXT_API_PREFIXES),
    clientErrorHandler: clientErrors,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('config', config);

  // During shutdown, answers to requests still in flight close their connection, so that a
  // keep-alive client does not hold the server open until its idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Set on arrival, so that a hijacked reply (the answer stream) carries it too.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });

  await app.register(requestLog, { logText: config.LOG_TEXT });
  await app.register(errors, { renderNotFoundPage: renderNotFound, detailPrefixes: TEXT_API_PREFIXES });
  await app.register(securityHeaders);
  await app.register(swagger);
  await app.register(httpExtras, { config });
  await app.register(formbody);
  await app.register(staticFiles);
  await app.register(health);
  // The pool before the database: onClose hooks run last-registered first, so the database is closed (its writes on
  // disk) before the workers are stopped.
  await app.register(workers);
  await app.register(database, opts.database ?? {});
  await app.register(pages);

  // Domains, in a fixed order.
  await app.register(survival, { imagesDir, ...(opts.deps?.loadCanvas ? { loadCanvas: opts.deps.loadCanvas } : {}) });
  await app.register(predictionPages);
  await app.register(text, opts.text ?? {});
  await app.register(sentimentPages);
  await app.register(rag);
  await app.register(askPages);
  await app.register(movies, opts.movies ? { contextOptions: opts.movies } : {});
  await app.register(collectionPages);

  for (const plugin of opts.plugins ?? []) await app.register(plugin);
  await app.ready();
  return app;
}

const trustHops = (n: number) => (_address: string, hop: number) => hop < n;

/** An incoming X-Request-Id worth keeping: one header, 1-128 characters of a conservative set (nothing a log could choke on). */
export function incomingRequestId(header: string | string[] | undefined): string | null {
  return typeof header === 'string' && /^[A-Za-z0-9._~:@+=/-]{1,128}$/.test(header) ? header : null;
}

export type App = Awaited<ReturnType<typeof buildApp>>;

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
  }
}
