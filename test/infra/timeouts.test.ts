// Server timeouts: a client that never finishes its headers or its body is cut off, and idle keep-alive connections
// close, as configured.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp } from '../helpers/app.js';

/** Writes `data` on a raw connection and resolves with what came back and when the server closed it. */
function rawExchange(port: number, data: string): Promise<{ reply: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let reply = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    socket.on('data', (d: Buffer) => (reply += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve({ reply, closedAfterMs: Date.now() - started }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after 20 s; got: ${reply}`));
    }, 20_000).unref();
  });
}

// Upper bounds: the timeout (1 or 2 s), plus Node's 1 s checking interval, plus plenty for a loaded machine, and still
// below what an ignored setting would give (the defaults: headers 10 s, request 30 s, keep-alive 72 s). Lower bounds
// cannot be broken by a slow machine: the clock starts before the connection does.
const SLACK_MS = 6000;

describe('server timeouts', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  let port: number;
  beforeAll(async () => {
    app = await makeApp({ HEADERS_TIMEOUT_MS: 1000, REQUEST_TIMEOUT_MS: 2000, KEEP_ALIVE_TIMEOUT_MS: 1000, RAG_INDEX_ON_START: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  it('answers 408 and closes a connection whose headers never end', async () => {
    const { reply, closedAfterMs } = await rawExchange(port, 'POST /api/predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(1000 + SLACK_MS);
  });

  it('answers 408 and closes a connection whose body never arrives in full', async () => {
    const head = 'POST /api/predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"pclass":';
    const { reply, closedAfterMs } = await rawExchange(port, head);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(1900);
    expect(closedAfterMs).toBeLessThan(2000 + SLACK_MS);
  });

  it('closes an idle keep-alive connection after its timeout, having answered the request on it', async () => {
    const { reply, closedAfterMs } = await rawExchange(port, 'GET /live HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(reply).toContain('"status":"alive"');
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(1000 + SLACK_MS);
  });
});
