// /rag/ask/stream over a real socket, with an OpenAI-compatible server that streams its answer only as fast as the
// test lets it: tokens reach the client before the answer is complete, and a client that leaves ends the LLM call.
import { writeFileSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, tempDir } from '../helpers/app.js';

const FIRST = 'The navy built ';
const REST = 'three ironclad ships in 1862 [1].';

/** One streamed chat completion per request: the first piece at once, the rest when `release()` is called. */
function gatedOpenAi() {
  let release: () => void = () => undefined;
  const state = { requests: 0, closedEarly: 0, gate: Promise.resolve() };
  const arm = () => (state.gate = new Promise<void>((r) => (release = r)));
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      state.requests++;
      let finished = false;
      res.on('close', () => {
        if (!finished) state.closedEarly++;
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }, null));
      res.write(chunk({ content: FIRST }, null));
      void state.gate.then(() => {
        if (res.destroyed) return;
        res.write(chunk({ content: REST }, null));
        res.write(chunk({}, 'stop'));
        res.end('data: [DONE]\n\n');
        finished = true;
      });
    });
  });
  return {
    state,
    arm,
    release: () => release(),
    start: () => new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`))),
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Reads server-sent events from a fetch response as they arrive. */
async function* events(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let at;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      yield { event: /^event: (\w+)/m.exec(block)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown> };
    }
  }
}

const waitFor = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return check();
};

describe('POST /rag/ask/stream over a socket', () => {
  const llm = gatedOpenAi();
  let app: Awaited<ReturnType<typeof makeApp>>;
  let url: string;
  beforeAll(async () => {
    const docs = tempDir('stream-docs-');
    writeFileSync(
      join(docs, 'navy.txt'),
      'The navy built three ironclad ships in 1862. The ironclad ships guarded the harbors of the coast. Sailors trained on the new ships all winter.',
    );
    app = await makeApp({
      DOCS_DIR: docs,
      RAG_INDEX_ON_START: false,
      LLM_API_KEY: 'k',
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: await llm.start(),
      CORS_ORIGINS: ['https://client.example'],
    });
    expect((await app.inject({ method: 'POST', url: '/rag/index', payload: {} })).statusCode).toBe(200);
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    llm.release();
    await app.close();
    await llm.stop();
  });

  const ask = (signal?: AbortSignal) =>
    fetch(`${url}/rag/ask/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://client.example', 'x-request-id': 'stream-test-1' },
      body: JSON.stringify({ question: 'How many ironclad ships did the navy build?' }),
      signal,
    });

  it('sends the first tokens while the LLM is still answering, keeps the CORS and request-id headers, and ends with the final answer', async () => {
    void llm.arm();
    const res = await ask();
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://client.example');
    expect(res.headers.get('x-request-id')).toBe('stream-test-1');
    const seen: string[] = [];
    let tokens = '';
    let final: Record<string, unknown> | null = null;
    for await (const e of events(res)) {
      seen.push(e.event);
      if (e.event === 'token') {
        // The LLM has sent only its first piece: the rest waits for the release below.
        if (!tokens) expect(final).toBeNull();
        tokens += e.data.text as string;
        if (tokens === FIRST) llm.release();
      }
      if (e.event === 'final') final = e.data;
    }
    expect(tokens).toBe(FIRST + REST);
    expect(final).toMatchObject({ llm_powered: true, answer: FIRST + REST });
    expect(seen.indexOf('token')).toBeLessThan(seen.indexOf('final'));
  });

  it('ends the LLM call when the client goes away mid-answer', async () => {
    void llm.arm();
    const before = llm.state.closedEarly;
    const client = new AbortController();
    const res = await ask(client.signal);
    for await (const e of events(res)) {
      if (e.event === 'token') break;
    }
    client.abort();
    // The provider's connection is closed by the service, long before the answer would have been released.
    expect(await waitFor(() => llm.state.closedEarly > before)).toBe(true);
    // And the service goes on answering others.
    llm.release();
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBeLessThan(500);
  });
});
