import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Llm, type LlmProviderName } from '../../src/text/llm/llm.js';
import { FakeLlm, baseUrlFor } from '../helpers/fake-llm.js';

describe.each(['gemini', 'openai', 'anthropic'] as LlmProviderName[])('LLM layer with the real %s client', (provider) => {
  const fake = new FakeLlm();
  let llm: Llm;
  beforeAll(async () => {
    await fake.start();
    llm = new Llm({ provider, apiKey: 'test-key-123', baseUrl: baseUrlFor(fake, provider), maxOutputTokens: 200, timeoutMs: 1500 });
  });
  afterAll(() => fake.stop());

  const generate = async (mode: FakeLlm['mode']) => {
    fake.mode = mode;
    fake.calls.length = 0;
    return llm.generate('Interpret this text.', { system: 'Be brief.' });
  };

  it('returns the text on success, sending the key, the prompt and the token limit in the wire format', async () => {
    const res = await generate('ok');
    expect(res).toEqual({ ok: true, text: fake.reply, provider, model: llm.model });
    const call = fake.calls[0]!;
    expect(call.provider).toBe(provider);
    const body = JSON.stringify(call.body);
    expect(body).toContain('Interpret this text.');
    expect(body).toContain('200');
    const key = provider === 'gemini' ? call.headers['x-goog-api-key'] : provider === 'anthropic' ? call.headers['x-api-key'] : call.headers.authorization;
    expect(String(key)).toContain('test-key-123');
  });

  it.each([
    ['500', 'error'],
    ['429', 'error'],
    ['blocked', 'blocked'],
    ['truncated', 'incomplete'],
    ['timeout', 'timeout'],
  ] as const)('reports %s as %s, with one attempt only', async (mode, reason) => {
    const res = await generate(mode);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.reason).toBe(reason);
    expect(fake.calls.length).toBe(1);
  });
});

describe('LLM layer without a key', () => {
  it('does not attempt a call', async () => {
    const fake = new FakeLlm();
    await fake.start();
    const llm = new Llm({ provider: 'gemini', baseUrl: baseUrlFor(fake, 'gemini'), maxOutputTokens: 100, timeoutMs: 1000 });
    expect(llm.available).toBe(false);
    expect(await llm.generate('x')).toEqual({ ok: false, reason: 'no_key', detail: 'LLM_API_KEY is not set' });
    expect(fake.calls).toHaveLength(0);
    await fake.stop();
  });

  it('picks a sensible default model per provider', () => {
    expect(new Llm({ provider: 'openai', maxOutputTokens: 1, timeoutMs: 1 }).model).toBe('gpt-4o-mini');
    expect(new Llm({ provider: 'anthropic', maxOutputTokens: 1, timeoutMs: 1, model: 'claude-x' }).model).toBe('claude-x');
  });
});

describe('LLM streaming (OpenAI-compatible server)', () => {
  it('passes the tokens on as they arrive and reports a truncated stream as incomplete', async () => {
    const fake = new FakeLlm();
    await fake.start();
    const llm = new Llm({ provider: 'openai', apiKey: 'k', baseUrl: baseUrlFor(fake, 'openai'), maxOutputTokens: 100, timeoutMs: 2000 });
    const tokens: string[] = [];
    const ok = await llm.stream('Say something.', (t) => tokens.push(t));
    expect(ok).toMatchObject({ ok: true, text: fake.reply });
    expect(tokens.length).toBeGreaterThan(5);
    expect(tokens.join('')).toBe(fake.reply);
    fake.mode = 'truncated';
    expect(await llm.stream('Say something.', () => undefined)).toMatchObject({ ok: false, reason: 'incomplete' });
    fake.mode = '500';
    expect(await llm.stream('Say something.', () => undefined)).toMatchObject({ ok: false, reason: 'error' });
    await fake.stop();
  });
});
