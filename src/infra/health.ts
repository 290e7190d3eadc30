// /health (the spec's fields plus per-domain components) and /live; domains report their state here.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { showsInternals } from './errors.js';
import { SERVICE_VERSION } from './paths.js';

export interface ComponentStatus {
  ready: boolean;
  [key: string]: unknown;
}

/** What a component measured just now (it may check something over the network, with a short timeout). */
export type ComponentProbe = () => ComponentStatus | Promise<ComponentStatus>;
/**
 * What a component still waits for before this replica can serve it (null when it can): a short reason, then ": " and
 * its cause, which only operators read.
 */
export type ReadinessProbe = () => string | null;

declare module 'fastify' {
  interface FastifyInstance {
    health: {
      register(name: string, probe: ComponentProbe): void;
      /** Every component as measured, causes included (for the service's own use). */
      components(): Promise<Record<string, ComponentStatus>>;
      /** What `request` may read: everything for operators; for anyone else a failure's kind, its cause in the log. */
      componentsFor(request: FastifyRequest): Promise<Record<string, ComponentStatus>>;
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

/** The short kind a failed component reports to clients that may not read its cause. */
export function failureKind(c: ComponentStatus): 'load_failed' | 'unavailable' {
  const loadFailed = c.state === 'failed' || c.model_loaded === false || c.preprocessor_loaded === false || c.failed_model !== undefined;
  return loadFailed ? 'load_failed' : 'unavailable';
}

/** Fields that carry a cause (an exception's text, a file path, the Hub's address, a model's folder), at any depth. */
const isCause = (key: string) => key === 'error' || key === 'detail' || key === 'failed_model' || key.endsWith('_error');

function withoutCauses(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => (isCause(k) ? [] : [[k, withoutCauses(v)]])));
}

/** What a client that may not read internals learns of a component: the same fields, a failure by its kind only. */
export function publicStatus(c: ComponentStatus): ComponentStatus {
  const status = withoutCauses(c) as ComponentStatus;
  return c.error === undefined ? status : { ...status, error: failureKind(c) };
}

/** The causes a public status leaves out, or null when there are none. */
function causesOf(value: unknown): Record<string, unknown> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const found: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const nested = isCause(k) ? v : causesOf(v);
    if (nested !== null && nested !== undefined) found.push([k, nested]);
  }
  return found.length ? Object.fromEntries(found) : null;
}

/** A readiness reason without its cause (what follows the first ": "). */
export const publicReason = (reason: string) => reason.split(': ')[0]!;

async function healthPlugin(app: FastifyInstance) {
  const probes = new Map<string, ComponentProbe>();
  const readiness = new Map<string, ReadinessProbe>();
  // The cause last logged per component, so that a probe polled every few seconds logs each cause once.
  const logged = new Map<string, string>();
  const components = async () => {
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
  };
  app.decorate('health', {
    register(name: string, probe: ComponentProbe) {
      probes.set(name, probe);
    },
    components,
    async componentsFor(request: FastifyRequest) {
      const all = await components();
      if (showsInternals(request)) return all;
      for (const [name, c] of Object.entries(all)) {
        const causes = causesOf(c);
        const key = JSON.stringify(causes);
        if (causes && logged.get(name) !== key) request.log.warn({ component: name, internal: causes }, 'health: the cause a client was not shown');
        logged.set(name, key);
      }
      return Object.fromEntries(Object.entries(all).map(([name, c]) => [name, publicStatus(c)]));
    },
    readiness(name: string, probe: ReadinessProbe) {
      readiness.set(name, probe);
    },
  });
  healthRoute(app);
  readyRoute(app, readiness);
  liveRoute(app);
}

/** GET /health: always 200; the causes of failures for operators only. */
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
    async (request) => {
      const components = await app.health.componentsFor(request);
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

/** GET /ready: 503 with what each domain waits for (its cause for operators only), 200 once nothing is missing. */
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
    async (request, reply) => {
      const waiting = Object.fromEntries([...readiness].map(([name, probe]) => [name, probe()]).filter(([, reason]) => reason !== null)) as Record<
        string,
        string
      >;
      if (Object.keys(waiting).length) {
        const shown = showsInternals(request) ? waiting : Object.fromEntries(Object.entries(waiting).map(([name, reason]) => [name, publicReason(reason)]));
        return reply.code(503).send({ status: 'not_ready' as const, waiting_for: shown });
      }
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
