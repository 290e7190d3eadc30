// /rag/topics, and /rag/ask at its edges: a full worker queue, key content far apart, a name no kept passage holds.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskFile } from '../../src/infra/worker-pool.js';
import { makeApp, tempDir } from '../helpers/app.js';

describe('POST /rag/topics', () => {
  const docs = tempDir('topic-docs-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    const theme = (words: string, n: number) => Array.from({ length: n }, (_, i) => `${words} ${i}.`).join(' ');
    writeFileSync(join(docs, 'navy.txt'), theme('The navy built ships, sailors, fleets, harbors and naval cannons for the ocean', 400));
    writeFileSync(join(docs, 'farms.txt'), theme('Farmers harvested wheat, corn, cattle and crops on the prairie farms', 400));
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(() => app.close());

  it('finds the two themes, with distinctive keywords and sample chunks', async () => {
    const res = await app.inject({ method: 'POST', url: '/rag/topics', payload: {} });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.chosen_by).toBe('silhouette');
    expect(body.k).toBe(2);
    const all = body.clustered_topics.map((t: { keywords: string[] }) => t.keywords.join(' '));
    expect(all.some((k: string) => /navy|naval|ships|sailors/.test(k))).toBe(true);
    expect(all.some((k: string) => /farm|wheat|corn|cattle|crops/.test(k))).toBe(true);
    for (const t of body.clustered_topics) {
      expect(t.label).toBe(t.keywords.slice(0, 3).join(' / '));
      expect(t.sample_chunks.length).toBeGreaterThan(0);
    }
    expect(body.clustered_topics.reduce((s: number, t: { size: number }) => s + t.size, 0)).toBe((await app.inject({ url: '/rag/stats' })).json().chunks);
  });

  it('clusters one source with a given k, and refuses a k it cannot make', async () => {
    const one = (await app.inject({ method: 'POST', url: '/rag/topics', payload: { source: 'navy.txt', k: 2 } })).json();
    expect(one).toMatchObject({ k: 2, chosen_by: 'request' });
    const unknown = await app.inject({ method: 'POST', url: '/rag/topics', payload: { source: '../../etc/passwd' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ detail: 'No document named ../../etc/passwd in the index (GET /rag/stats lists them)' });
    expect((await app.inject({ method: 'POST', url: '/rag/topics', payload: { k: 1 } })).statusCode).toBe(400);
  });

  it('reads a one-chunk document as one topic, and says why a k larger than its chunks cannot be made', async () => {
    writeFileSync(join(docs, 'note.txt'), 'A short note: the harbor office opens at nine on weekdays.');
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
    const short = await app.inject({ method: 'POST', url: '/rag/topics', payload: { source: 'note.txt' } });
    expect(short.statusCode).toBe(200);
    expect(short.json()).toMatchObject({ k: 1, chosen_by: 'too few chunks to compare', clustered_topics: [{ size: 1 }] });
    expect(short.json().clustered_topics[0].keywords).toEqual(expect.arrayContaining(['harbor']));
    const tooMany = await app.inject({ method: 'POST', url: '/rag/topics', payload: { source: 'note.txt', k: 3 } });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toEqual({ detail: 'k = 3 needs more than 3 chunks; note.txt has 1. Ask for a smaller k, or leave it out' });
  });
});

describe('/rag/ask when the worker queue is full', () => {
  const docs = tempDir('ask-busy-');
  const tasks = taskFile(new URL('../helpers/pool-tasks.js', import.meta.url));
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    writeFileSync(
      join(docs, 'schools.txt'),
      'Public schools in Ohio enrolled more children than ever. Teachers asked Congress for better pay. Horace Mann founded the first normal school in Massachusetts in 1839.',
    );
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false, WORKER_THREADS: 1, WORKER_QUEUE_MAX: 1 });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(() => app.close());

  it('answers 503 with Retry-After in the error shape instead of reading on the event loop, and answers again afterwards', async () => {
    const question = { question: 'Who founded the first normal school in Massachusetts?' };
    // One task keeps the only worker busy and another fills its one-place queue: the question's reading step finds
    // the pool full.
    const busy = app.workers.run(tasks, 'spin', 1500);
    const queued = app.workers.run(tasks, 'echo', 'queued');
    const refused = await app.inject({ method: 'POST', url: '/rag/ask', payload: question });
    expect(refused.statusCode).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json()).toMatchObject({
      detail: expect.stringMatching(/busy/i),
      retry_after_s: expect.any(Number),
      request_id: refused.headers['x-request-id'],
    });
    await Promise.all([busy, queued]);
    const again = await app.inject({ method: 'POST', url: '/rag/ask', payload: question });
    expect(again.statusCode).toBe(200);
    expect(again.json().answer).toBe('Horace Mann');
  });
});

