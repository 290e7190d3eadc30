// One small LLM interface over three providers (Vercel AI SDK): generate text with a timeout and an output budget,
// and report failures, timeouts, safety blocks and truncated answers as such, so callers can fall back.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { type FinishReason, type LanguageModel, generateText, streamText } from 'ai';

export type LlmProviderName = 'gemini' | 'openai' | 'anthropic';

export interface LlmConfig {
  provider: LlmProviderName;
  apiKey?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
  maxOutputTokens: number;
  timeoutMs: number;
}

export const DEFAULT_MODELS: Record<LlmProviderName, string> = {
  gemini: 'gemini-2.5-flash',
  openai: 'gpt-4o-mini',
  anthropic: 'claude-3-5-haiku-latest',
};

export type LlmFailure = 'no_key' | 'timeout' | 'error' | 'blocked' | 'incomplete' | 'empty';

export type LlmResult =
  | { ok: true; text: string; provider: LlmProviderName; model: string }
  | { ok: false; reason: LlmFailure; detail: string };

export interface GenerateOptions {
  system?: string;
  maxOutputTokens?: number;
  timeoutMs?: number;
}

function languageModel(cfg: LlmConfig & { apiKey: string }, model: string): LanguageModel {
  const baseURL = cfg.baseUrl ? { baseURL: cfg.baseUrl } : {};
  switch (cfg.provider) {
    case 'openai':
      // Chat Completions: the API that OpenAI-compatible servers (Ollama, vLLM, ...) implement.
      return createOpenAI({ apiKey: cfg.apiKey, ...baseURL }).chat(model);
    case 'anthropic':
      return createAnthropic({ apiKey: cfg.apiKey, ...baseURL })(model);
    default:
      return createGoogleGenerativeAI({ apiKey: cfg.apiKey, ...baseURL })(model);
  }
}

export class Llm {
  readonly model: string;
  private readonly lm: LanguageModel | null;

  constructor(private readonly cfg: LlmConfig) {
    this.model = cfg.model || DEFAULT_MODELS[cfg.provider];
    this.lm = cfg.apiKey ? languageModel({ ...cfg, apiKey: cfg.apiKey }, this.model) : null;
  }

  get available(): boolean {
    return this.lm !== null;
  }

  get provider(): LlmProviderName {
    return this.cfg.provider;
  }

  private settings(prompt: string, opts: GenerateOptions, lm: LanguageModel) {
    return {
      model: lm,
      prompt,
      ...(opts.system ? { system: opts.system } : {}),
      maxOutputTokens: opts.maxOutputTokens ?? this.cfg.maxOutputTokens,
      // The caller has a fallback: one quick attempt beats a slow chain of retries.
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(opts.timeoutMs ?? this.cfg.timeoutMs),
    };
  }

  private verdict(rawText: string, finishReason: FinishReason): LlmResult {
    const text = rawText.trim();
    if (finishReason === 'content-filter') return { ok: false, reason: 'blocked', detail: 'the provider blocked the answer' };
    if (finishReason === 'length') return { ok: false, reason: 'incomplete', detail: 'the answer was cut by the output token limit' };
    if (finishReason !== 'stop') return { ok: false, reason: 'error', detail: `unexpected finish reason "${finishReason}"` };
    if (!text) return { ok: false, reason: 'empty', detail: 'the provider returned no text' };
    return { ok: true, text, provider: this.cfg.provider, model: this.model };
  }

  private failure(err: unknown, opts: GenerateOptions): LlmResult {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || /aborted|timeout/i.test(e.message)) {
      return { ok: false, reason: 'timeout', detail: `no answer within ${opts.timeoutMs ?? this.cfg.timeoutMs} ms` };
    }
    return { ok: false, reason: 'error', detail: e.message.slice(0, 300) };
  }

  async generate(prompt: string, opts: GenerateOptions = {}): Promise<LlmResult> {
    if (!this.lm) return { ok: false, reason: 'no_key', detail: 'LLM_API_KEY is not set' };
    try {
      const res = await generateText(this.settings(prompt, opts, this.lm));
      return this.verdict(res.text, res.finishReason);
    } catch (err) {
      return this.failure(err, opts);
    }
  }

  /** As generate(), passing each piece of text to `onToken` as the provider streams it. */
  async stream(prompt: string, onToken: (text: string) => void, opts: GenerateOptions = {}): Promise<LlmResult> {
    if (!this.lm) return { ok: false, reason: 'no_key', detail: 'LLM_API_KEY is not set' };
    try {
      const res = streamText({ ...this.settings(prompt, opts, this.lm), onError: () => undefined });
      let text = '';
      let finish: FinishReason = 'unknown';
      for await (const part of res.fullStream) {
        if (part.type === 'text-delta') {
          text += part.text;
          onToken(part.text);
        } else if (part.type === 'error') {
          throw part.error instanceof Error ? part.error : new Error(String(part.error));
        } else if (part.type === 'finish') {
          finish = part.finishReason;
        }
      }
      return this.verdict(text, finish);
    } catch (err) {
      return this.failure(err, opts);
    }
  }
}
