import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS, Llm, type LlmConfig, type LlmProviderName } from '../../src/text/llm/llm.js';
import { FakeLlm, baseUrlFor } from '../helpers/fake-llm.js';

const fake = new FakeLlm();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => {
  fake.mode = 'ok';
  fake.thoughts = null;
  fake.calls.length = 0;
});

const llmFor = (provider: LlmProviderName, extra: Partial<LlmConfig> = {}) =>
  new Llm({ provider, apiKey: 'test-key-123', baseUrl: baseUrlFor(fake, provider), maxOutputTokens: 200, timeoutMs: 1500, ...extra });
const body = () => fake.calls.at(-1)!.body as Record<string, unknown> & { generationConfig?: Record<string, unknown> };

describe.each(['gemini', 'openai', 'anthropic'] as LlmProviderName[])('LLM layer with the real %s client and its default model', (provider) => {
  it('answers, sending the key, the prompt and the output budget in the wire format', async () => {
    const llm = llmFor(provider);
    expect(llm.model).toBe(DEFAULT_MODELS[provider]);
    const res = await llm.generate('Interpret this text.', { system: 'Be brief.' });
    expect(res).toEqual({ ok: true, text: fake.reply, provider, model: llm.model });
    const call = fake.calls[0]!;
    expect(call).toMatchObject({ provider, model: DEFAULT_MODELS[provider], stream: false });
    expect(JSON.stringify(call.body)).toContain('Interpret this text.');
    const key = provider === 'gemini' ? call.headers['x-goog-api-key'] : provider === 'anthropic' ? call.headers['x-api-key'] : call.headers.authorization;
    expect(String(key)).toContain('test-key-123');
  });

  it.each([
    ['500', 'error'],
    ['429', 'error'],
    ['blocked', 'blocked'],
    ['truncated', 'truncated'],
    ['timeout', 'timeout'],
  ] as const)('reports %s as %s, with one attempt only', async (mode, reason) => {
    fake.mode = mode;
    const res = await llmFor(provider).generate('Interpret this text.');
    expect(res).toMatchObject({ ok: false, reason });
    expect(fake.calls.length).toBe(1);
  });

  it('streams the answer piece by piece, and reports a cut stream as truncated', async () => {
    const tokens: string[] = [];
    const res = await llmFor(provider).stream('Say something.', (t) => {
      tokens.push(t);
    });
    expect(res).toMatchObject({ ok: true, text: fake.reply });
    expect(fake.calls[0]!.stream).toBe(true);
    expect(tokens.length).toBeGreaterThan(5);
    expect(tokens.join('')).toBe(fake.reply);
    fake.mode = 'truncated';
    expect(await llmFor(provider).stream('Say something.', () => undefined)).toMatchObject({ ok: false, reason: 'truncated' });
    fake.mode = '500';
    expect(await llmFor(provider).stream('Say something.', () => undefined)).toMatchObject({ ok: false, reason: 'error' });
  });

  it('falls back with "truncated" when thinking leaves no room for the answer, plain or streamed', async () => {
    fake.thoughts = 100_000;
    for (const res of [await llmFor(provider).generate('x'), await llmFor(provider).stream('x', () => undefined)]) {
      expect(res).toMatchObject({ ok: false, reason: 'truncated' });
      if (!res.ok && provider !== 'anthropic') expect(res.detail).toMatch(/no answer was left by the output token limit \(\d+, \d+ of them spent thinking\)/);
    }
  });

  it('names LLM_MODEL_NAME when the provider does not know the model', async () => {
    const res = await llmFor(provider, { model: 'no-such-model' }).generate('x');
    expect(res).toMatchObject({ ok: false, reason: 'model_rejected' });
    if (!res.ok) expect(res.detail).toMatch(/rejected the model "no-such-model" \(HTTP 404: .+\): set LLM_MODEL_NAME/);
  });

  it('logs a fallback with its reason, never the prompt', async () => {
    const lines: object[] = [];
    fake.mode = 'truncated';
    await llmFor(provider, { log: { warn: (obj) => lines.push(obj) } }).generate('SECRET USER TEXT', { purpose: 'sentiment' });
    expect(lines).toEqual([expect.objectContaining({ provider, reason: 'truncated', purpose: 'sentiment' })]);
    expect(JSON.stringify(lines)).not.toContain('SECRET');
  });
});

