// Locates the project root (the folder holding package.json) from source or compiled code alike.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${start}`);
    dir = parent;
  }
}

export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/**
 * Resolves a path from config: absolute paths stay, "~" or "~/..." is the home folder (a .env file or a quoted value
 * is not expanded by a shell), and other relative ones are taken from the project root.
 */
export function fromRoot(p: string): string {
  if (p === '~' || p.startsWith('~/')) return join(homedir(), p.slice(1));
  return resolve(PROJECT_ROOT, p);
}

/**
 * A configured path as a page shows it to anyone: relative to the project when inside it ("docs/sample-collection"),
 * else only its last part, so that a page never tells visitors where the server keeps its files.
 */
export function shownPath(p: string): string {
  const absolute = fromRoot(p);
  const inside = relative(PROJECT_ROOT, absolute);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : basename(absolute);
}

/** A request's path as an answer or the log repeats it: without its query, cut at `max` characters. */
export function requestPath(url: string, max: number): string {
  const path = url.split('?')[0]!;
  return path.length > max ? `${path.slice(0, max)}…` : path;
}

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};

export const SERVICE_NAME = pkg.name;
export const SERVICE_VERSION = pkg.version;
