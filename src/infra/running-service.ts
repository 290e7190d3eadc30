// For the command-line tools: is a service running on this data directory? Then they ask it to do their work
// through its operator routes instead of opening its database or vector store beside it.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, ensureDataDirs } from './config.js';
import { type LockOwner, lockOwner } from './dir-lock.js';

export type ServiceLookup = { kind: 'none' } | { kind: 'running'; url: string; owner: LockOwner } | { kind: 'unreachable'; owner: LockOwner; reason: string };

/** Looks for the service holding DATA_DIR (waiting up to `waitMs` for one that is starting to listen). */
export async function findRunningService(config: Config, waitMs = 30_000): Promise<ServiceLookup> {
  const lock = join(ensureDataDirs(config).dataDir, 'service');
  const deadline = Date.now() + waitMs;
  let owner = lockOwner(`${lock}.lock`);
  while (owner && !owner.url && Date.now() < deadline) {
    await sleep(200);
    owner = lockOwner(`${lock}.lock`);
  }
  if (!owner) return { kind: 'none' };
  if (!owner.url) return { kind: 'unreachable', owner, reason: `it did not start listening within ${Math.round(waitMs / 1000)} s` };
  try {
    const res = await fetch(`${owner.url}/live`, { signal: AbortSignal.timeout(3000) });
    if (res.ok) return { kind: 'running', url: owner.url, owner };
    return { kind: 'unreachable', owner, reason: `${owner.url}/live answered ${res.status}` };
  } catch (err) {
    return { kind: 'unreachable', owner, reason: `${owner.url} does not answer (${(err as Error).message})` };
  }
}

/** What to tell a person when the service holding the directory does not answer. */
export function unreachableMessage(config: Config, found: Extract<ServiceLookup, { kind: 'unreachable' }>): string {
  return (
    `A service (pid ${found.owner.pid}) holds DATA_DIR=${config.DATA_DIR}, but ${found.reason}. ` +
    `If it is stuck, stop it (kill ${found.owner.pid}), then run this command again; meanwhile nothing here was changed.`
  );
}

export interface ServiceResponse<T> {
  status: number;
  body: T;
}

/** Calls an operator route of the running service, with ADMIN_TOKEN when one is configured. */
export async function callService<T>(url: string, config: Config, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ServiceResponse<T>> {
  // Operator POSTs take JSON only (a browser cannot send it cross-site without asking first): an empty object at least.
  const json = method === 'POST' ? (body ?? {}) : body;
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(config.ADMIN_TOKEN ? { authorization: `Bearer ${config.ADMIN_TOKEN}` } : {}),
    },
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed as T };
}
