// Optional HTTP features from config: Prometheus metrics, rate limiting, CORS.
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import metrics from 'fastify-metrics';
import type { Config } from './config.js';

async function httpExtrasPlugin(app: FastifyInstance, opts: { config: Config }) {
  const { config } = opts;
  if (config.METRICS_ENABLED) {
    // Each app gets a fresh registry so tests that build several apps do not clash.
    // CommonJS module: its plugin is the `default` export.
    await app.register(metrics.default, {
      endpoint: '/metrics',
      clearRegisterOnInit: true,
      routeMetrics: { enabled: { histogram: true, summary: false }, routeBlacklist: ['/metrics'] },
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