describe('/rag/ask: the key content must come together near the answer', () => {
  const docs = tempDir('ask-window-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    // One chunk: France and Spain in its first sentence, a capital five sentences later.
    writeFileSync(
      join(docs, 'treaty.txt'),
      'At the start of the war between France and Spain the government of France declared that it would grant no commissions to privateers. ' +
        'Our ships were respected by both parties. Trade with the ports of the south went on as before. Farmers sent their wheat to the markets. ' +
        'The harvest was the largest in ten years. The bank doubled its capital and opened branches in the west.',
    );
    // Other documents, so that France is not a name the collection holds nearly everywhere (which is not required).
    const others = ['The navy built three ironclad ships.', 'Teachers asked for better pay.', 'The railroad reached the coast.', 'Wheat prices fell.'];
    others.forEach((text, i) => writeFileSync(join(docs, `other-${i}.txt`), text));
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(() => app.close());

  it('refuses a question whose name and asked-about noun are sentences apart in the passage, and answers one near them', async () => {
    const scattered = (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: 'What is the capital of France?' } })).json();
    expect(scattered.answer).toMatch(/^No answer to this question was found/);
    expect(scattered.answer_passage).toBeNull();
    expect(scattered.guardrails.support).toMatchObject({ passed: false, sentence_window: false });
    expect(scattered.warnings.join(' ')).toMatch(/key terms/);
    const near = (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: 'What did the government of France declare?' } })).json();
    expect(near.answer_passage).toMatch(/grant no commissions to privateers/);
  });
});

describe('/rag/ask: a name that no kept passage mentions is searched for', () => {
  const docs = tempDir('ask-names-');
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    // Passages that share every word of the question but its name, and one passage that names it and little else.
    for (let i = 0; i < 5; i++)
      writeFileSync(
        join(docs, `fleet-${i}.txt`),
        `The western navy of the empire controlled the sea lanes for a long time. How long the western navy of the empire held control of the sea lanes near port ${i} was long debated.`,
      );
    writeFileSync(join(docs, 'island.txt'), 'The Normans took Cyprus in 1191 and held it for 380 years.');
    app = await makeApp({ DOCS_DIR: docs, RAG_INDEX_ON_START: false });
    await app.inject({ method: 'POST', url: '/rag/index', payload: {} });
  });
  afterAll(() => app.close());

  it('puts the chunk that names it first among the passages, and says so in the timings', async () => {
    const question = 'How long did the western navy of the empire control the sea lanes near Cyprus?';
    // A plain search ranks the fleet passages first.
    const plain = (await app.inject({ method: 'POST', url: '/rag/search', payload: { query: question, top_k: 1 } })).json();
    expect(plain.results[0].source).toMatch(/^fleet-/);
    const body = (await app.inject({ method: 'POST', url: '/rag/ask', payload: { question, top_k: 1 } })).json();
    expect(Object.keys(body.timings_ms)).toContain('retrieve_names');
    expect(body.sources[0]).toBe('island.txt');
    expect(body.context[0]).toMatchObject({ number: 1, source: 'island.txt' });
  });
});
