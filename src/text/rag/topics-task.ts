// Worker-thread task: topics of a set of chunks (k-means with a silhouette over every pair: quadratic in the chunks).
import type { ChunkRecord } from './store.js';
import { topics } from './topics.js';

export function cluster(args: { records: ChunkRecord[]; k?: number }): ReturnType<typeof topics> {
  return topics(args.records, args.k);
}
