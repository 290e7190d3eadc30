import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';

async function echoRoute(app: FastifyInstance) {
  app.post('/api/echo', async (req) => ({ got: req.body, token: 'tok-result' }));
}

describe('request log', () => {
  it('writes one structured line per request with payload and result, secrets redacted', async () => {
    const stream = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    stream.on('data', (chunk: Buffer) => {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    });
    const app = await buildApp({ config: testConfig(), logStream: stream, plugins: [echoRoute] });
    await app.inject({
      method: 'POST',
      url: '/api/echo?x=1',
      payload: { name: 'Ann', api_key: 'sk-very-secret', nested: { password: 'hunter2' } },
      headers: { authorization: 'Bearer abc.def' },
    });
    await app.close();
    const requestLines = lines.filter((l) => l.msg === 'request');
    expect(requestLines).toHaveLength(1);
    const line = requestLines[0]!;
    expect(line).toMatchObject({ method: 'POST', path: '/api/echo', status: 200, client: '127.0.0.1' });
    expect(typeof line.time).toBe('string');
    expect(typeof line.duration_ms).toBe('number');
    expect(line.payload).toMatchObject({ name: 'Ann' });
    expect(line.result).toBeDefined();
    const all = JSON.stringify(lines);
    expect(all).not.toContain('sk-very-secret');
    expect(all).not.toContain('tok-result');
    expect(all).not.toContain('Bearer abc.def');
  });
});
