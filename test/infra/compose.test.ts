// compose.yaml (the reference deployment, which cannot run without Docker) agrees with what the multi-replica test
// runs and with the service's configuration schema.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/infra/config.js';
import { fromRoot } from '../../src/infra/paths.js';

interface Service {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(fromRoot('compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const replicas = Object.entries(compose.services).filter(([, s]) => s.build === '.');

describe('compose.yaml', () => {
  it('runs two replicas of this image on one PostgreSQL and one Chroma, with their own data directories', () => {
    expect(replicas).toHaveLength(2);
    for (const [, s] of replicas) {
      expect(s.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
      expect(s.environment?.CHROMA_URL).toBe('http://chroma:8000');
      expect(s.environment?.DATA_DIR).toBeUndefined(); // the image's own, not shared
    }
    expect(compose.services.postgres?.image).toMatch(/^postgres:15/);
    expect(compose.services.chroma?.image).toMatch(/^chromadb\/chroma:1\./);
  });

  it('shares nothing between the replicas but the documents, read-only', () => {
    for (const [, s] of replicas) expect(s.volumes).toEqual([expect.stringMatching(/:\/documents:ro$/)]);
  });

  it('checks readiness on /ready and runs the schedule on exactly one replica', () => {
    for (const [, s] of replicas) expect(s.healthcheck?.test.join(' ')).toContain('/ready');
    const schedulers = replicas.filter(([, s]) => s.environment?.COLLECTION_SCHEDULER !== 'false');
    expect(schedulers).toHaveLength(1);
  });

  it('sets only variables the service knows, with values its configuration accepts', () => {
    const known = new Set(Object.keys(ConfigSchema.shape));
    for (const [name, s] of replicas) {
      const env = Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, v.replace(/^\$\{[A-Z_]+:[-?]([^}]*)\}$/, '$1') || undefined]));
      for (const key of Object.keys(env)) expect(known.has(key), `${name}: ${key}`).toBe(true);
      // A stand-in for the secret the operator must provide.
      const parsed = ConfigSchema.safeParse({ ...env, ADMIN_TOKEN: 'x'.repeat(32) });
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
  });
});
