// Worker-thread task: the sentiment and emotion scores of a long text, chunk by chunk. Tokenising tens of 510-token
// chunks holds a thread for a hundred milliseconds and more; in a worker, predictions and every other request go on.
// Each worker loads the two classifiers once, on its first long text.
import type { HubSettings } from '../hub.js';
import { type ChunkScores, type LoadedModels, defaultLoader, scoreChunks } from './scoring.js';

export interface ScoreArgs {
  text: string;
  sentimentModel: string;
  emotionModel: string;
  hub: HubSettings;
}

let loaded: { key: string; models: Promise<LoadedModels> } | null = null;

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
  return scoreChunks(await loaded.models, args.text);
}
