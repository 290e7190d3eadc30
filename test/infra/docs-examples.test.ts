// The example requests in the README and docs/*.md: each `curl` to a survival or sentiment route in a ```console block is sent to
// the service, and its answer must be the JSON printed under it (the explanation image's timestamped name aside).
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { makeApp } from '../helpers/app.js';

interface Example {
  file: string;
  path: string;
  body: unknown;
  expected: string;
}

/**
 * Deterministic routes whose examples are checked (sentiment without a language model: the shipped models and the
 * written interpretation); others (questions, movies) depend on an index, time or the network.
 */
const CHECKED = /^\/(api\/predict(\/batch)?|predict|api\/explain|analyze\/sentiment)$/;

function examples(): Example[] {
  const files = [
    'README.md',
    ...readdirSync(fromRoot('docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const out: Example[] = [];
  for (const file of files) {
    const text = readFileSync(fromRoot(file), 'utf8');
    for (const block of text.matchAll(/```console\n([\s\S]*?)```/g)) {
      const lines = block[1]!.split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (!lines[i]!.startsWith('$ curl')) continue;
        let command = lines[i]!;
        while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`;
        const url = /localhost:5000(\/[^\s'"]*)/.exec(command)?.[1];
        const data = /-d '([^']*)'/.exec(command)?.[1];
        if (!url || !CHECKED.test(url) || data === undefined) continue;
        out.push({ file, path: url, body: JSON.parse(data), expected: lines[i + 1]! });
      }
    }
  }
  return out;
}

const found = examples();

describe('example requests in the documentation', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it('finds the survival and sentiment examples to check', () => {
    expect(found.length).toBeGreaterThanOrEqual(3);
    expect(found.some((e) => e.path === '/analyze/sentiment')).toBe(true);
  });

  it.each(found.map((e) => [`${e.file}: POST ${e.path} ${JSON.stringify(e.body).slice(0, 60)}`, e] as const))(
    '%s answers what is printed',
    async (_name, e) => {
      const res = await app.inject({ method: 'POST', url: e.path, payload: e.body as object });
      const actual = res.json();
      const expected = JSON.parse(e.expected);
      if (typeof expected.explanation_image_url === 'string') {
        expect(actual.explanation_image_url).toMatch(/^\/static\/images\/shap_explanation_\d{8}_\d{6}_[0-9a-f]+\.png$/);
        actual.explanation_image_url = expected.explanation_image_url;
      }
      expect(actual).toEqual(expected);
    },
  );
});
