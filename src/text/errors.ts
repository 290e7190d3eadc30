// The text domain's errors: the specification's `{detail}` body, with extra fields where they help the client, and one
// error handler for its routes. A 400 says which field failed and why (`errors: [{loc, msg, type}]`, `loc` a path list,
// as everywhere in the service); 413 and 415 keep their status; a 500 never carries an internal message.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyClientError, requestValidationErrors } from '../infra/errors.js';
import { WorkersBusyError } from '../infra/worker-pool.js';

export class TextHttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

export const INVALID_INPUT = 'Invalid input format';

/**
 * An error handler for a text scope. `domain` turns the scope's own errors into TextHttpError (or returns null);
 * `failure` names what failed in the 500 detail ("Analysis failed", "Search failed").
 */
export function textErrorHandler(failure: string, domain: (err: FastifyError, request: FastifyRequest) => TextHttpError | null = () => null) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const invalid = requestValidationErrors(err, request);
    if (invalid) return reply.code(400).send({ detail: INVALID_INPUT, errors: invalid });
    const client = fastifyClientError(err, request);
    if (client) {
      const detail = client.status === 400 ? INVALID_INPUT : client.message;
      return reply.code(client.status).send({ detail, ...(client.status === 400 ? { reason: client.message } : {}) });
    }
    if (err instanceof WorkersBusyError)
      return reply.code(503).header('retry-after', err.retryAfterS).send({ detail: err.message, retry_after_s: err.retryAfterS });
    const known = err instanceof TextHttpError ? err : domain(err, request);
    if (known) {
      // A 500 names the request, so that its log line (which has the cause) can be found.
      const internal = known.statusCode === 500;
      if (internal) request.log.error({ err: err.cause ?? err }, `${failure}: ${known.detail}`);
      return reply.code(known.statusCode).send({ detail: internal ? `${known.detail} (request id ${request.id})` : known.detail, ...known.extra });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return reply.code(err.statusCode).send({ detail: err.message });
    request.log.error({ err }, failure);
    return reply.code(500).send({ detail: `${failure}: an internal error occurred (request id ${request.id})` });
  };
}
