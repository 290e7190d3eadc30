// Optional HTTP features from config: Prometheus metrics, rate limiting, CORS.
import cors from '@fastify/cors';
import underPressure from '@fastify/under-pressure';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import metrics from 'fastify-metrics';
import type { Config } from './config.js';
import { guardOperatorRoutes } from './operator-access.js';

/** Routes that answer whatever the load: orchestrators must be able to ask. */
const PROBES = new Set(['/live', '/health', '/ready', '/metrics']);

async function httpExtrasPlugin(app: FastifyInstance, opts: { config: Config }) {
  const { config } = opts;
  if (config.METRICS_ENABLED) {
    // Each app gets a fresh registry so tests that build several apps do not clash.
    // CommonJS module: its plugin is the `default` export.
    await app.register(metrics.default, {
      endpoint: null,
      clearRegisterOnInit: true,
      routeMetrics: { enabled: { histogram: true, summary: false }, routeBlacklist: ['/metrics'] },
    });
    // The endpoint is an operator route: served here, in a guarded scope.
    await app.register(async (scope) => {
      await guardOperatorRoutes(scope, config, (status, message) => ({
        error: status === 401 ? 'Unauthorized' : 'Forbidden',
        message,
        details: {},
      }));
      scope.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) => {
        const registry = app.metrics.client.register;
        return reply.type(registry.contentType).send(await registry.metrics());
      });
    });
  }
  if (config.MAX_EVENT_LOOP_DELAY_MS > 0) {
    // Shed load while the event loop lags (every request would wait anyway); the probes keep answering, and each domain
    // gets its own error shape.
    await app.register(underPressure, {
      maxEventLoopDelay: config.MAX_EVENT_LOOP_DELAY_MS,
      retryAfter: 5,
      // The plugin sends what the handler returns (and lets the request through when it returns nothing); its types
      // only allow void.
      pressureHandler: ((request: FastifyRequest, reply: FastifyReply) => {
        if (PROBES.has(request.url.split('?')[0]!)) return undefined;
        void reply.code(503).header('retry-after', 5);
        const message = 'The service is overloaded; try again in a few seconds';
        // Named like every other error body: the client can quote the id, and the request's log line carries it.
        return /^\/(rag|analyze)\//.test(request.url)
          ? { detail: message, request_id: request.id }
          : { error: 'ServiceUnavailable', message, details: { retry_after_s: 5, request_id: request.id } };
      }) as unknown as (request: FastifyRequest, reply: FastifyReply) => void,
    });
  }
  if (config.RATE_LIMIT_MAX > 0) {
    await app.register(rateLimit, { max: config.RATE_LIMIT_MAX, timeWindow: config.RATE_LIMIT_WINDOW_MS });
  }
  if (config.CORS_ORIGINS.length > 0) {
    await app.register(cors, { origin: config.CORS_ORIGINS.includes('*') ? true : config.CORS_ORIGINS });
  }
}

export default fp(httpExtrasPlugin, { name: 'http-extras' });
