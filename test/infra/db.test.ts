import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PGLITE_CONF, migrate, openDb } from '../../src/infra/db.js';
import { tempDir } from '../helpers/app.js';

describe('embedded PGlite database', () => {
  const dir = join(tempDir('pglite-'), 'db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is created in a child process, opened with small memory settings, and migrated', async () => {
    const db = await openDb({ dataDir: dir });
    try {
      expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
      const { rows } = await db.query<{ name: string; setting: string; unit: string }>(
        "SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem') ORDER BY name",
      );
      // 8 MB of shared buffers is 1,024 pages of 8 kB; work_mem is in kB.
      expect(rows).toEqual([
        { name: 'shared_buffers', setting: '1024', unit: '8kB' },
        { name: 'work_mem', setting: '2048', unit: 'kB' },
      ]);
      expect(PGLITE_CONF).toContain('shared_buffers=8MB');
      expect(await migrate(db)).toContain('movies');
      expect(await migrate(db)).toEqual([]);
    } finally {
      await db.close();
    }
    // An existing directory opens again, with its data.
    const again = await openDb({ dataDir: dir });
    try {
      const { rows } = await again.query<{ n: number }>('SELECT count(*)::int AS n FROM movies');
      expect(rows[0]!.n).toBe(0);
    } finally {
      await again.close();
    }
  });
});
