// A local server that answers like Gemini, OpenAI (chat completions) and Anthropic, streamed (each provider's SSE)
// or not. Like the real APIs, models think before answering and their thinking counts against the output budget
// (see fake-llm-thinking.ts): a starved answer comes back empty or cut, with the provider's finish reason and usage.
// Unknown models get the provider's 404; other failures on demand.
import { type Server, createServer } from 'node:http';
import { type Thinking, anthropicThinking, geminiThinking, openaiThinking } from './fake-llm-thinking.js';
import { anthropicBody, anthropicEvents, budgetOf, errorBody, geminiBody, geminiChunks, notFound, openaiBody, openaiChunks, sse } from './fake-llm-wire.js';

export type LlmMode = 'ok' | '500' | '429' | 'timeout' | 'blocked' | 'truncated';
export type Provider = 'gemini' | 'openai' | 'anthropic';

export interface LlmCall {
  provider: Provider;
  path: string;
  model: string;
  stream: boolean;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

/** What a request produced: thinking tokens spent, the text that fitted, and whether the budget cut it. */
export interface Outcome {
  thoughts: number;
  words: string[];
  cut: boolean;
}

type Body = Record<string, unknown> & { stream?: boolean };

export class FakeLlm {
  mode: LlmMode = 'ok';
  reply = 'The tone is clearly positive: strong results and optimism dominate. Readers would likely see it as good news.';
  /** Models every provider answers 404 for, as for a retired or misspelt name. */
  readonly unknownModels = new Set(['gemini-1.0-pro', 'gpt-3.5-turbo-0301', 'claude-2.0', 'no-such-model']);
  /**
   * How a local OpenAI-compatible server (Ollama, the llama.cpp server, vLLM, TGI) may differ from OpenAI's chat
   * completions: no `usage` (even when the stream asked for it), and its own finish reason for a complete answer
   * ("eos_token", or null). The default is OpenAI's behaviour.
   */
  openaiQuirks: { usage: boolean; stop: string | null } = { usage: true, stop: 'stop' };
  /** When set, a request without this bearer key gets 401 (a server started with --api-key). */
  requiredKey: string | null = null;
  /** Overrides the thinking tokens a model spends (a model that overthinks). */
  thoughts: number | null = null;
  calls: LlmCall[] = [];
  url = '';
  private server: Server | null = null;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const path = req.url ?? '';
        const provider: Provider =
          path.includes(':generateContent') || path.includes(':streamGenerateContent') ? 'gemini' : path.endsWith('/chat/completions') ? 'openai' : 'anthropic';
        const body = (raw ? JSON.parse(raw) : {}) as Body;
        const model = provider === 'gemini' ? (/models\/([^:]+):/.exec(path)?.[1] ?? '') : typeof body.model === 'string' ? body.model : '';
        const stream = provider === 'gemini' ? path.includes(':streamGenerateContent') : Boolean(body.stream);
        this.calls.push({ provider, path, model, stream, body, headers: req.headers });
        const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(payload));
        };
        if (this.mode === 'timeout') return; // never answers
        if (this.requiredKey !== null && req.headers.authorization !== `Bearer ${this.requiredKey}`) {
          return send(401, errorBody(provider, 401, 'Incorrect API key provided.'));
        }
        if (this.mode === '500') return send(500, errorBody(provider, 500, 'internal error'));
        if (this.mode === '429') return send(429, errorBody(provider, 429, 'rate limited'), { 'retry-after': '30' });
        if (this.unknownModels.has(model)) return send(404, errorBody(provider, 404, notFound(provider, model)));
        const thinking = this.thinking(provider, model, body);
        if (!thinking.ok) return send(thinking.status, errorBody(provider, thinking.status, thinking.message));
        const outcome = this.outcome(thinking.tokens, budgetOf(provider, body));
        if (provider === 'gemini') return stream ? sse(res, geminiChunks(this, outcome)) : send(200, geminiBody(this, outcome));
        if (provider === 'openai') return stream ? sse(res, openaiChunks(this, outcome, body)) : send(200, openaiBody(this, outcome, model));
        return stream ? sse(res, anthropicEvents(this, outcome, model)) : send(200, anthropicBody(this, outcome, model));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  private thinking(provider: Provider, model: string, body: Body): Thinking {
    const t =
      provider === 'gemini'
        ? geminiThinking(model, (body.generationConfig as { thinkingConfig?: { thinkingBudget?: number; thinkingLevel?: string } } | undefined)?.thinkingConfig)
        : provider === 'openai'
          ? openaiThinking(model, body as Parameters<typeof openaiThinking>[1])
          : anthropicThinking(model, body as Parameters<typeof anthropicThinking>[1]);
    return t.ok && this.thoughts !== null ? { ok: true, tokens: this.thoughts } : t;
  }

  /** Thinking first, then one token per word of the reply, until the budget runs out. */
  private outcome(thoughts: number, budget: number): Outcome {
    const all = this.reply.match(/\S+\s*/g) ?? [];
    if (this.mode === 'truncated') return { thoughts: 0, words: all.slice(0, 4), cut: true };
    const spent = Math.min(thoughts, budget);
    const room = budget - spent;
    return { thoughts: spent, words: all.slice(0, room), cut: all.length > room };
  }
}

/** Each provider's base URL on the fake server, as its SDK expects it (with the API version path). */
export const baseUrlFor = (fake: FakeLlm, provider: Provider) => (provider === 'gemini' ? `${fake.url}/v1beta` : `${fake.url}/v1`);
