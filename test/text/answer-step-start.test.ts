// The answer step is loaded before /ready answers 200 (a user's first question does not pay for it), and the
// abbreviations questions are expanded with come from RAG_ABBREVIATIONS.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ABBREVIATIONS } from '../../src/text/rag/ask/rewrite.js';
import { abbreviationsFrom } from '../../src/text/rag/plugin.js';
import { makeApp, tempDir } from '../helpers/app.js';

describe('RAG_ABBREVIATIONS', () => {
  const dir = tempDir('abbr-');
  it('is the built-in list when empty, and no expansion at all with "none"', () => {
    expect(abbreviationsFrom('')).toBe(DEFAULT_ABBREVIATIONS);
    expect(abbreviationsFrom(' None ')).toEqual({});
  });

  it('reads a JSON object of abbreviation -> expansion', () => {
    const file = join(dir, 'abbr.json');
    writeFileSync(file, JSON.stringify({ PSU: 'power supply unit', FW: 'firmware' }));
    expect(abbreviationsFrom(file)).toEqual({ PSU: 'power supply unit', FW: 'firmware' });
  });

  it('stops the start with the setting named when the file is missing or not such an object', () => {
    expect(() => abbreviationsFrom(join(dir, 'missing.json'))).toThrow(/^RAG_ABBREVIATIONS: .*not a readable JSON file/);
    const list = join(dir, 'list.json');
    writeFileSync(list, '["PSU"]');
    expect(() => abbreviationsFrom(list)).toThrow(/^RAG_ABBREVIATIONS: .*one JSON object/);
    const numbers = join(dir, 'numbers.json');
    writeFileSync(numbers, '{"PSU": 3}');
    expect(() => abbreviationsFrom(numbers)).toThrow(/one JSON object/);
  });
});

describe('the answer step at start-up', () => {
  const docs = tempDir('warm-docs-');
  const abbr = join(tempDir('warm-abbr-'), 'abbreviations.json');
  let app: Awaited<ReturnType<typeof makeApp>>;

  beforeAll(async () => {
    writeFileSync(
      join(docs, 'charger.txt'),
      'The charger accepts a maximum charging current of 16 amperes. Its power supply unit is rated for 230 volts. ' +
        'The firmware is installed from the settings page, under maintenance.',
    );
    writeFileSync(abbr, JSON.stringify({ PSU: 'power supply unit' }));
    app = await makeApp({ DOCS_DIR: docs, RAG_ABBREVIATIONS: abbr });
  });
  afterAll(async () => app?.close());

  it('keeps /ready at 503 until the index is in memory and one question has gone through the answer step', async () => {
    const before = await app.inject({ method: 'GET', url: '/ready' });
    expect(before.statusCode).toBe(503);
    expect(before.json().waiting_for.rag).toBeDefined();
    const completedBefore = app.workers.stats().completed;
    await app.rag.start();
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    // (The movie database is not started here: only the document search's condition is read.)
    expect(ready.json().waiting_for?.rag).toBeUndefined();
    const health = (await app.inject({ method: 'GET', url: '/health' })).json();
    expect(health.components.rag.answer_step).toBe('loaded');
    // The question was tagged and read in the worker: its models are loaded there, not on the first user's question.
    expect(app.workers.stats().completed).toBeGreaterThan(completedBefore);
  });

  it('expands the abbreviations of the configured file in questions', async () => {
    const res = await app.inject({ method: 'POST', url: '/rag/ask', payload: { question: 'What voltage is the PSU rated for?' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.query.changes).toContainEqual({ from: 'PSU', to: 'power supply unit', kind: 'abbreviation' });
    expect(body.query.rewritten).toContain('power supply unit');
  });
});
