// One error handler for the whole service: documented 4xx bodies, 5xx without internals, JSON or HTML 404.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, errorCodes } from 'fastify';
import fp from 'fastify-plugin';
import { parse as parseJson } from 'secure-json-parse';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, type ErrorBody } from './app-error.js';
import type { Config } from './config.js';
import { logEarlyAnswer } from './logging.js';
import { isLocalRequest, operatorMode } from './operator-access.js';
import { requestPath } from './paths.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { WorkersBusyError } from './worker-pool.js';

export { AppError, type ErrorBody };

/** The service-wide error body, as a schema (registered once, so it becomes the OpenAPI `Error` component). */
export const ErrorSchema = z
  .object({
    error: z.string().describe('error kind'),
    message: z.string().describe('description'),
    details: z.record(z.string(), z.unknown()).describe('extra information'),
  })
  .meta({ id: 'Error' });

export interface ValidationIssue {
  loc: string[];
  msg: string;
  type: string;
}

/** The parts of a zod issue the error body needs (also what fastify-type-provider-zod keeps of one). */
export interface IssueLike {
  path: readonly PropertyKey[];
  code: string;
  message: string;
  keys?: readonly string[];
}

const BOUNDS = new Set(['too_big', 'too_small']);
const samePath = (a: IssueLike, b: IssueLike) => a.path.length === b.path.length && a.path.every((k, i) => k === b.path[i]);

/**
 * A bound the same field breaks again further on: zod checks an integer's safe range ("<=9007199254740991") before
 * the schema's own bound ("<=10"), so a huge number would be reported twice; only the schema's bound is kept.
 */
const boundRepeated = (issues: readonly IssueLike[], i: number) =>
  BOUNDS.has(issues[i]!.code) && issues.slice(i + 1).some((later) => later.code === issues[i]!.code && samePath(later, issues[i]!));

/** Turns zod issues into the spec's `{loc, msg, type}` list; unknown keys get one entry each, named by the key. */
export function issuesToErrors(all: readonly IssueLike[], prefix: string[] = []): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const issues = all.filter((_, i) => !boundRepeated(all, i));
  for (const issue of issues) {
    const loc = [...prefix, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      for (const key of issue.keys) out.push({ loc: [...loc, key], msg: 'Extra field not permitted', type: issue.code });
    } else {
      out.push({ loc: loc.length ? loc : ['body'], msg: issue.message, type: issue.code });
    }
  }
  return out;
}

/** zod reports an absent enum field as a bad option; tell the client plainly that the field is missing. */
function markMissing(errors: ValidationIssue[], input: unknown, skip: number): ValidationIssue[] {
  return errors.map((e) => {
    if (e.type === 'unrecognized_keys' || e.loc.length <= skip) return e;
    let parent: unknown = input;
    for (const key of e.loc.slice(skip, -1)) parent = (parent as Record<string, unknown> | null)?.[key];
    const last = e.loc[e.loc.length - 1]!;
    const isMissing = parent !== null && typeof parent === 'object' && !Object.hasOwn(parent, last);
    return isMissing ? { ...e, msg: 'Field required', type: 'missing' } : e;
  });
}

/** Most issues a validation error lists: a body stays small whatever the request (1,000 empty items, 7,000 issues). */
export const MAX_LISTED_ISSUES = 20;

/** The first issues, and `error_count` (all of them) when some were left out. */
export function boundedIssues(errors: ValidationIssue[]): { errors: ValidationIssue[]; error_count?: number } {
  return errors.length > MAX_LISTED_ISSUES ? { errors: errors.slice(0, MAX_LISTED_ISSUES), error_count: errors.length } : { errors };
}

