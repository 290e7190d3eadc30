// Worker-thread task: the sentiment and emotion scores of a long text, chunk by chunk. Tokenising tens of 510-token
// chunks holds a thread for a hundred milliseconds and more; in a worker, predictions and every other request go on.
// A worker loads the two classifiers on its first long text, and lets them go after a minute without one: the event
// loop's thread keeps its own copy for short texts, and this one is only worth its memory while long texts come.
import type { HubSettings } from '../hub.js';
import { type ChunkScores, type LoadedModels, defaultLoader, scoreChunks } from './scoring.js';

export interface ScoreArgs {
  text: string;
  sentimentModel: string;
  emotionModel: string;
  hub: HubSettings;
}

/** How long the classifiers stay loaded after the last long text. */
export const UNLOAD_AFTER_MS = 60_000;

let loaded: { key: string; models: Promise<LoadedModels> } | null = null;
let running = 0;
let unloadTimer: NodeJS.Timeout | null = null;

async function unload(): Promise<void> {
  if (!loaded || running) return;
  const { models } = loaded;
  loaded = null;
  const m = await models.catch(() => null);
  await Promise.all([m?.sentiment.dispose(), m?.emotion.dispose()]);
}

export async function score(args: ScoreArgs): Promise<ChunkScores> {
  const key = JSON.stringify([args.sentimentModel, args.emotionModel, args.hub]);
  if (loaded?.key !== key) {
    const models = defaultLoader(args.sentimentModel, args.emotionModel, { hub: args.hub })();
    // A failed load is not kept: the next long text tries again.
    models.catch(() => {
      if (loaded?.models === models) loaded = null;
    });
    loaded = { key, models };
  }
  running++;
  try {
    return await scoreChunks(await loaded.models, args.text);
  } finally {
    running--;
    if (unloadTimer) clearTimeout(unloadTimer);
    unloadTimer = setTimeout(() => void unload(), UNLOAD_AFTER_MS);
    unloadTimer.unref();
  }
}

/** Whether this worker holds the classifiers now (for tests). */
export function classifiersLoaded(): boolean {
  return loaded !== null;
}
