// /health (the spec's fields plus per-domain components) and /live; domains report their state here.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SERVICE_VERSION } from './paths.js';

export interface ComponentStatus {
  ready: boolean;
  [key: string]: unknown;
}

export type ComponentProbe = () => ComponentStatus;

declare module 'fastify' {
  interface FastifyInstance {
    health: { register(name: string, probe: ComponentProbe): void; components(): Record<string, ComponentStatus> };
  }
}

export const HealthSchema = z
  .object({
    status: z.enum(['healthy', 'degraded']).describe('healthy when every component is ready, degraded otherwise'),
    model_loaded: z.boolean().describe('the survival model is loaded'),
    preprocessor_loaded: z.boolean().describe('the survival preprocessor is loaded'),
    version: z.string().describe('service version (semver)'),
    uptime_s: z.number(),
    components: z.record(z.string(), z.object({ ready: z.boolean() }).catchall(z.unknown())),
  })
  .meta({ id: 'Health' });

async function healthPlugin(app: FastifyInstance) {
  const probes = new Map<string, ComponentProbe>();
  app.decorate('health', {
    register(name: string, probe: ComponentProbe) {
      probes.set(name, probe);
    },
    components() {
      return Object.fromEntries([...probes].map(([name, probe]) => [name, probe()]));
    },
  });

  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Service health',
        description: 'Always 200 while the process serves; `status` is `degraded` when a component failed to load.',
        response: { 200: HealthSchema },
      },
    },
    async () => {
      const components = app.health.components();
      const survival = components.survival;
      return {
        status: Object.values(components).every((c) => c.ready) ? ('healthy' as const) : ('degraded' as const),
        model_loaded: Boolean(survival?.model_loaded),
        preprocessor_loaded: Boolean(survival?.preprocessor_loaded),
        version: SERVICE_VERSION,
        uptime_s: Math.round(process.uptime()),
        components,
      };
    },
  );

  typed.get(
    '/live',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness: the process is up',
        response: { 200: z.object({ status: z.literal('alive') }) },
      },
    },
    async () => ({ status: 'alive' as const }),
  );
}

export default fp(healthPlugin, { name: 'health' });