export function validationBody(errors: ValidationIssue[]): ErrorBody {
  return { error: 'ValidationError', message: 'Invalid input data', details: boundedIssues(errors) };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The request carries `Authorization: Bearer <ADMIN_TOKEN>` (compared in constant time). */
function holdsAdminToken(request: FastifyRequest, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return m !== null && timingSafeEqual(digest(m[1]!), digest(token));
}

/**
 * Whether an error body may carry internals (exception text, file paths, host names): for operators, judged as the
 * operator routes judge them (the ADMIN_TOKEN bearer; without a token and without a proxy, a local client), and for
 * everyone in debug mode, which only development allows. Everyone else reads the kind of failure and the request id;
 * the log has the rest.
 */
export function showsInternals(
  request: FastifyRequest,
  config: Pick<Config, 'APP_ENV' | 'APP_DEBUG' | 'ADMIN_TOKEN' | 'TRUST_PROXY'> | undefined = request.server.config,
): boolean {
  if (!config) return false;
  if (config.APP_DEBUG && config.APP_ENV === 'development') return true;
  const mode = operatorMode(config);
  if (mode === 'token') return holdsAdminToken(request, config.ADMIN_TOKEN!);
  return mode === 'local' && isLocalRequest(request);
}

/**
 * The `{loc, msg, type}` list of a request that failed its route schema (null for any other error): `loc` is the path
 * of the field as a list (`["passengers", "3", "age"]`), prefixed by `query` or `params` outside the body. Every
 * domain reports validation failures this way, inside its own error body.
 */
export function requestValidationErrors(err: FastifyError, request: FastifyRequest): ValidationIssue[] | null {
  if (!hasZodFastifySchemaValidationErrors(err)) return null;
  // The provider flattens each zod issue's path into a JSON-pointer-like instancePath.
  const issues: IssueLike[] = err.validation.map((v) => ({
    path: v.instancePath.split('/').slice(1).filter(Boolean),
    code: v.keyword,
    message: v.message ?? 'Invalid value',
    keys: (v.params as { keys?: string[] }).keys,
  }));
  const context = err.validationContext ?? 'body';
  const prefix = context === 'body' ? [] : [context];
  const input = (request as unknown as Record<string, unknown>)[context];
  // A problem with the whole body (an array, a string) is not a missing field: only field paths are checked.
  const root = issues.filter((i) => i.path.length === 0 && i.code !== 'unrecognized_keys');
  const fields = issues.filter((i) => !root.includes(i));
  return [...issuesToErrors(root, prefix), ...markMissing(issuesToErrors(fields, prefix), input, prefix.length)];
}

/** Fastify's own client errors (unparsable, empty, too large, wrong media type): their status and a plain message. */
export function fastifyClientError(err: FastifyError, request?: FastifyRequest): { status: number; kind: string; message: string } | null {
  const known = err.code ? FASTIFY_CLIENT_ERRORS[err.code] : undefined;
  if (!known) return null;
  // A body over the limit: the limit, so that the client knows how far to cut.
  const limit = err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? request?.routeOptions.bodyLimit : undefined;
  const message = err instanceof JsonBodyError ? err.message : known[1];
  return { status: err.statusCode ?? 400, kind: known[0], message: limit ? `${message} (at most ${limit.toLocaleString('en')} bytes)` : message };
}

/** A JSON body refused by parseJsonBody, with a message that says why. */
class JsonBodyError extends Error {
  readonly code = 'FST_ERR_CTP_INVALID_JSON_BODY';
  readonly statusCode = 400;
}

/**
 * The JSON body parser. Fastify's own gives one error for broken JSON and for a "__proto__" key alike; this one says
 * which, and where broken JSON breaks (JSON.parse's position, never the body's text, which is the user's).
 */
export function parseJsonBody(body: string): unknown {
  if (body.length === 0) throw new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY();
  try {
    return parseJson(body, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    const text = err instanceof Error ? err.message : '';
    if (/forbidden (?:prototype|constructor) property/.test(text)) {
      throw new JsonBodyError('Request body holds a "__proto__" key, or a "constructor" key with a "prototype": such keys are refused');
    }
    const position = /at position (\d+)/.exec(text)?.[1];
    const where = position ? ` (at position ${position})` : /end of JSON input/.test(text) ? ' (it ends too soon)' : '';
    throw new JsonBodyError(`Request body is not valid JSON${where}`);
  }
}

function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return !request.url.startsWith('/api/') && accept.includes('text/html');
}

/** Fastify's own client errors (body parsing, size, media type) mapped to clear kinds. */
const FASTIFY_CLIENT_ERRORS: Record<string, [string, string]> = {
  // parseJsonBody's errors carry their own message (broken JSON, or a prototype key).
  FST_ERR_CTP_INVALID_JSON_BODY: ['InvalidJSON', 'Request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['InvalidJSON', 'Request body is empty but Content-Type is application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['PayloadTooLarge', 'Request body is larger than the service accepts'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UnsupportedMediaType', 'Unsupported Content-Type; send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['BadRequest', 'Content-Length does not match the body'],
  ERR_CONTENT_ENCODING: ['UnsupportedMediaType', 'Content-Encoding is not supported; send the body uncompressed'],
};

/** A body sent compressed (Content-Encoding gzip, br...): read as it is, it would be parsed as the wrong bytes. */
class ContentEncodingError extends Error {
  readonly code = 'ERR_CONTENT_ENCODING';
  readonly statusCode = 415;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes an HTML form's body (the pages); JSON routes refuse forms and plain text with 415. */
    acceptsForm?: boolean;
  }
}

/** Whether an error at this URL is answered in the text API's `{detail}` body. */
const answersWithDetail = (url: string, detailPrefixes: readonly string[]) => detailPrefixes.some((prefix) => url.startsWith(prefix));

/** What Fastify's errors before routing mean to a client. */
const BEFORE_ROUTING: Record<string, { status: number; error: string; message: string }> = {
  FST_ERR_BAD_URL: { status: 400, error: 'BadRequest', message: 'The URL is malformed: a percent-encoded part of it (%XX) does not decode to text' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, error: 'URITooLong', message: 'A part of the URL path is too long (at most 100 characters between slashes)' },
};

/**
 * Errors Fastify meets before routing (a URL whose percent-encoding does not decode, "/%00%ff"; a path parameter over
 * its length limit): the documented body, `{detail}` under the text API's prefixes, rather than Fastify's own
 * `{error, code, statusCode}`.
 */
export function frameworkErrors(detailPrefixes: readonly string[] = []) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const known = BEFORE_ROUTING[err.code];
    if (!known) request.log.error({ err }, 'routing failed');
    const { status, error, message } = known ?? { status: 500, error: 'InternalServerError', message: 'The request could not be routed' };
    // A 5xx body carries the request id, as every other one does.
    const details = known ? {} : { request_id: request.id };
    const detailBody = answersWithDetail(request.url, detailPrefixes);
    // No hook runs for these answers: the headers and the log line of every other answer are given here.
    void reply
      .code(status)
      .headers({ ...SECURITY_HEADERS, 'x-request-id': request.id })
      .send(detailBody ? { detail: message, ...details } : { error, message, details });
    logEarlyAnswer(request, reply, { error, message });
  };
}

