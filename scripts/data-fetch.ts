// npm run data:fetch [-- --from DIR] [--only name,name]
// Puts every data set of data/manifest.json under data/datasets/<name>/<file>: a file already there with the right
// SHA-256 is kept; otherwise it is copied from DIR/<name>/<file> (a local mirror) or downloaded from its url, and its
// SHA-256 checked before it is kept. Exits 1 naming each file it could not get right.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { datasetsDir, readManifest, type ManifestFile } from './lib/datasets.js';

const { values } = parseArgs({ options: { from: { type: 'string' }, only: { type: 'string' } } });
const from = values.from ? resolve(values.from) : null;
const only = values.only ? new Set(values.only.split(',')) : null;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function obtain(name: string, f: ManifestFile): Promise<{ bytes: Uint8Array; how: string } | { error: string }> {
  const mirrored = from ? join(from, name, f.file) : null;
  if (mirrored && existsSync(mirrored)) return { bytes: readFileSync(mirrored), how: `copied from ${mirrored}` };
  if (f.url) {
    try {
      const res = await fetch(f.url, { signal: AbortSignal.timeout(120_000) });
      if (!res.ok) return { error: `${f.url} answered ${res.status}` };
      return { bytes: new Uint8Array(await res.arrayBuffer()), how: `downloaded from ${f.url}` };
    } catch (err) {
      return { error: `${f.url} could not be downloaded (${(err as Error).message})` };
    }
  }
  return { error: from ? `not in ${join(from, name)}, and it has no public download` : 'it has no public download: give a local mirror with --from DIR' };
}

const manifest = readManifest();
const root = datasetsDir();
const failures: string[] = [];
let kept = 0;
let fetched = 0;
for (const set of manifest.datasets) {
  if (only && !only.has(set.name)) continue;
  mkdirSync(join(root, set.name), { recursive: true });
  for (const f of set.files) {
    const target = join(root, set.name, f.file);
    const label = `${set.name}/${f.file}`;
    if (existsSync(target) && sha256(readFileSync(target)) === f.sha256) {
      kept++;
      console.log(`ok       ${label}`);
      continue;
    }
    const got = await obtain(set.name, f);
    if ('error' in got) {
      failures.push(`${label}: ${got.error}${set.note ? ` (${set.note})` : ''}; source: ${set.source}`);
      console.log(`MISSING  ${label}`);
      continue;
    }
    const digest = sha256(got.bytes);
    if (digest !== f.sha256) {
      failures.push(`${label}: ${got.how}, but its SHA-256 is ${digest}, not ${f.sha256}`);
      console.log(`MISMATCH ${label}`);
      continue;
    }
    writeFileSync(`${target}.part`, got.bytes);
    renameSync(`${target}.part`, target);
    fetched++;
    console.log(`fetched  ${label} (${(f.bytes / 1024).toFixed(0)} KB, ${got.how})`);
  }
}
console.log(`${kept} files already in place, ${fetched} fetched, ${failures.length} missing or wrong, under ${root}`);
if (failures.length) {
  for (const line of failures) console.error(`- ${line}`);
  process.exit(1);
}
