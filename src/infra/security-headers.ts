// Security headers on every answer (@fastify/helmet): a content security policy that the pages' own files pass, no
// framing by any site, no MIME sniffing, no referrer to other sites. Swagger UI (/api/docs) sends its own policy
// (src/infra/swagger.ts).
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

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

async function securityHeadersPlugin(app: FastifyInstance) {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: PAGE_POLICY },
    frameguard: { action: 'deny' },
    // Not no-referrer: a browser then sends `Origin: null` with the pages' own form posts, which the operator routes'
    // same-origin check (the collection's Run now) must refuse.
    referrerPolicy: { policy: 'same-origin' },
    // HTTPS ends at the proxy in front, which is where HSTS belongs; sent over plain HTTP it would only confuse.
    strictTransportSecurity: false,
    // Browsers ignore it over plain HTTP (other than localhost) and say so in the console: sent over HTTPS only.
    crossOriginOpenerPolicy: false,
  });
  app.addHook('onRequest', async (request, reply) => {
    if (request.protocol === 'https') reply.header('cross-origin-opener-policy', 'same-origin');
  });
}

export default fp(securityHeadersPlugin, { name: 'security-headers' });
