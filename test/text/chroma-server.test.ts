// The supervised Chroma server: what it inherits from the service, and where it listens.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromaServer } from '../../src/text/rag/chroma-server.js';
import { tempDir } from '../helpers/app.js';

const SECRETS = {
  ADMIN_TOKEN: 'admin-secret-0123456789',
  LLM_API_KEY: 'llm-secret-0123456789',
  DATABASE_URL: 'postgres://user:db-secret-0123456789@db.example/app',
  CATALOG_API_KEY: 'catalog-secret-0123456789',
  HF_TOKEN: 'hf-secret-0123456789',
};

/** The process and its descendants (the guard, then Chroma itself). */
function processTree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fourth field, after the command name in parentheses (which may hold spaces).
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parentOf) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

describe.skipIf(!existsSync('/proc/self/environ'))('the supervised Chroma server', () => {
  const dir = join(tempDir('chroma-env-'), 'chroma');
  const chroma = new ChromaServer(dir, pino({ level: 'silent' }), 30_000, 'test');
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    for (const [k, v] of Object.entries(SECRETS)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    await chroma.start();
  }, 60_000);

  afterAll(async () => {
    await chroma.stop();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it("inherits none of the service's secrets, in the guard or in Chroma", () => {
    const pids = processTree(chroma.pid!);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    for (const pid of pids) {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8');
      for (const secret of Object.values(SECRETS)) expect(env).not.toContain(secret);
      expect(env.split('\0').filter((v) => /^(ADMIN_TOKEN|LLM_|DATABASE_URL|CATALOG_|RATINGS_|HF_TOKEN)/.test(v))).toEqual([]);
    }
  });

  it('listens on loopback only', () => {
    const port = Number(new URL(chroma.url).port);
    const hex = port.toString(16).toUpperCase().padStart(4, '0');
    const listening = ['/proc/net/tcp', '/proc/net/tcp6']
      .filter(existsSync)
      .flatMap((f) => readFileSync(f, 'utf8').split('\n').slice(1))
      .map((l) => l.trim().split(/\s+/))
      // state 0A: LISTEN
      .filter((cols) => cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A')
      .map((cols) => cols[1]!.split(':')[0]);
    expect(listening.length).toBeGreaterThan(0);
    // 127.0.0.1 as /proc writes it (little-endian), or ::1.
    for (const address of listening) expect(['0100007F', '00000000000000000000000001000000']).toContain(address);
  });

  it('keeps its data folder to the service’s own user', () => {
    expect(statSync(dir).mode & 0o077).toBe(0);
  });
});
