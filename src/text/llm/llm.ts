// One small LLM interface over three providers (Vercel AI SDK): generate text with a timeout, a per-purpose output
// budget and thinking set by LLM_THINKING, and report failures, timeouts, blocks, starved or empty answers and
// rejected models as such (logged, never the prompt), so callers can fall back.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, type FinishReason, type LanguageModel, type LanguageModelUsage, generateText, streamText } from 'ai';
import { type ThinkingLevel, type ThinkingPlan, thinkingPlan } from './thinking.js';

export type LlmProviderName = 'gemini' | 'openai' | 'anthropic';
/** What a call is for; each purpose may have its own output budget (LLM_MAX_OUTPUT_TOKENS_<PURPOSE>). */
export type LlmPurpose = 'answer' | 'sentiment' | 'rewrite';

export interface LlmConfig {
  provider: LlmProviderName;
  apiKey?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
  /** LLM_MAX_OUTPUT_TOKENS: the answer budget, and every purpose's without its own. */
  maxOutputTokens: number;
  budgets?: Partial<Record<LlmPurpose, number | undefined>>;
  thinking?: ThinkingLevel;
  timeoutMs: number;
  log?: { warn(obj: object, msg: string): void };
}

/**
 * Each provider's current small, inexpensive, generally available model (checked 2026-11-23; see docs/production.md).
 */
export const DEFAULT_MODELS: Record<LlmProviderName, string> = {
  gemini: 'gemini-3.5-flash-lite',
  openai: 'gpt-6-luna',
  anthropic: 'claude-haiku-5-5',
};

export type LlmFailure = 'no_key' | 'timeout' | 'error' | 'blocked' | 'truncated' | 'model_rejected';

export type LlmResult = { ok: true; text: string; provider: LlmProviderName; model: string } | { ok: false; reason: LlmFailure; detail: string };

export interface GenerateOptions {
  system?: string;
  purpose?: LlmPurpose;
  timeoutMs?: number;
  /** Stops the call (a streaming client that disconnected): the provider request is aborted, no tokens are wasted. */
  signal?: AbortSignal;
}

/**
 * A local OpenAI-compatible server (Ollama, the llama.cpp server, vLLM without --api-key) needs no key: with
 * LLM_PROVIDER=openai, LLM_BASE_URL alone makes the model usable.
 */
export function keylessServer(cfg: Pick<LlmConfig, 'provider' | 'apiKey' | 'baseUrl'>): boolean {
  return cfg.provider === 'openai' && !cfg.apiKey && Boolean(cfg.baseUrl);
}

/** The SDK always sends a bearer header; without a key there is nothing to send. */
const withoutAuthorization: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.delete('authorization');
  return fetch(input, { ...init, headers });
};

function languageModel(cfg: LlmConfig, model: string): LanguageModel {
  const baseURL = cfg.baseUrl ? { baseURL: cfg.baseUrl } : {};
  const apiKey = cfg.apiKey ?? '';
  switch (cfg.provider) {
    case 'openai':
      // Chat Completions: the API that OpenAI-compatible servers (Ollama, vLLM, ...) implement.
      return createOpenAI({ apiKey, ...baseURL, ...(keylessServer(cfg) ? { fetch: withoutAuthorization } : {}) }).chat(model);
    case 'anthropic':
      return createAnthropic({ apiKey, ...baseURL })(model);
    default:
      return createGoogleGenerativeAI({ apiKey, ...baseURL })(model);
  }
}

/** How the last call went, for /health: a configured provider that keeps failing is not "ready". */
export interface LlmLastCall {
  at: string;
  ok: boolean;
  reason?: LlmFailure;
  detail?: string;
}

export class Llm {
  readonly model: string;
  readonly thinking: ThinkingPlan;
  private readonly lm: LanguageModel | null;
  lastCall: LlmLastCall | null = null;

  constructor(private readonly cfg: LlmConfig) {
    this.model = cfg.model || DEFAULT_MODELS[cfg.provider];
    this.thinking = thinkingPlan(cfg.provider, this.model, cfg.thinking ?? 'off');
    this.lm = cfg.apiKey || keylessServer(cfg) ? languageModel(cfg, this.model) : null;
  }

  get available(): boolean {
    return this.lm !== null;
  }

  get provider(): LlmProviderName {
    return this.cfg.provider;
  }

  /** The output tokens a call may use: the purpose's budget plus what thinking may spend of it. */
  outputBudget(purpose: LlmPurpose = 'answer'): number {
    return (this.cfg.budgets?.[purpose] ?? this.cfg.maxOutputTokens) + this.thinking.allowance;
  }

