import { afterEach, describe, expect, it, vi } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { DEFAULT_HUB } from '../../src/text/hub.js';
import { DEFAULT_TEXT_MODELS } from '../../src/text/model-dirs.js';
import { UNLOAD_AFTER_MS, classifiersLoaded, score } from '../../src/text/sentiment/sentiment-task.js';

const args = (text: string) => ({
  text,
  sentimentModel: fromRoot(DEFAULT_TEXT_MODELS.sentiment),
  emotionModel: fromRoot(DEFAULT_TEXT_MODELS.emotion),
  hub: DEFAULT_HUB,
});
const longText = 'Revenue rose sharply and the company raised its outlook for the year. '.repeat(400);

afterEach(() => {
  vi.useRealTimers();
});

describe('long-text sentiment task (worker side)', () => {
  it('lets its classifiers go a minute after the last long text, and loads them again for the next one', async () => {
    const first = await score(args(longText));
    expect(first.chunks).toBeGreaterThan(1);
    expect(classifiersLoaded()).toBe(true);
    // Only timers are faked: ONNX Runtime resolves its runs through setImmediate.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const again = await score(args(longText));
    await vi.advanceTimersByTimeAsync(UNLOAD_AFTER_MS - 1000);
    expect(classifiersLoaded()).toBe(true);
    await vi.advanceTimersByTimeAsync(2000);
    await vi.waitFor(() => expect(classifiersLoaded()).toBe(false));
    vi.useRealTimers();
    const reloaded = await score(args(longText));
    expect(reloaded.sentiment).toEqual(again.sentiment);
    expect(reloaded.sentiment).toEqual(first.sentiment);
  });
});
