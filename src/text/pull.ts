// Downloads the configured Hub models (or a documented preset) into the model cache, each loaded once through the
// service's own loaders so that what was pulled is known to load; local directories are left as they are.
import type { ProgressCallback } from '@huggingface/transformers';
import type { Config } from '../infra/config.js';
import { type HubSettings, resolveModel } from './hub.js';
import { HUB_PRESET, loadClassifier, loadCrossEncoder, loadEmbedder, loadQaReader } from './models.js';

export type ModelRole = keyof typeof HUB_PRESET;

/** The configuration variable each role is set by. */
export const ROLE_VARIABLES: Record<ModelRole, keyof Config> = {
  sentiment: 'SENTIMENT_MODEL',
  emotion: 'EMOTION_MODEL',
  embedder: 'EMBEDDING_MODEL',
  reranker: 'RERANK_MODEL',
  reader: 'READER_MODEL',
};

export const PRESETS = { hub: HUB_PRESET } as const;
export type PresetName = keyof typeof PRESETS;

/** What to pull: the preset's models, or the configured ones (the reader only when READER_MODEL is set). */
export function pullTargets(config: Config, preset?: PresetName): { role: ModelRole; id: string }[] {
  const models: Partial<Record<ModelRole, string | undefined>> = preset
    ? PRESETS[preset]
    : Object.fromEntries(Object.entries(ROLE_VARIABLES).map(([role, key]) => [role, config[key] as string | undefined]));
  return (Object.keys(ROLE_VARIABLES) as ModelRole[]).flatMap((role) => (models[role] ? [{ role, id: models[role] }] : []));
}

export interface PullResult {
  role: ModelRole;
  id: string;
  status: 'pulled' | 'local' | 'failed';
  ms: number;
  error?: string;
}

async function loadAndRelease(role: ModelRole, id: string, opts: { hub: HubSettings; onProgress?: ProgressCallback }) {
  if (role === 'sentiment' || role === 'emotion') return (await loadClassifier(id, opts)).dispose();
  if (role === 'embedder') return (await loadEmbedder(id, opts)).dispose();
  if (role === 'reranker') return (await loadCrossEncoder(id, opts)).dispose();
  return (await loadQaReader(id, opts)).dispose();
}

/** One model after the other (a 2-core machine gains nothing from parallel downloads of this size). */
export async function pullModels(
  targets: { role: ModelRole; id: string }[],
  hub: HubSettings,
  onProgress?: (role: ModelRole, info: Parameters<ProgressCallback>[0]) => void,
): Promise<PullResult[]> {
  const results: PullResult[] = [];
  for (const { role, id } of targets) {
    const t0 = performance.now();
    if (resolveModel(id).local) {
      results.push({ role, id, status: 'local', ms: 0 });
      continue;
    }
    try {
      await loadAndRelease(role, id, { hub, ...(onProgress ? { onProgress: (info) => onProgress(role, info) } : {}) });
      results.push({ role, id, status: 'pulled', ms: Math.round(performance.now() - t0) });
    } catch (err) {
      results.push({ role, id, status: 'failed', ms: Math.round(performance.now() - t0), error: (err as Error).message });
    }
  }
  return results;
}