  private settings(prompt: string, opts: GenerateOptions, lm: LanguageModel) {
    return {
      model: lm,
      prompt,
      ...(opts.system ? { system: opts.system } : {}),
      maxOutputTokens: this.outputBudget(opts.purpose),
      providerOptions: this.thinking.providerOptions,
      // The caller has a fallback: one quick attempt beats a slow chain of retries.
      maxRetries: 0,
      // The timeout, and the caller's own signal (a client that went away) when it gives one.
      abortSignal: opts.signal
        ? AbortSignal.any([AbortSignal.timeout(opts.timeoutMs ?? this.cfg.timeoutMs), opts.signal])
        : AbortSignal.timeout(opts.timeoutMs ?? this.cfg.timeoutMs),
    };
  }

  private verdict(rawText: string, finishReason: FinishReason, usage: LanguageModelUsage | undefined, opts: GenerateOptions): LlmResult {
    const text = rawText.trim();
    const thought = usage?.reasoningTokens ? `, ${usage.reasoningTokens} of them spent thinking` : '';
    if (finishReason === 'content-filter') return this.fail('blocked', 'the provider blocked the answer', opts);
    if (finishReason === 'length') {
      const what = text ? 'the answer was cut' : 'no answer was left';
      return this.fail('truncated', `${what} by the output token limit (${this.outputBudget(opts.purpose)}${thought})`, opts);
    }
    // OpenAI-compatible servers may leave finish_reason out or use their own ("eos_token", ...): the SDK reads "unknown"
    // (or "other"). The cut and blocked cases they do report as OpenAI does, so their text is the whole answer.
    const complete = finishReason === 'stop' || (this.cfg.provider === 'openai' && (finishReason === 'unknown' || finishReason === 'other'));
    if (!complete) return this.fail('error', `unexpected finish reason "${finishReason}"`, opts);
    if (!text) return this.fail('truncated', `the provider returned no text${thought}`, opts);
    this.lastCall = { at: new Date().toISOString(), ok: true };
    return { ok: true, text, provider: this.cfg.provider, model: this.model };
  }

  /** Ready unless the last call failed in a way the next one will too (a rejected model, a refused key, an error). */
  get healthy(): boolean {
    return !this.lastCall || this.lastCall.ok || !['error', 'model_rejected'].includes(this.lastCall.reason ?? '');
  }

  private fail(reason: LlmFailure, detail: string, opts: GenerateOptions): LlmResult {
    if (!opts.signal?.aborted) this.lastCall = { at: new Date().toISOString(), ok: false, reason, detail };
    // Reason and detail only: never the prompt (users' text) or the key.
    this.cfg.log?.warn(
      { provider: this.cfg.provider, model: this.model, purpose: opts.purpose ?? 'answer', reason, detail },
      'LLM unavailable: using the fallback',
    );
    return { ok: false, reason, detail };
  }

  private failure(err: unknown, opts: GenerateOptions): LlmResult {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || /aborted|timeout/i.test(e.message)) {
      return this.fail('timeout', `no answer within ${opts.timeoutMs ?? this.cfg.timeoutMs} ms`, opts);
    }
    if (APICallError.isInstance(err) && (err.statusCode === 404 || err.statusCode === 400)) {
      return this.fail(
        'model_rejected',
        `the provider rejected the model "${this.model}" (HTTP ${err.statusCode}: ${err.message.slice(0, 200)}): ` +
          `set LLM_MODEL_NAME to a model this provider serves${err.statusCode === 400 ? ', or check LLM_THINKING' : ''}`,
        opts,
      );
    }
    if (APICallError.isInstance(err) && err.statusCode) return this.fail('error', `HTTP ${err.statusCode} from the provider`, opts);
    return this.fail('error', e.message.slice(0, 300), opts);
  }

  async generate(prompt: string, opts: GenerateOptions = {}): Promise<LlmResult> {
    if (!this.lm) return { ok: false, reason: 'no_key', detail: 'LLM_API_KEY is not set' };
    try {
      const res = await generateText(this.settings(prompt, opts, this.lm));
      return this.verdict(res.text, res.finishReason, res.usage, opts);
    } catch (err) {
      return this.failure(err, opts);
    }
  }

  /**
   * As generate(), passing each piece of text to `onToken` as the provider streams it. The next piece is read only when
   * the promise `onToken` returns settles: a slow reader slows the provider's stream instead of filling memory.
   */
  async stream(prompt: string, onToken: (text: string) => void | Promise<void>, opts: GenerateOptions = {}): Promise<LlmResult> {
    if (!this.lm) return { ok: false, reason: 'no_key', detail: 'LLM_API_KEY is not set' };
    try {
      const res = streamText({ ...this.settings(prompt, opts, this.lm), onError: () => undefined });
      let text = '';
      let finish: FinishReason = 'unknown';
      let usage: LanguageModelUsage | undefined;
      for await (const part of res.fullStream) {
        if (part.type === 'text-delta') {
          text += part.text;
          await onToken(part.text);
        } else if (part.type === 'error') {
          throw part.error instanceof Error ? part.error : new Error(String(part.error));
        } else if (part.type === 'finish') {
          finish = part.finishReason;
          usage = part.totalUsage;
        }
      }
      return this.verdict(text, finish, usage, opts);
    } catch (err) {
      return this.failure(err, opts);
    }
  }
}
