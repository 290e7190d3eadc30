import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/infra/paths.js';
import { makeApp, tempDir } from '../helpers/app.js';

let arrived!: () => void;
const slowArrived = new Promise<void>((resolve) => (arrived = resolve));

async function slowRoute(app: FastifyInstance) {
  app.get('/api/slow', async () => {
    arrived();
    await sleep(400);
    return { done: true };
  });
}

describe('graceful shutdown', () => {
  it('lets an in-flight request finish when the app closes', async () => {
    const app = await makeApp({}, { plugins: [slowRoute] });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const inFlight = fetch(`http://127.0.0.1:${port}/api/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    // Closed once the request is in the handler, however long it took to get there.
    await slowArrived;
    const closing = app.close();
    const res = await inFlight;
    await closing;
    expect(res).toEqual({ status: 200, body: { done: true } });
    await expect(fetch(`http://127.0.0.1:${port}/live`)).rejects.toThrow();
  });

  it.each([
    ['once', 1],
    // What a process-group stop does to a service under npm: the signal from the sender, then npm's copy of it.
    ['twice at once', 2],
  ])(
    'the server process exits 0 on SIGTERM sent %s, after logging its shutdown',
    async (_, times) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
        cwd: PROJECT_ROOT,
        // The signal comes while the service still opens its database and index; closing waits for that (seconds on a
        // quiet machine, over the default 10 s grace on a loaded one), and a grace that runs out exits 1.
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: tempDir(), LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '60000' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const deadline = Date.now() + 20_000;
      while (!out.includes('Server listening') && Date.now() < deadline) await sleep(50);
      expect(out).toContain('Server listening');
      const port = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      expect((await fetch(`http://127.0.0.1:${port}/live`)).status).toBe(200);
      for (let i = 0; i < times; i++) child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('shutting down');
      expect(out).toContain('"msg":"closed"');
      expect(out).not.toContain('second SIGTERM');
    },
    90_000,
  );

  it('refuses to start with invalid config and names the variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PORT: 'not-a-port', DATA_DIR: tempDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(78);
    expect(err).toMatch(/PORT/);
  });
});
