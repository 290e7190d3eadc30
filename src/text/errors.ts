// The text domain's errors: the specification's `{detail}` body, with extra fields where they help the client, and one
// error handler for its routes. A 400 says which field failed and why (`errors: [{loc, msg, type}]`, `loc` a path list,
// as everywhere in the service); 413 and 415 keep their status; a 5xx never carries an internal message (an exception's
// text, a path, a host name) except to operators.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { boundedIssues, fastifyClientError, requestValidationErrors, showsInternals } from '../infra/errors.js';
import { WorkersBusyError } from '../infra/worker-pool.js';

export class TextHttpError extends Error {
  /**
   * `internal` (why, with paths and host names) goes to the log, and to the client only as `internal` for operators.
   * On a 5xx, the extras `reason` and `model` are treated the same way (a model's load failure, its id or folder).
   */
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly internal?: string,
  ) {
    super(detail);
  }
}

/**
 * The body of a known text error. A 5xx names its request (its log line has the cause); the cause itself (`internal`,
 * or the extra `reason` and `model`, where the domains put a model's load failure with the Hub's address and the cache
 * folder) reaches operators only.
 */
function textErrorBody(known: TextHttpError, request: FastifyRequest): Record<string, unknown> {
  if (known.statusCode < 500) return { detail: known.detail, ...known.extra };
  // `model` too: a model configured as a local directory is a path.
  const { reason, model: _model, ...extra } = known.extra;
  const internal = known.internal ?? (typeof reason === 'string' ? reason : undefined);
  // The request's log line carries it (src/infra/logging.ts).
  request.internalError = internal;
  // A 500's detail names the request (the specification's `Analysis failed: <details>`); other statuses keep their
  // documented detail and carry the id beside it.
  const id = known.statusCode === 500 ? {} : { request_id: request.id };
  const detail = known.statusCode === 500 ? `${known.detail} (request id ${request.id})` : known.detail;
  const operator = showsInternals(request);
  return { detail, ...(operator ? known.extra : extra), ...id, ...(operator && known.internal ? { internal: known.internal } : {}) };
}

export const INVALID_INPUT = 'Invalid input format';

/**
 * An error handler for a text scope. `domain` turns the scope's own errors into TextHttpError (or returns null);
 * `failure` names what failed in the 500 detail ("Analysis failed", "Search failed").
 */
export function textErrorHandler(failure: string, domain: (err: FastifyError, request: FastifyRequest) => TextHttpError | null = () => null) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const invalid = requestValidationErrors(err, request);
    if (invalid) return reply.code(400).send({ detail: INVALID_INPUT, ...boundedIssues(invalid) });
    const client = fastifyClientError(err, request);
    if (client) {
      const detail = client.status === 400 ? INVALID_INPUT : client.message;
      return reply.code(client.status).send({ detail, ...(client.status === 400 ? { reason: client.message } : {}) });
    }
    if (err instanceof WorkersBusyError)
      return reply.code(503).header('retry-after', err.retryAfterS).send({ detail: err.message, retry_after_s: err.retryAfterS, request_id: request.id });
    const known = err instanceof TextHttpError ? err : domain(err, request);
    if (known) {
      // A 500 names the request, so that its log line (which has the cause) can be found.
      if (known.statusCode === 500) request.log.error({ err: err.cause ?? err }, `${failure}: ${known.detail}`);
      return reply.code(known.statusCode).send(textErrorBody(known, request));
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return reply.code(err.statusCode).send({ detail: err.message });
    request.log.error({ err }, failure);
    const detail = `${failure}: an internal error occurred (request id ${request.id})`;
    return reply.code(500).send({ detail, ...(showsInternals(request) ? { internal: err.message } : {}) });
  };
}
