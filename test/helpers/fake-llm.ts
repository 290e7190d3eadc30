// A local server that answers like Gemini, OpenAI (chat completions) and Anthropic, and misbehaves on demand.
import { type Server, type ServerResponse, createServer } from 'node:http';

export type LlmMode = 'ok' | '500' | '429' | 'timeout' | 'blocked' | 'truncated';

export interface LlmCall {
  provider: 'gemini' | 'openai' | 'anthropic';
  path: string;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

export class FakeLlm {
  mode: LlmMode = 'ok';
  reply = 'The tone is clearly positive: strong results and optimism dominate. Readers would likely see it as good news.';
  calls: LlmCall[] = [];
  url = '';
  private server: Server | null = null;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const path = req.url ?? '';
        const provider = path.includes(':generateContent') ? 'gemini' : path.endsWith('/chat/completions') ? 'openai' : 'anthropic';
        this.calls.push({ provider, path, body: raw ? JSON.parse(raw) : {}, headers: req.headers });
        const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
        };
        if (this.mode === 'timeout') return; // never answers
        if (this.mode === '500') return send(500, { error: { message: 'internal error', code: 500 } });
        if (this.mode === '429') return send(429, { error: { message: 'rate limited', code: 429 } }, { 'retry-after': '30' });
        if (provider === 'gemini') return send(200, this.gemini());
        if (provider === 'openai' && (this.calls.at(-1)!.body as { stream?: boolean }).stream) return this.openaiStream(res);
        if (provider === 'openai') return send(200, this.openai());
        return send(200, this.anthropic());
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server!.address() as { port: number }).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  private text() {
    return this.mode === 'truncated' ? this.reply.slice(0, 30) : this.reply;
  }

  private gemini() {
    const usageMetadata = { promptTokenCount: 50, candidatesTokenCount: 20, totalTokenCount: 70 };
    if (this.mode === 'blocked') {
      return {
        candidates: [{ finishReason: 'SAFETY', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }] }],
        usageMetadata,
      };
    }
    return {
      candidates: [{ content: { parts: [{ text: this.text() }], role: 'model' }, finishReason: this.mode === 'truncated' ? 'MAX_TOKENS' : 'STOP', index: 0 }],
      usageMetadata,
      modelVersion: 'gemini-2.5-flash',
    };
  }

  private openai() {
    const finish = this.mode === 'truncated' ? 'length' : this.mode === 'blocked' ? 'content_filter' : 'stop';
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: this.mode === 'blocked' ? null : this.text() }, finish_reason: finish }],
      usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
    };
  }

  /** Chat Completions streaming: chunks with content deltas, a final chunk with the finish reason, [DONE]. */
  private openaiStream(res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    const words = this.text().match(/\S+\s*/g) ?? [];
    chunk({ role: 'assistant', content: '' }, null);
    for (const w of words) chunk({ content: w }, null);
    chunk({}, this.mode === 'truncated' ? 'length' : 'stop');
    res.write('data: [DONE]\n\n');
    res.end();
  }

  private anthropic() {
    const stop = this.mode === 'truncated' ? 'max_tokens' : this.mode === 'blocked' ? 'refusal' : 'end_turn';
    return {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-3-5-haiku-latest',
      content: this.mode === 'blocked' ? [] : [{ type: 'text', text: this.text() }],
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 20 },
    };
  }
}

/** Each provider's base URL on the fake server, as its SDK expects it (with the API version path). */
export const baseUrlFor = (fake: FakeLlm, provider: 'gemini' | 'openai' | 'anthropic') =>
  provider === 'gemini' ? `${fake.url}/v1beta` : `${fake.url}/v1`;
