// Writes static/openapi.yaml from the route schemas (never edit that file by hand).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { fromRoot } from '../src/infra/paths.js';

export async function generateOpenApiYaml(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const app = await buildApp({ overrides: { DATA_DIR: dataDir }, logger: false });
    const yaml = app.swagger({ yaml: true });
    await app.close();
    return yaml;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = fromRoot('static/openapi.yaml');
  writeFileSync(out, await generateOpenApiYaml());
  console.log(`wrote ${out}`);
}
