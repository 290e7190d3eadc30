// The data sets that training and evaluation read: listed in data/manifest.json, fetched by `npm run data:fetch` into
// data/datasets/<name>/<file> (git ignores them). Scripts ask for a file here; a missing one says what to run.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../src/infra/paths.js';

export interface ManifestFile {
  file: string;
  bytes: number;
  sha256: string;
  /** Where these exact bytes can be downloaded; null when only a local mirror has them. */
  url: string | null;
}

export interface ManifestDataset {
  name: string;
  title: string;
  source: string;
  licence: string;
  used_by: string[];
  note?: string;
  files: ManifestFile[];
}

export interface Manifest {
  description: string;
  directory: string;
  datasets: ManifestDataset[];
}

export const MANIFEST_PATH = join(PROJECT_ROOT, 'data', 'manifest.json');

export function readManifest(): Manifest {
  return JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as Manifest;
}

/** Where fetched data sets live (DATASETS_DIR overrides, for a mirror kept elsewhere). */
export function datasetsDir(): string {
  return process.env.DATASETS_DIR ? process.env.DATASETS_DIR : join(PROJECT_ROOT, readManifest().directory);
}

export const FETCH_HINT = 'npm run data:fetch -- --from <a folder holding the data sets> (data/manifest.json says where each comes from)';

/** The path of one data set's file (or the data set's folder without `file`); throws saying what to run when missing. */
export function datasetPath(name: string, file?: string): string {
  const path = file ? join(datasetsDir(), name, file) : join(datasetsDir(), name);
  if (!existsSync(path)) throw new Error(`${path} is missing: fetch the data sets first with ${FETCH_HINT}`);
  return path;
}

/** A data file given on the command line (relative to the project root): its absolute path, or an error saying how to get it. */
export function requireDataFile(path: string): string {
  const absolute = resolve(PROJECT_ROOT, path);
  if (!existsSync(absolute)) throw new Error(`${path} is missing: fetch the data sets first with ${FETCH_HINT}`);
  return absolute;
}
