// Security headers on every answer (@fastify/helmet): a content security policy that the pages' own files pass, no
// framing by any site, no MIME sniffing, no referrer to other sites. Swagger UI (/api/docs) sends its own policy
// (src/infra/swagger.ts). Answers given before any hook runs (errors before routing, requests the HTTP parser refuses)
// carry the same headers through SECURITY_HEADERS.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The pages load one stylesheet, an icon and their images from this origin and run no script. Style attributes are
 * allowed: the bars' widths are data (`style="width: 62%"`); an attribute cannot run script, and the sources below
 * keep it from loading anything from elsewhere. `upgrade-insecure-requests` is left out: a service reached over plain
 * HTTP by a LAN or Docker name would load nothing.
 */
export const PAGE_POLICY = {
  defaultSrc: ["'self'"],
  baseUri: ["'none'"],
  fontSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  imgSrc: ["'self'"],
  objectSrc: ["'none'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'"],
  styleSrcAttr: ["'unsafe-inline'"],
};

const HELMET_OPTIONS = {
  contentSecurityPolicy: { useDefaults: false, directives: PAGE_POLICY },
  frameguard: { action: 'deny' },
  // Not no-referrer: a browser then sends `Origin: null` with the pages' own form posts, which the operator routes'
  // same-origin check (the collection's Run now) must refuse.
  referrerPolicy: { policy: 'same-origin' },
  // HTTPS ends at the proxy in front, which is where HSTS belongs; sent over plain HTTP it would only confuse.
  strictTransportSecurity: false,
  // Browsers ignore it over plain HTTP (other than localhost) and say so in the console: sent over HTTPS only.
  crossOriginOpenerPolicy: false,
} satisfies HelmetOptions;

/** The headers the plugin below sets on every answer (the policy holds no per-request nonce), by lower-case name. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  helmet(HELMET_OPTIONS)(res.req, res, () => {});
  return Object.fromEntries(Object.entries(res.getHeaders()).map(([name, value]) => [name, String(value)]));
})();

async function securityHeadersPlugin(app: FastifyInstance) {
  await app.register(fastifyHelmet, HELMET_OPTIONS);
  app.addHook('onRequest', async (request, reply) => {
    if (request.protocol === 'https') reply.header('cross-origin-opener-policy', 'same-origin');
  });
}

export default fp(securityHeadersPlugin, { name: 'security-headers' });
