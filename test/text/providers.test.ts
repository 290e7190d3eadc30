import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { DEFAULT_MODELS, type LlmProviderName } from '../../src/text/llm/llm.js';
import { makeApp, tempDir, testConfig } from '../helpers/app.js';
import { FakeLlm, baseUrlFor } from '../helpers/fake-llm.js';

type App = Awaited<ReturnType<typeof makeApp>>;
const docs = tempDir('provider-docs-');
writeFileSync(
  join(docs, 'navy.txt'),
  'The Secretary of the Navy reported that the navy built three new ironclad ships in 1862 at the Boston yard. The ships cost four million dollars.',
);
writeFileSync(join(docs, 'farms.txt'), 'Farmers in Kansas harvested record wheat crops. Prices of corn fell sharply in the autumn.');

const QUESTION = 'How many ironclad ships did the navy build?';
const CITED = 'The navy built three new ironclad ships in 1862 [1].';

const events = (body: string) =>
  body
    .split('\n\n')
    .filter(Boolean)
    .map((block) => ({ event: /^event: (\w+)/m.exec(block)![1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown> }));

describe.each(['gemini', 'openai', 'anthropic'] as LlmProviderName[])("%s's default configuration, end to end", (provider) => {
  const fake = new FakeLlm();
  let app: App;
  const config = () => ({ LLM_PROVIDER: provider, LLM_API_KEY: 'k-1', LLM_BASE_URL: baseUrlFor(fake, provider), DOCS_DIR: docs, RAG_INDEX_ON_START: false });
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
    fake.thoughts = null;
    fake.calls.length = 0;
  });

  it('interprets a sentiment with the default model (llm_powered)', async () => {
    fake.reply = 'The tone is clearly positive: strong results dominate.';
    const body = (await app.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Profit rose 20% and beat expectations.' } })).json();
    expect(body).toMatchObject({ llm_powered: true, contextual_sentiment: fake.reply, llm: { provider, model: DEFAULT_MODELS[provider] } });
    expect(fake.calls[0]!.model).toBe(DEFAULT_MODELS[provider]);
  });

  it('answers /rag/ask with the LLM and numbered citations', async () => {
    fake.reply = CITED;
    const body = (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: QUESTION } })).json();
    expect(body).toMatchObject({ llm_powered: true, answer: CITED, grounding_score: 1 });
    expect(body.context[0]).toMatchObject({ number: 1, source: 'navy.txt' });
    expect(JSON.stringify(fake.calls[0]!.body)).toMatch(/\[1\] \(navy\.txt\)/);
  });

  it('streams /rag/ask/stream token by token in the provider format', async () => {
    fake.reply = CITED;
    const res = await app.inject({ method: 'POST', url: '/rag/ask/stream', payload: { question: QUESTION } });
    const all = events(res.body);
    const tokens = all.filter((e) => e.event === 'token').map((e) => e.data.text as string);
    expect(tokens.length).toBeGreaterThan(5);
    expect(tokens.join('')).toBe(CITED);
    expect(fake.calls[0]!.stream).toBe(true);
    expect(all.at(-1)).toMatchObject({ event: 'final', data: { llm_powered: true, answer: CITED } });
  });

  it('falls back with "truncated" when thinking eats the budget, in the response and in the log', async () => {
    const lines: Record<string, unknown>[] = [];
    const logStream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logged = await buildApp({ config: testConfig(config()), logStream });
    try {
      fake.thoughts = 1_000_000;
      const body = (await logged.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Revenue fell.' } })).json();
      expect(body).toMatchObject({ llm_powered: false, llm: { fallback_reason: 'truncated' } });
      expect(lines.find((l) => l.reason === 'truncated')).toMatchObject({ provider, purpose: 'sentiment', msg: expect.stringMatching(/fallback/) });
    } finally {
      await logged.close();
    }
  });

  it('names LLM_MODEL_NAME when the provider rejects the model', async () => {
    const other = await makeApp({ ...config(), LLM_MODEL_NAME: 'no-such-model' });
    try {
      const body = (await other.inject({ method: 'POST', url: '/analyze/sentiment', payload: { text: 'Revenue fell.' } })).json();
      expect(body.llm).toMatchObject({ fallback_reason: 'model_rejected', detail: expect.stringMatching(/"no-such-model".*LLM_MODEL_NAME/) });
      expect(body.contextual_sentiment.length).toBeGreaterThan(40);
    } finally {
      await other.close();
    }
  });
});
