// Two replicas of the service against one PostgreSQL and one Chroma server, as compose.yaml runs them: shared index
// generations, one index run and one migration at a time, images and request ids that work across replicas, /ready.
import { randomBytes } from 'node:crypto';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { ChromaServer } from '../../src/text/rag/chroma-server.js';
import { tempDir } from '../helpers/app.js';
import { type ServiceProcess, startService } from '../helpers/processes.js';

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('multi-replica tests skipped: they need PostgreSQL (set DATABASE_URL, as .ci/run does when one answers)');

const SYNC_MS = 500;
// How long a change may take to show on the other replica: the interval, plus a reload and a search that take a few
// hundred milliseconds, or seconds on a loaded machine. Without the sync it would never show.
const SYNC_DEADLINE_MS = SYNC_MS + 8000;

async function json<T>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

// Operator POSTs are JSON (an empty object at least): a body a browser could send cross-site is refused.
const post = (url: string, body: unknown = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe.skipIf(!DATABASE_URL)('two replicas sharing PostgreSQL and Chroma', () => {
  const schema = `replicas_${randomBytes(4).toString('hex')}`;
  const chromaDir = tempDir('replicas-chroma-');
  const docsDir = tempDir('replicas-docs-');
  const dataDirs = [tempDir('replica-a-'), tempDir('replica-b-')];
  const chroma = new ChromaServer(join(chromaDir, 'chroma'), pino({ level: 'silent' }), 30_000, 'test');
  let a: ServiceProcess;
  let b: ServiceProcess;
  let admin: pg.Client;
  /** What /ready answered before it first said 200, per replica. */
  const readiness: number[][] = [[], []];

  beforeAll(async () => {
    for (const f of ['1941_franklin_d_roosevelt_d.txt', '1964_lyndon_b_johnson_d.txt']) cpSync(fromRoot(`docs/sample-collection/${f}`), join(docsDir, f));
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await chroma.start();
    const url = new URL(DATABASE_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const env = (dataDir: string, extra: Record<string, string> = {}) => ({
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      CHROMA_URL: chroma.url,
      DOCS_DIR: docsDir,
      RAG_COLLECTION: schema,
      RAG_SYNC_INTERVAL_MS: String(SYNC_MS),
      COLLECTION_CRON: '0 3 * * *',
      ...extra,
    });
    // Both start together on a new database and an empty collection.
    const started = await Promise.allSettled([startService(env(dataDirs[0]!)), startService(env(dataDirs[1]!, { COLLECTION_SCHEDULER: 'false' }))]);
    // Keep whichever started, so that afterAll stops it even if the other failed.
    const value = (r: PromiseSettledResult<ServiceProcess>) => (r.status === 'fulfilled' ? r.value : (undefined as unknown as ServiceProcess));
    a = value(started[0]);
    b = value(started[1]);
    for (const r of started) if (r.status === 'rejected') throw r.reason;
    await Promise.all(
      [a, b].map(async (s, i) => {
        for (;;) {
          const status = (await fetch(`${s.url}/ready`)).status;
          readiness[i]!.push(status);
          if (status === 200) return;
          await sleep(50);
        }
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    await chroma.stop();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
    for (const d of [chromaDir, docsDir, ...dataDirs]) rmSync(d, { recursive: true, force: true });
  });

  it('/ready answers 503 until a replica can serve every domain, then 200', () => {
    for (const seen of readiness) {
      expect(seen[0]).toBe(503);
      expect(seen.at(-1)).toBe(200);
    }
  });

  it('applies the migrations once when both start on a new database, and neither fails', async () => {
    const { rows } = await admin.query<{ version: string }>(`SELECT version FROM ${schema}.schemaversion WHERE version > 0 ORDER BY version`);
    expect(rows.map((r) => Number(r.version))).toEqual([1, 2]);
    const applied = [a, b].filter((s) => s.output().includes('"msg":"migrations applied"'));
    expect(applied).toHaveLength(1);
    for (const s of [a, b]) expect((await json<{ status: string }>(fetch(`${s.url}/health`))).status).toBe('healthy');
  });

  it('indexes an empty collection exactly once when both start on it', async () => {
    const runs = [a, b].map((s) => (s.output().match(/"msg":"documents indexed"/g) ?? []).length);
    expect(runs.reduce((x, y) => x + y, 0)).toBe(1);
    for (const s of [a, b]) expect(await json<{ documents: number }>(fetch(`${s.url}/rag/stats`))).toMatchObject({ documents: 2 });
  });

  it('finds on B, within the sync interval, a document added and indexed through A', async () => {
    writeFileSync(join(docsDir, 'zz_added.txt'), 'The lighthouse keeper logged forty-two lanterns and a brass telescope.');
    expect(await json(post(`${a.url}/rag/index`))).toMatchObject({ files_added: 1 });
    const indexedAt = Date.now();
    let foundAfter = -1;
    while (Date.now() - indexedAt < SYNC_DEADLINE_MS) {
      const { results } = await json<{ results: { source: string }[] }>(
        post(`${b.url}/rag/search`, { query: 'lighthouse keeper lanterns telescope', top_k: 3 }),
      );
      if (results.some((r) => r.source === 'zz_added.txt')) {
        foundAfter = Date.now() - indexedAt;
        break;
      }
      await sleep(50);
    }
    // Found before the deadline: the sync interval, plus the reload itself.
    expect(foundAfter).toBeGreaterThanOrEqual(0);
  });

  it('no longer returns on A a document deleted and re-indexed through B', async () => {
    rmSync(join(docsDir, 'zz_added.txt'));
    expect(await json(post(`${b.url}/rag/index`))).toMatchObject({ files_removed: 1 });
    const indexedAt = Date.now();
    let goneAfter = -1;
    while (Date.now() - indexedAt < SYNC_DEADLINE_MS) {
      const { results } = await json<{ results: { source: string }[] }>(
        post(`${a.url}/rag/search`, { query: 'lighthouse keeper lanterns telescope', top_k: 10 }),
      );
      if (!results.some((r) => r.source === 'zz_added.txt')) {
        goneAfter = Date.now() - indexedAt;
        break;
      }
      await sleep(50);
    }
    expect(goneAfter).toBeGreaterThanOrEqual(0);
    expect(await json(fetch(`${a.url}/rag/stats`))).toMatchObject({ documents: 2 });
  });

  it('lets one index run at a time across replicas: the other gets 409', async () => {
    const [ra, rb] = await Promise.all([post(`${a.url}/rag/index`, { full: true }), post(`${b.url}/rag/index`, { full: true })]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
  });

  it('serves on B an explanation image drawn on A', async () => {
    const passenger = { pclass: 1, sex: 'female', age: 29, sibsp: 0, parch: 0, embarked: 'C', plot_type: 'bar' };
    const explained = await json<{ explanation_image_url: string }>(post(`${a.url}/api/explain`, passenger));
    const image = await fetch(`${b.url}${explained.explanation_image_url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect((await fetch(`${b.url}/static/images/shap_explanation_20200101_000000_abcdef.png`)).status).toBe(404);
  });

  it('gives every request a unique id across replicas, and keeps a valid incoming one', async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, async (_, i) => (await fetch(`${(i % 2 ? a : b).url}/live`)).headers.get('x-request-id')));
    expect(new Set(ids).size).toBe(40);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await fetch(`${a.url}/live`, { headers: { 'x-request-id': 'lb-7f3a.42' } })).headers.get('x-request-id')).toBe('lb-7f3a.42');
    for (const bad of ['two words', 'x'.repeat(200), '{"json":1}']) {
      const replaced = (await fetch(`${b.url}/live`, { headers: { 'x-request-id': bad } })).headers.get('x-request-id');
      expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    }
    // The request's log line reaches the pipe after its response: wait for it (a bound, not a speed measure).
    await vi.waitFor(() => expect(a.output()).toContain('"reqId":"lb-7f3a.42"'), { timeout: 10_000, interval: 50 });
  });

  it('runs the collection schedule only where COLLECTION_SCHEDULER is on', async () => {
    const status = await Promise.all([a, b].map((s) => json<{ schedule: { in_this_process: boolean } }>(fetch(`${s.url}/api/collection/status`))));
    expect(status.map((s) => s.schedule.in_this_process)).toEqual([true, false]);
  });
});
