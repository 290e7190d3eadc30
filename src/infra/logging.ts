// pino options and the one-line-per-request log (client, method, path, status, duration, payload, result). Users'
// free text (sentiment texts, questions, queries) is logged as its length and a hash unless LOG_TEXT is on.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Logger, type LoggerOptions, pino } from 'pino';
import fp from 'fastify-plugin';
import type { Config } from './config.js';
import { requestPath } from './paths.js';

/** Keys whose values never reach a log line, at any depth of a payload or result. */
const SECRET_KEY = /(authorization|cookie|api[-_]?key|password|passwd|secret|token|database_url)/i;

export const REDACT_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'];

/** A copy of a JSON value with secret-looking keys masked; deep structures are cut off rather than walked. */
export function scrub(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[deep]';
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : scrub(v, depth + 1)]));
}

const MAX_LOGGED_CHARS = 2000;

export function createLogger(config: Config, stream?: NodeJS.WritableStream): Logger {
  const options: LoggerOptions = {
    level: config.LOG_LEVEL,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (stream) return pino(options, stream);
  // Human-friendly output only when a person is watching a terminal; JSON lines everywhere else.
  if (process.stdout.isTTY) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } });
  }
  return pino(options);
}

function forLog(value: unknown): unknown {
  if (value === undefined) return undefined;
  const clean = scrub(value);
  const text = typeof clean === 'string' ? clean : JSON.stringify(clean);
  if (text.length <= MAX_LOGGED_CHARS) return clean;
  return `${text.slice(0, MAX_LOGGED_CHARS)}... (${text.length} chars)`;
}

declare module 'fastify' {
  interface FastifyRequest {
    responsePayload?: unknown;
    /** Why the request failed, with what clients are not told (an exception's text, paths, host names). */
    internalError?: string;
    /** The body passed the route's schema (set just before the handler). */
    bodyChecked?: boolean;
  }
  interface FastifyContextConfig {
    /**
     * Body fields holding a user's free text: logged as `{chars, sha256}` (enough to match two requests, not to read
     * them) unless LOG_TEXT is on; the result, which may quote the text, is logged as `summary(result)`.
     */
    freeText?: { fields: string[]; summary?: (result: unknown) => unknown };
  }
}

/** A string as its length and the start of its SHA-256. */
export function fingerprint(text: string): { chars: number; sha256: string } {
  return { chars: text.length, sha256: createHash('sha256').update(text).digest('hex').slice(0, 16) };
}

function withoutText(body: unknown, fields: string[]): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return typeof body === 'string' ? fingerprint(body) : body;
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, fields.includes(k) && typeof v === 'string' ? fingerprint(v) : v]));
}

/** A body that may hold a text anywhere (keys included), as one length and hash. */
const wholeBody = (body: unknown) => fingerprint(typeof body === 'string' ? body : JSON.stringify(body));

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A free-text route's body as the log keeps it. Only a body in the expected shape (one that passed the route's schema,
 * or, on a page without one, nothing but the text fields as strings) is logged field by field; any other (a form
 * whose only key is the text, `text` as an array, `Text`, unparsed JSON) could hold the text anywhere, keys included,
 * and is logged whole as a length and a hash.
 */
function freeTextPayload(request: FastifyRequest, fields: string[]): { payload: unknown; expected: boolean } {
  const body = request.body;
  if (body === undefined || body === null) return { payload: body, expected: true };
  if (request.bodyChecked || (isRecord(body) && Object.entries(body).every(([k, v]) => fields.includes(k) && typeof v === 'string'))) {
    return { payload: withoutText(body, fields), expected: true };
  }
  return { payload: { malformed: wholeBody(body) }, expected: false };
}

/**
 * The body of a request that reached no route (the not-found handler's 404, or its 405 for a path that takes other
 * methods: "PUT /analyze/sentiment"): no route says which of its fields are free text, and a client that sent a text to
 * the wrong path or with the wrong method sent it all the same, so the body is logged as a length and a hash.
 */
function unroutedPayload(body: unknown): { payload: unknown; expected: boolean } {
  if (body === undefined || body === null) return { payload: body, expected: true };
  return { payload: { unrouted: wholeBody(body) }, expected: true };
}

/** An error answer to a malformed free-text body, without what may echo the text (field names in `loc`). */
function errorSummary(payload: unknown): unknown {
  if (!isRecord(payload)) return payload;
  const list = payload.errors ?? (isRecord(payload.details) ? payload.details.errors : undefined);
  const kept = Object.fromEntries(Object.entries(payload).filter(([k, v]) => ['error', 'message', 'detail', 'reason'].includes(k) && typeof v === 'string'));
  return Array.isArray(list) ? { ...kept, issues: list.map((e) => (isRecord(e) ? e.type : undefined)) } : kept;
}

export interface RequestLogOptions {
  /** Log users' free text as it is (LOG_TEXT). */
  logText?: boolean;
}

/** Replaces Fastify's two request lines with one that carries the payload and the result or error. */
async function requestLogPlugin(app: FastifyInstance, opts: RequestLogOptions) {
  // After validation: a route with a body schema reaches this only with a body that passed it.
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.schema?.body) request.bodyChecked = true;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (typeof payload === 'string' && type.startsWith('application/json')) {
      try {
        request.responsePayload = JSON.parse(payload);
      } catch {
        request.responsePayload = payload;
      }
    } else {
      request.responsePayload = { content_type: type || undefined };
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    const free = opts.logText ? undefined : request.routeOptions.config?.freeText;
    const { payload: body, expected } = free
      ? freeTextPayload(request, free.fields)
      : request.is404 && !opts.logText
        ? unroutedPayload(request.body)
        : { payload: request.body, expected: true };
    const outcome = free ? (status < 400 && free.summary ? free.summary(request.responsePayload) : { logged: false }) : request.responsePayload;
    const error = expected ? request.responsePayload : errorSummary(request.responsePayload);
    const line = {
      ...lineOf(request, reply),
      route: request.routeOptions.url,
      payload: forLog(body),
      ...(status >= 400 ? { error: forLog(error) } : { result: forLog(outcome) }),
      ...(request.internalError ? { internal: request.internalError } : {}),
    };
    // "Not ready yet" is the readiness probe doing its job (start-up, a dependency down), not a failure of the request;
    // any other 503 is a state the client is told about (not configured, busy, not ready), logged as a warning.
    const probeAnswer = status === 503 && request.routeOptions.url === '/ready';
    if (status >= 500 && status !== 503) request.log.error(line, 'request');
    else if (status >= 400 && !probeAnswer) request.log.warn(line, 'request');
    else request.log.info(line, 'request');
  });
}

/** How long a logged path may be: a 10,000-character one would make a 10 KB line. */
const LOGGED_PATH_CHARS = 1000;

/** What every request line starts with. */
function lineOf(request: FastifyRequest, reply: FastifyReply) {
  return {
    client: request.ip,
    method: request.method,
    path: requestPath(request.url, LOGGED_PATH_CHARS),
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 100) / 100,
  };
}

/**
 * The request line of an answer given where no hook runs (an error Fastify meets before routing): the start of every
 * line and the error's body, at warning level (a client's error) or error level.
 */
export function logEarlyAnswer(request: FastifyRequest, reply: FastifyReply, error: Record<string, unknown>): void {
  const line = { ...lineOf(request, reply), error: forLog(error) };
  if (reply.statusCode >= 500) request.log.error(line, 'request');
  else request.log.warn(line, 'request');
}

export const requestLog = fp(requestLogPlugin, { name: 'request-log' });
