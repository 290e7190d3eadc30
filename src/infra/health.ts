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

/** What a component measured just now (it may check something over the network, with a short timeout). */
export type ComponentProbe = () => ComponentStatus | Promise<ComponentStatus>;
/** What a component still waits for before this replica can serve it (null when it can). */
export type ReadinessProbe = () => string | null;

declare module 'fastify' {
  interface FastifyInstance {
    health: {
      register(name: string, probe: ComponentProbe): void;
      components(): Promise<Record<string, ComponentStatus>>;
      /** A readiness condition for GET /ready: the probe may start loading what it waits for. */
      readiness(name: string, probe: ReadinessProbe): void;
    };
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
  const readiness = new Map<string, ReadinessProbe>();
  app.decorate('health', {
    register(name: string, probe: ComponentProbe) {
      probes.set(name, probe);
    },
    async components() {
      const entries = await Promise.all(
        [...probes].map(async ([name, probe]): Promise<[string, ComponentStatus]> => {
          try {
            return [name, await probe()];
          } catch (err) {
            return [name, { ready: false, error: (err as Error).message }];
          }
        }),
      );
      return Object.fromEntries(entries);
    },
    readiness(name: string, probe: ReadinessProbe) {
      readiness.set(name, probe);
    },
  });
  healthRoute(app);
  readyRoute(app, readiness);
  liveRoute(app);
}

/** GET /health: always 200, with every component's state. */
function healthRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().get(
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
      const components = await app.health.components();
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
}

/** GET /ready: 503 with what each domain waits for, 200 once nothing is missing. */
function readyRoute(app: FastifyInstance, readiness: Map<string, ReadinessProbe>) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/ready',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness: this replica can serve every domain it is configured for',
        description:
          '503 until the survival model is loaded, the text models load, the document index is loaded and the database is migrated; ' +
          '200 after that. For load balancers and Kubernetes readiness probes (liveness: `/live`).',
        response: {
          200: z.object({ status: z.literal('ready') }),
          503: z.object({ status: z.literal('not_ready'), waiting_for: z.record(z.string(), z.string()) }),
        },
      },
    },
    async (_request, reply) => {
      const waiting = Object.fromEntries([...readiness].map(([name, probe]) => [name, probe()]).filter(([, reason]) => reason !== null)) as Record<
        string,
        string
      >;
      if (Object.keys(waiting).length) return reply.code(503).send({ status: 'not_ready' as const, waiting_for: waiting });
      return { status: 'ready' as const };
    },
  );
}

/** GET /live: the process is up. */
function liveRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().get(
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
