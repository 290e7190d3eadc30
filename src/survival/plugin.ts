// Survival domain plugin: loads the model and the explainer at start-up, reports them to /health, registers the routes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { fromRoot } from '../infra/paths.js';
import { taskFile } from '../infra/worker-pool.js';
import { DiskImageStore, PgImageStore } from './explain/image-store.js';
import { Explainer } from './explain/explainer.js';
import type { CanvasModule } from './plots/draw.js';
import { type PlotRequest, type PlotResult, drawer, plotter } from './plots/plotter.js';
import { survivalRoutes } from './routes.js';
import { SurvivalService } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    survival: SurvivalService;
    explainer: Explainer;
  }
}

export interface SurvivalOptions {
  imagesDir: string;
  /** Tests replace the canvas loader to prove the DependencyError path. */
  loadCanvas?: () => Promise<CanvasModule>;
}

async function survivalPlugin(app: FastifyInstance, opts: SurvivalOptions) {
  const service = new SurvivalService(fromRoot(app.config.MODEL_PATH), fromRoot(app.config.PREPROCESSOR_PATH), app.log);
  await service.load();
  const bounds = { maxCount: app.config.IMAGES_MAX_COUNT, maxAgeS: app.config.IMAGES_MAX_AGE_S, log: app.log };
  // Replicas that share PostgreSQL keep the images there, so that a URL from one replica answers on every other.
  const store = app.dbKind === 'postgres' ? new PgImageStore(() => app.db(), bounds) : new DiskImageStore({ ...bounds, dir: opts.imagesDir });
  if (store instanceof DiskImageStore) await store.prune();
  // Images by name only, as the store wrote them (a file server would serve whatever else the folder holds, and follow
  // symlinks out of it). Nested paths fall through to /static, which has no images folder: 404.
  app.get('/static/images/:name', { schema: { hide: true } }, async (request, reply) => {
    const png = await store.read((request.params as { name: string }).name);
    if (!png) return reply.callNotFound();
    return reply.type('image/png').header('cache-control', 'public, max-age=86400, immutable').send(png);
  });
  // Plots are drawn in the worker pool: encoding a PNG takes ~15 ms that predictions would otherwise wait behind, and
  // only the workers load the canvas library. A test's replacement loader draws here instead.
  const plotTask = taskFile(new URL('./plots/plot-task.js', import.meta.url));
  const draw = opts.loadCanvas ? drawer(opts.loadCanvas) : (req: PlotRequest) => app.workers.run<PlotResult>(plotTask, 'render', req);
  const explainer = new Explainer(service, store, plotter(draw));
  app.decorate('survival', service);
  app.decorate('explainer', explainer);
  app.health.register('survival', () => ({ ...service.status() }));
  app.health.readiness('survival', () => (service.status().model_loaded ? null : `survival model not loaded: ${service.status().error ?? 'unknown error'}`));
  app.addHook('onClose', () => service.close());
  await app.register(survivalRoutes, { service, explainer });
}

export default fp(survivalPlugin, { name: 'survival', dependencies: ['health', 'database', 'static-files', 'workers'] });
