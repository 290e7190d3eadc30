// The production image without Docker: the files the Dockerfile's runtime stage copies, the code compiled as its build
// stage compiles it, and production dependencies only (its npm ci --omit=dev, from the local npm cache). There the
// documented commands must run (npm run collect, index, migrate, models:pull), a collection run must reach the catalog,
// and the service must start and serve a route that runs in a worker thread.
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { tempDir } from '../helpers/app.js';
import { FakeApis } from '../helpers/fake-movie-apis.js';
import { movies } from '../helpers/movies.js';
import { serviceUrl } from '../helpers/processes.js';

const run = promisify(execFile);

/** The Dockerfile's instructions, continuation lines joined, with the stage each belongs to. */
function instructions(): { stage: string; op: string; args: string }[] {
  let stage = '';
  return readFileSync(fromRoot('Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op = '', ...rest] = l.split(/\s+/);
      const args = rest.join(' ');
      if (op === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? '';
      return { stage, op, args };
    });
}

const runtime = instructions().filter((i) => i.stage === 'runtime');

interface Result {
  code: number | null;
  output: string;
}

describe('the production install (Dockerfile runtime stage, npm ci --omit=dev)', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  const fake = new FakeApis();

  /** A command in the install's folder, with the image's environment and none of the developer's. */
  const sh = (cmd: string, args: string[], extra: NodeJS.ProcessEnv = {}, timeout = 120_000): Promise<Result> =>
    run(cmd, args, { cwd: root, env: { ...env, ...extra }, timeout, maxBuffer: 16 << 20 }).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (err: { code?: number | string; stdout?: string; stderr?: string }) => ({
        code: typeof err.code === 'number' ? err.code : null,
        output: `${err.stdout ?? ''}${err.stderr ?? ''}${typeof err.code === 'string' ? err.code : ''}`,
      }),
    );
  const npmRun = (script: string, args: string[], extra: NodeJS.ProcessEnv = {}) => sh('npm', ['run', script, '--', ...args], extra);

  beforeAll(async () => {
    root = tempDir('prod-install-');
    // What npm needs to reach the registry (its cache, registry, proxy and certificates), and nothing of the project's:
    // an npm_config_local_prefix inherited from `npm test` would send the install into the checkout.
    const passed =
      /^(PATH|HOME|TMPDIR|(https?|no)_proxy|NODE_EXTRA_CA_CERTS|SSL_CERT_(FILE|DIR)|npm_config_(cache|registry|cafile|ca|strict_ssl|proxy|https_proxy|noproxy|userconfig))$/i;
    env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => passed.test(k))),
      NODE_ENV: 'production',
      APP_ENV: 'production',
      DATA_DIR: join(root, 'data'),
      LOG_LEVEL: 'warn',
    };
    // The build stage: npm run build (tsc -p tsconfig.build.json), here into the install's dist/.
    const tsc = [fromRoot('node_modules/typescript/bin/tsc'), '-p', fromRoot('tsconfig.build.json'), '--outDir', join(root, 'dist')];
    await run(process.execPath, tsc, { timeout: 240_000 }).catch((err: Error & { stdout?: string }) => {
      throw new Error(`npm run build fails:\n${err.stdout || err.message}`);
    });
    for (const { args } of runtime.filter((i) => i.op === 'COPY')) {
      if (args.startsWith('--from=build')) continue; // dist/, compiled above
      const parts = args.split(/\s+/);
      const dest = parts.pop()!;
      for (const src of parts) {
        const target = dest.endsWith('/') ? join(root, dest, basename(src)) : join(root, dest);
        mkdirSync(join(target, '..'), { recursive: true });
        cpSync(fromRoot(src), target, { recursive: true });
      }
    }
    // The image's install command, from the local npm cache where it holds the packages.
    const install = runtime
      .find((i) => i.op === 'RUN' && /\bnpm ci\b/.test(i.args))!
      .args.split('&&')[0]!
      .trim()
      .split(/\s+/);
    expect(install).toContain('--omit=dev');
    const done = await sh(install[0]!, [...install.slice(1), '--prefer-offline'], {}, 400_000);
    expect(done.code, done.output).toBe(0);
    await fake.start();
  }, 660_000);

  afterAll(async () => {
    await fake.stop();
    // A gigabyte of node_modules: removed now, not left to the exit of the test worker.
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('builds on Node 24 LTS, and package.json asks for Node 22 or later', () => {
    const bases = instructions().filter((i) => i.op === 'FROM');
    expect(bases.length).toBeGreaterThan(0);
    for (const b of bases) expect(b.args).toMatch(/^node:24-bookworm-slim\b/);
    const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=22');
  });

  it('holds the compiled code and no development tool', () => {
    expect(existsSync(join(root, 'dist/src/server.js'))).toBe(true);
    expect(existsSync(join(root, 'node_modules/fastify'))).toBe(true);
    for (const dev of ['tsx', 'typescript', 'vitest']) expect(existsSync(join(root, 'node_modules', dev)), dev).toBe(false);
  });

  it.each(['collect', 'index', 'migrate', 'models:pull'])(
    'npm run %s -- --help prints its usage',
    async (script) => {
      const res = await npmRun(script, ['--help']);
      expect(res.code, res.output).toBe(0);
      expect(res.output).toContain(`usage: npm run ${script}`);
    },
    120_000,
  );

  it('npm run collect: a dry run, then a run against the catalog and ratings', async () => {
    const key = 'a'.repeat(32);
    fake.catalogKeys = { apiKey: key, readAccessToken: 'unused' };
    fake.add(...movies(3, 400, 1, new Date()));
    const keys = {
      CATALOG_BASE_URL: fake.catalogUrl,
      RATINGS_BASE_URL: fake.ratingsUrl,
      CATALOG_API_KEY: key,
      RATINGS_API_KEY: 'ratings-key',
    };
    const dry = await npmRun('collect', ['--dry-run'], keys);
    expect(dry.code, dry.output).toBe(0);
    expect(dry.output).toContain('no movie is due for a refresh');
    expect(fake.requests.catalog).toHaveLength(0); // a dry run sends nothing

    const year = new Date().getUTCFullYear();
    const real = await npmRun('collect', ['--start-year', String(year - 3), '--end-year', String(year), '--min-vote-count', '0'], keys);
    expect(real.code, real.output).toBe(0);
    expect(real.output).toMatch(/run 1: succeeded/);
    expect(fake.requests.catalog.some((r) => r.path === '/discover/movie' && r.query.get('api_key') === key)).toBe(true);
    expect(fake.requests.catalog.filter((r) => r.path.startsWith('/movie/'))).toHaveLength(3);
    expect(real.output).not.toContain(key);
  }, 120_000);

  it('npm run migrate applies the migrations to the embedded database', async () => {
    const res = await npmRun('migrate', [], { DATA_DIR: join(root, 'data-migrate') });
    expect(res.code, res.output).toBe(0);
    expect(res.output).toMatch(/^applied: \w/m);
  }, 120_000);

  it('the image command starts the service, which draws an explanation plot in a worker thread', async () => {
    const cmd = JSON.parse(runtime.find((i) => i.op === 'CMD')!.args) as string[];
    expect(cmd[0]).toBe('node');
    const dataDir = join(root, 'data-service');
    const child = spawn(process.execPath, cmd.slice(1), {
      cwd: root,
      env: { ...env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', RAG_INDEX_ON_START: 'false', MAX_EVENT_LOOP_DELAY_MS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const url = await serviceUrl(dataDir, 90_000, child, () => out);
      const res = await fetch(`${url}/api/explain`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pclass: 1, sex: 'female', age: 29, sibsp: 0, parch: 0, embarked: 'C' }),
      });
      const body = (await res.json()) as { explanation_image_url?: string };
      expect(res.status, JSON.stringify(body) + out).toBe(200);
      const img = await fetch(new URL(body.explanation_image_url!, url));
      expect(img.headers.get('content-type'), `${body.explanation_image_url} ${await img.clone().text()}`).toBe('image/png');
      expect(
        Buffer.from(await img.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);
});
