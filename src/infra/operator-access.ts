// Operator routes (indexing, collection runs and status, metrics): with ADMIN_TOKEN they need
// `Authorization: Bearer <ADMIN_TOKEN>` (compared in constant time by @fastify/bearer-auth); without it they answer
// loopback clients only, so a fresh install is not open to the network.
import bearerAuth from '@fastify/bearer-auth';
import type { FastifyInstance } from 'fastify';

/** The error body a domain documents, for 401 and 403. */
export type ErrorBodyOf = (status: 401 | 403, message: string) => unknown;

/** Loopback addresses, as Node reports them (IPv4, IPv6, IPv4-mapped IPv6). */
export function isLoopback(ip: string): boolean {
  return /^127\./.test(ip) || ip === '::1' || /^::ffff:127\./.test(ip);
}

export const UNAUTHORIZED = 'This operator route needs "Authorization: Bearer <ADMIN_TOKEN>"';
export const LOCAL_ONLY = 'This operator route answers local clients only: set ADMIN_TOKEN on the service and send it as "Authorization: Bearer <ADMIN_TOKEN>"';

/** Guards every route of an encapsulated scope, answering refusals in the scope's documented error shape. */
export async function guardOperatorRoutes(scope: FastifyInstance, token: string | undefined, body: ErrorBodyOf): Promise<void> {
  if (token) {
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('www-authenticate', 'Bearer');
    });
    // The plugin's types expect an `{error}` body; at run time it sends whatever errorResponse returns, and the text
    // routes document `{detail}`.
    const errorResponse = (() => body(401, UNAUTHORIZED)) as unknown as (err: Error) => { error: string };
    await scope.register(bearerAuth, { keys: [token], verifyErrorLogLevel: 'warn', errorResponse });
    return;
  }
  scope.addHook('onRequest', async (request, reply) => {
    if (!isLoopback(request.ip)) await reply.code(403).send(body(403, LOCAL_ONLY));
  });
}