/** What Node's HTTP parser refuses before Fastify sees a request, in the service's error body. */
const CLIENT_ERRORS: Record<string, { status: number; error: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, error: 'RequestTimeout', message: 'The request did not arrive in time' },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    error: 'RequestHeaderFieldsTooLarge',
    message: 'The request line and headers are over the size limit (a URL or header of about 16 KB or more)',
  },
};

/**
 * Fastify's clientErrorHandler: a request the HTTP parser refuses (a 100,000-character URL, a header block over Node's
 * limit, a timeout, bytes that are not HTTP) is answered in the `{error, message, details}` body, as Fastify's default
 * does in its own `{error, message, statusCode}`, and the connection closes.
 */
export function clientErrors(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = (err.code && CLIENT_ERRORS[err.code]) || { status: 400, error: 'BadRequest', message: 'The request is not valid HTTP' };
  const reqId = randomUUID();
  // The code only: the error carries the raw bytes received, which may hold a user's text.
  const client = 'remoteAddress' in socket ? socket.remoteAddress : undefined;
  this.log.warn({ reqId, client, status: known.status, error: { error: known.error, code: err.code } }, 'request refused by the HTTP parser');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: known.error, message: known.message, details: {} });
  const headers = {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': reqId,
    connection: 'close',
  };
  const head = [`HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  // What the client still sends is read and dropped for a moment, so that it gets the answer rather than a reset
  // (closing a socket with unread bytes resets it).
  socket.resume();
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}

/** How long a refused request's connection stays open to drain what the client still sends. */
const CLIENT_ERROR_LINGER_MS = 1000;

/** A request's path as an error repeats it: without its query, cut at 200 characters (a 10,000-character one too). */
export const shownUrlPath = (url: string): string => requestPath(url, 200);

export interface ErrorHandlerOptions {
  /** Renders the HTML 404 page for browsers; JSON is used when absent. */
  renderNotFoundPage?: (request: FastifyRequest, reply: FastifyReply) => unknown;
  /**
   * Path prefixes whose API answers its errors as `{detail}` (the text API's body): their 404 and 405 answer so too,
   * with the same message, rather than in the `{error, message, details}` body of the rest.
   */
  detailPrefixes?: readonly string[];
}

async function errorsPlugin(app: FastifyInstance, opts: ErrorHandlerOptions) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    try {
      return handle(err, request, reply);
    } catch (handlerErr) {
      // The handler must never hand Fastify an error of its own: that would leak its message.
      request.log.error({ err: handlerErr, original: err }, 'error handler failed');
      return reply.code(500).send({ error: 'InternalServerError', message: 'An unexpected error occurred', details: {} });
    }
  });

  function handle(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (err instanceof WorkersBusyError) {
      return reply
        .code(503)
        .header('retry-after', err.retryAfterS)
        .send({ error: 'ServiceUnavailable', message: err.message, details: { retry_after_s: err.retryAfterS, request_id: request.id } });
    }
    if (err instanceof AppError) {
      const { internal } = err;
      request.internalError = internal;
      // A 503 the route raises on purpose is a state the client is told about (not configured, not ready), not a fault.
      if (err.statusCode === 503) request.log.warn({ error: err.kind, reason: err.message, internal }, 'service unavailable');
      else if (err.statusCode >= 500) request.log.error({ err, internal }, 'request failed');
      const body = err.toBody();
      // A server-side failure names its request, so that the log line with the cause can be found.
      if (err.statusCode >= 500) {
        body.details = { ...body.details, request_id: request.id, ...(internal && showsInternals(request) ? { internal } : {}) };
      }
      return reply.code(err.statusCode).send(body);
    }
    const invalid = requestValidationErrors(err, request);
    if (invalid) return reply.code(400).send(validationBody(invalid));
    const client = fastifyClientError(err, request);
    if (client) return reply.code(client.status).send({ error: client.kind, message: client.message, details: {} });
    if (err.statusCode === 429) {
      return reply.code(429).send({ error: 'TooManyRequests', message: err.message, details: {} });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // e.g. 403 from the static file server for a path outside its root.
      const kind = (STATUS_CODES[err.statusCode] ?? 'Bad Request').replace(/[^A-Za-z]/g, '');
      return reply.code(err.statusCode).send({ error: kind, message: err.message, details: {} });
    }
    request.log.error({ err }, isResponseSerializationError(err) ? 'response did not match its schema' : 'unhandled error');
    const details: Record<string, unknown> = { request_id: request.id };
    if (showsInternals(request)) details.internal = err.message;
    return reply.code(500).send({ error: 'InternalServerError', message: 'An unexpected error occurred', details });
  }

  // Forms and plain text are for the pages; a JSON route given one gets 415 rather than a puzzling validation error
  // (`curl -d '{...}'` without a content type sends a form whose one field is the whole JSON text).
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.acceptsForm) return;
    const type = request.headers['content-type']?.split(';')[0]!.trim().toLowerCase();
    if (type === 'application/x-www-form-urlencoded' || type === 'text/plain') throw new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type);
  });

  // The service reads bodies as sent; a compressed one is refused (RFC 9110, 15.5.16) rather than parsed as garbage or,
  // worse, read as plain JSON when the header was wrong.
  app.addHook('preParsing', async (request) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    const body = (request.headers['content-length'] ?? '0') !== '0' || request.headers['transfer-encoding'] !== undefined;
    if (body && encoding && encoding !== 'identity') throw new ContentEncodingError('Content-Encoding is not supported');
  });

  app.setNotFoundHandler((request, reply) => {
    const fullPath = request.url.split('?')[0]!;
    const path = shownUrlPath(request.url);
    const detailBody = answersWithDetail(fullPath, opts.detailPrefixes ?? []);
    // The path exists with other methods ("GET /rag/ask"): 405 with the methods it takes.
    const allowed = METHODS.filter((method) => method !== request.method && app.hasRoute({ method, url: fullPath }));
    if (allowed.length) {
      const message = `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}`;
      reply.code(405).header('allow', allowed.join(', '));
      if (detailBody) return reply.send({ detail: message });
      return reply.send({ error: 'MethodNotAllowed', message, details: { method: request.method, path, allowed } });
    }
    reply.code(404);
    // Under /static the route exists and the file does not (an explanation image past its keeping time, a typo).
    const message = path.startsWith('/static/') ? `No file at ${path}` : `No route for ${request.method} ${path}`;
    if (detailBody) return reply.send({ detail: message });
    if (opts.renderNotFoundPage && wantsHtml(request)) return opts.renderNotFoundPage(request, reply);
    return reply.send({ error: 'NotFound', message, details: { method: request.method, path } });
  });
}

export default fp(errorsPlugin, { name: 'errors' });
