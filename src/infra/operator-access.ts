// Operator routes (indexing, collection runs and status, metrics). Three modes:
// - ADMIN_TOKEN set: every client needs `Authorization: Bearer <ADMIN_TOKEN>` (compared in constant time by
//   @fastify/bearer-auth);
// - no token, no TRUST_PROXY: local clients only, judged by the socket's own address (never by X-Forwarded-For) and by a
//   Host header that names this machine (a page on another name that resolves here, DNS rebinding, is refused);
// - no token but TRUST_PROXY set: closed. Behind a proxy on the same host every client's socket is loopback, so
//   "local" means nothing there; the operator routes need the token.
// Operator POSTs also refuse what a browser could send cross-site without a preflight: a body that is not JSON, and an
// Origin that is not the Host's own.
import bearerAuth from '@fastify/bearer-auth';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from './config.js';

/** The error body a domain documents, for 401 and 403. */
export type ErrorBodyOf = (status: 401 | 403, message: string) => unknown;

export type OperatorMode = 'token' | 'local' | 'closed';

/** Loopback addresses, as Node reports them (IPv4, IPv6, IPv4-mapped IPv6). */
export function isLoopback(ip: string | undefined): boolean {
  return ip !== undefined && (/^127\./.test(ip) || ip === '::1' || /^::ffff:127\./.test(ip));
}

/** A Host header naming this machine: localhost (or a subdomain of it), a loopback address, with any port. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = (host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '')).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || isLoopback(name);
}

export function operatorMode(config: Pick<Config, 'ADMIN_TOKEN' | 'TRUST_PROXY'>): OperatorMode {
  if (config.ADMIN_TOKEN) return 'token';
  return config.TRUST_PROXY === false ? 'local' : 'closed';
}

/** A local client: the connection itself comes from loopback and the Host header names this machine. */
export function isLocalRequest(request: FastifyRequest): boolean {
  return isLoopback(request.socket.remoteAddress) && isLoopbackHost(request.headers.host);
}

export const UNAUTHORIZED = 'This operator route needs "Authorization: Bearer <ADMIN_TOKEN>"';
export const LOCAL_ONLY = 'This operator route answers local clients only: set ADMIN_TOKEN on the service and send it as "Authorization: Bearer <ADMIN_TOKEN>"';
export const PROXY_NEEDS_TOKEN =
  'This operator route is closed: behind a proxy (TRUST_PROXY) it needs ADMIN_TOKEN on the service, sent as "Authorization: Bearer <ADMIN_TOKEN>"';
export const CROSS_SITE = 'Operator requests must be sent as JSON (Content-Type: application/json) from this site';
export const CROSS_ORIGIN = "Operator requests are refused from another site: the Origin header must name this service's own host";

/**
 * Why an operator POST looks cross-site, or null. A browser sends a form or a text body to another site without
 * asking first, but never a JSON one; and it names the page's origin, which must be this host's.
 */
export function crossSiteReason(request: FastifyRequest, { formAllowed = false } = {}): 'origin' | 'content-type' | null {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      // "null" (a sandboxed or file page) or garbage: not this host
    }
    if (host === null || host.toLowerCase() !== (request.headers.host ?? '').toLowerCase()) return 'origin';
  }
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return null;
  if (formAllowed && type === 'application/x-www-form-urlencoded') return null;
  return 'content-type';
}

/** Guards every route of an encapsulated scope, answering refusals in the scope's documented error shape. */
export async function guardOperatorRoutes(scope: FastifyInstance, config: Pick<Config, 'ADMIN_TOKEN' | 'TRUST_PROXY'>, body: ErrorBodyOf): Promise<void> {
  const mode = operatorMode(config);
  scope.addHook('onRequest', async (request, reply) => {
    if (mode === 'closed') return reply.code(403).send(body(403, PROXY_NEEDS_TOKEN));
    if (mode === 'local' && !isLocalRequest(request)) return reply.code(403).send(body(403, LOCAL_ONLY));
    if (mode === 'token') reply.header('www-authenticate', 'Bearer');
  });
  if (mode === 'token') {
    // The plugin's types expect an `{error}` body; at run time it sends whatever errorResponse returns, and the text
    // routes document `{detail}`.
    const errorResponse = (() => body(401, UNAUTHORIZED)) as unknown as (err: Error) => { error: string };
    await scope.register(bearerAuth, { keys: [config.ADMIN_TOKEN!], verifyErrorLogLevel: 'warn', errorResponse });
  }
  // After the access check, so that a client without the token learns that first.
  scope.addHook('onRequest', async (request, reply) => {
    const reason = request.method === 'POST' ? crossSiteReason(request) : null;
    if (reason) return reply.code(403).send(body(403, reason === 'origin' ? CROSS_ORIGIN : CROSS_SITE));
  });
}
