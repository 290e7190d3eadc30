// Where transformers.js finds a model: a local directory as it is, a Hub id through HF_ENDPOINT with its files kept
// in MODEL_CACHE_DIR. Loads that need different Hub settings never overlap, since transformers.js keeps them global.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { env } from '@huggingface/transformers';
import type { Config } from '../infra/config.js';
import { fromRoot, shownPath } from '../infra/paths.js';

export interface HubSettings {
  /** The Hub's base URL (HF_ENDPOINT), e.g. https://huggingface.co or a mirror. */
  endpoint: string;
  /** Absolute directory where downloaded files are kept (MODEL_CACHE_DIR). */
  cacheDir: string;
}

export const PUBLIC_HUB = 'https://huggingface.co';

/** The settings for the configuration: MODEL_CACHE_DIR, or DATA_DIR/models when it is unset. */
export function hubSettings(config: Pick<Config, 'HF_ENDPOINT' | 'MODEL_CACHE_DIR' | 'DATA_DIR'>): HubSettings {
  return { endpoint: config.HF_ENDPOINT, cacheDir: fromRoot(config.MODEL_CACHE_DIR || join(config.DATA_DIR, 'models')) };
}

/** Scripts that load only the shipped models never reach the Hub; this is what they get if they name a Hub id. */
export const DEFAULT_HUB: HubSettings = { endpoint: PUBLIC_HUB, cacheDir: fromRoot('data/models') };

/**
 * A path that exists loads from disk by its absolute path (never a Hub id: "models/text/sentiment" would otherwise
 * read as the Hub repository "models/text"); anything else is a Hub id such as `Xenova/finbert`.
 */
export function resolveModel(idOrPath: string): { id: string; local: boolean } {
  const path = fromRoot(idOrPath);
  return existsSync(path) ? { id: path, local: true } : { id: idOrPath, local: false };
}

/** A model as a page names it: a Hub id as it is, a local directory as shownPath shows it. */
export const shownModel = (idOrPath: string): string => (resolveModel(idOrPath).local ? shownPath(idOrPath) : idOrPath);

/** The per-call options transformers.js takes; the rest (host, default cache) is global and set by withHub. */
export function pretrainedOptions(local: boolean, hub: HubSettings) {
  return { local_files_only: local, cache_dir: hub.cacheDir, revision: 'main' };
}

// Loads under the same settings run together; a load that needs other settings waits until those have finished.
let active: { key: string; count: number } | null = null;
const waiting: (() => void)[] = [];

async function enter(hub: HubSettings): Promise<void> {
  const key = `${hub.endpoint}\n${hub.cacheDir}`;
  while (active && active.key !== key) await new Promise<void>((resolve) => waiting.push(resolve));
  if (!active) {
    active = { key, count: 0 };
    env.allowLocalModels = true;
    env.allowRemoteModels = true;
    env.remoteHost = hub.endpoint.endsWith('/') ? hub.endpoint : `${hub.endpoint}/`;
    // pipeline() looks up the model's file list without the per-call cache_dir, so the global one must agree.
    env.cacheDir = hub.cacheDir;
  }
  active.count++;
}

function leave(): void {
  if (active && --active.count === 0) {
    active = null;
    for (const wake of waiting.splice(0)) wake();
  }
}

/** Runs a Hub load with these settings in force for its whole duration. */
export async function withHub<T>(hub: HubSettings, load: () => Promise<T>): Promise<T> {
  await enter(hub);
  try {
    return await load();
  } finally {
    leave();
  }
}

/** A model that could not be loaded, with the id as configured and a reason a person can act on. */
export class ModelLoadError extends Error {
  override name = 'ModelLoadError';
  constructor(
    readonly model: string,
    readonly reason: string,
  ) {
    super(`the model "${model}" could not be loaded: ${reason}`);
  }
}

/** Turns what transformers.js throws into a reason that says where the model was looked for. */
export function loadFailure(model: string, local: boolean, hub: HubSettings, err: unknown): ModelLoadError {
  const e = err as Error & { cause?: { message?: string; code?: string } };
  const cause = e.cause?.message ?? e.cause?.code;
  if (local) return new ModelLoadError(model, e.message);
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|socket/i.test(`${e.message} ${cause ?? ''}`)) {
    return new ModelLoadError(
      model,
      `the Hub at ${hub.endpoint} cannot be reached (${cause ?? e.message}) and the model is not complete in the cache ${hub.cacheDir}`,
    );
  }
  if (/Unauthorized access|Could not locate file/.test(e.message)) {
    return new ModelLoadError(model, `${e.message} The Hub at ${hub.endpoint} has no such model or file (a private or gated model needs HF_TOKEN).`);
  }
  return new ModelLoadError(model, cause ? `${e.message}: ${cause}` : e.message);
}
