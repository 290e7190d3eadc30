// A local OpenAI-compatible server (Ollama, the llama.cpp server, vLLM) through LLM_PROVIDER=openai and LLM_BASE_URL,
// end to end: no key, a model name of the server's own, and the ways such servers differ from OpenAI (no usage, other
// finish reasons), against the fake LLM server behaving so.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/infra/config.js';
import { makeApp, tempDir } from '../helpers/app.js';
import { FakeLlm } from '../helpers/fake-llm.js';

type App = Awaited<ReturnType<typeof makeApp>>;
const docs = tempDir('local-llm-docs-');
writeFileSync(
  join(docs, 'navy.txt'),
  'The Secretary of the Navy reported that the navy built three new ironclad ships in 1862 at the Boston yard. The ships cost four million dollars.',
);
writeFileSync(join(docs, 'farms.txt'), 'Farmers in Kansas harvested record wheat crops. Prices of corn fell sharply in the autumn.');

const QUESTION = 'How many ironclad ships did the navy build?';
const CITED = 'The navy built three new ironclad ships in 1862 [1].';
const MODEL = 'llama3.2';

const events = (body: string) =>
  body
    .split('\n\n')
    .filter(Boolean)
    .map((block) => ({ event: /^event: (\w+)/m.exec(block)![1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown> }));

describe('a local OpenAI-compatible server (LLM_PROVIDER=openai, LLM_BASE_URL, no LLM_API_KEY)', () => {
  const fake = new FakeLlm();
  let app: App;
  const config = (): Partial<Config> => ({
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: `${fake.url}/v1`,
    LLM_MODEL_NAME: MODEL,
    DOCS_DIR: docs,
    RAG_INDEX_ON_START: false,
  });
  beforeAll(async () => {
    await fake.start();
    app = await makeApp(config());
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(async () => {
    await app.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.mode = 'ok';
    fake.openaiQuirks = { usage: true, stop: 'stop' };
    fake.requiredKey = null;
    fake.calls.length = 0;
  });

  it.each([
    ['usage and finish_reason "stop", as OpenAI', { usage: true, stop: 'stop' }],
    ['no usage, finish_reason null', { usage: false, stop: null }],
    ['no usage, finish_reason "eos_token"', { usage: false, stop: 'eos_token' }],
  ])('%s: /analyze/sentiment, /rag/ask and /rag/ask/stream are written by the local model', async (_name, quirks) => {
    fake.openaiQuirks = quirks;
    fake.reply = 'The tone is clearly positive: strong results dominate.';
    const sentiment = (await app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Profit rose 20% and beat expectations.' } })).json();
    expect(sentiment).toMatchObject({ llm_powered: true, contextual_sentiment: fake.reply, llm: { provider: 'openai', model: MODEL } });

    fake.reply = CITED;
    const ask = (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: QUESTION } })).json();
    expect(ask).toMatchObject({ llm_powered: true, answer: CITED });

    const stream = events((await app.inject({ method: 'POST', url: '/rag/ask/stream', payload: { question: QUESTION } })).body);
    expect(stream.at(-1)).toMatchObject({ event: 'final', data: { llm_powered: true, answer: CITED } });

    expect(fake.calls.map((c) => [c.path, c.model, c.stream])).toEqual([
      ['/v1/chat/completions', MODEL, false],
      ['/v1/chat/completions', MODEL, false],
      ['/v1/chat/completions', MODEL, true],
    ]);
    for (const call of fake.calls) {
      // No key to send, and no OpenAI-only reasoning option for a model of the server's own.
      expect(call.headers.authorization).toBeUndefined();
      expect(call.body.reasoning_effort).toBeUndefined();
    }
  });

  it('still recognises an answer cut by the output limit (finish_reason "length") without usage', async () => {
    fake.openaiQuirks = { usage: false, stop: null };
    fake.mode = 'truncated';
    const body = (await app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Revenue fell.' } })).json();
    expect(body).toMatchObject({ llm_powered: false, llm: { fallback_reason: 'truncated' } });
  });

  it('/health reports the local model as configured', async () => {
    const health = (await app.inject({ url: '/health' })).json();
    expect(JSON.stringify(health)).toContain('"mode":"llm"');
  });

  it('a server started with an API key gets LLM_API_KEY as a bearer token, and refuses calls without it', async () => {
    fake.requiredKey = 'local-secret';
    fake.reply = 'The tone is negative: revenue fell.';
    const refused = (await app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Revenue fell.' } })).json();
    expect(refused).toMatchObject({ llm_powered: false, llm: { fallback_reason: 'error' } });
    const keyed = await makeApp({ ...config(), LLM_API_KEY: 'local-secret' });
    try {
      const body = (await keyed.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Revenue fell.' } })).json();
      expect(body).toMatchObject({ llm_powered: true, contextual_sentiment: fake.reply });
      expect(fake.calls.at(-1)!.headers.authorization).toBe('Bearer local-secret');
    } finally {
      await keyed.close();
    }
  });
});