describe('output budgets and thinking on the wire', () => {
  it('uses the purpose budget, else LLM_MAX_OUTPUT_TOKENS, plus the thinking allowance', async () => {
    const llm = llmFor('gemini', { model: 'gemini-2.5-flash', maxOutputTokens: 700, budgets: { sentiment: 300 } });
    await llm.generate('x', { purpose: 'sentiment' });
    expect(body().generationConfig).toMatchObject({ maxOutputTokens: 300, thinkingConfig: { thinkingBudget: 0 } });
    await llm.generate('x', { purpose: 'rewrite' });
    expect(body().generationConfig).toMatchObject({ maxOutputTokens: 700 });
    const thinking = llmFor('gemini', { model: 'gemini-2.5-flash', maxOutputTokens: 300, thinking: 'high' });
    expect(await thinking.generate('x')).toMatchObject({ ok: true });
    expect(body().generationConfig).toMatchObject({ maxOutputTokens: 300 + 24576, thinkingConfig: { thinkingBudget: 24576 } });
  });

  it.each([
    ['gemini', 'gemini-2.5-flash', { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }],
    ['gemini', 'gemini-2.5-flash-lite', { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }],
    ['gemini', 'gemini-2.5-pro', { generationConfig: { thinkingConfig: { thinkingBudget: 128 } } }],
    ['gemini', 'gemini-3-pro-preview', { generationConfig: { thinkingConfig: { thinkingLevel: 'low' } } }],
    ['gemini', 'gemini-3.5-flash-lite', { generationConfig: { thinkingConfig: { thinkingLevel: 'minimal' } } }],
    ['openai', 'gpt-6-luna', { reasoning_effort: 'none', max_completion_tokens: 200 }],
    ['openai', 'gpt-5', { reasoning_effort: 'minimal' }],
    ['openai', 'gpt-5.4-mini', { reasoning_effort: 'none' }],
    ['openai', 'o3', { reasoning_effort: 'low' }],
    ['openai', 'gpt-6-astra', { reasoning_effort: 'low' }],
    ['openai', 'gpt-4o-mini', { max_tokens: 200 }],
    ['anthropic', 'claude-haiku-5-5', { max_tokens: 200 }],
    ['anthropic', 'claude-opus-5-5', { output_config: { effort: 'low' } }],
  ] as const)('LLM_THINKING=off on %s %s sends %j, which the API takes, and the answer is not starved at 200 tokens', async (provider, model, expected) => {
    const res = await llmFor(provider, { model }).generate('x');
    expect(res).toMatchObject({ ok: true });
    expect(body()).toMatchObject(expected);
    if (provider === 'anthropic' && model === 'claude-haiku-5-5') expect(body().thinking).toBeUndefined();
    if (model === 'gpt-4o-mini') expect(body().reasoning_effort).toBeUndefined();
  });
});

describe('the fake providers behave like the real APIs', () => {
  const post = (path: string, payload: unknown, headers: Record<string, string> = {}) =>
    fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) }).then(
      async (r) => ({
        status: r.status,
        json: (await r.json()) as Record<string, unknown>,
      }),
    );

  it('Gemini 2.5 Flash thinks by default and, with a small maxOutputTokens, returns MAX_TOKENS and no text', async () => {
    const { json } = await post('/v1beta/models/gemini-2.5-flash:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      generationConfig: { maxOutputTokens: 300 },
    });
    expect(json.candidates).toEqual([{ content: { role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }]);
    expect(json.usageMetadata).toMatchObject({ thoughtsTokenCount: 300, candidatesTokenCount: 0 });
  });

  it('an OpenAI reasoning model refuses max_tokens and spends its budget reasoning at its default effort', async () => {
    expect((await post('/v1/chat/completions', { model: 'gpt-6-luna', max_tokens: 300, messages: [] })).status).toBe(400);
    const { json } = await post('/v1/chat/completions', { model: 'gpt-6-luna', max_completion_tokens: 300, messages: [] });
    expect(json).toMatchObject({
      choices: [{ message: { content: '' }, finish_reason: 'length' }],
      usage: { completion_tokens_details: { reasoning_tokens: 300 } },
    });
  });
});
