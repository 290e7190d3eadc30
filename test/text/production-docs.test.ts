import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { DEFAULT_MODELS } from '../../src/text/llm/llm.js';
import { HUB_PRESET } from '../../src/text/models.js';
import { ROLE_VARIABLES } from '../../src/text/pull.js';

const doc = readFileSync(fromRoot('docs/production.md'), 'utf8');

describe('docs/production.md', () => {
  it('shows the loading figures of docs/results/model-loading.json (npm run bench:model-loading)', () => {
    const { results } = JSON.parse(readFileSync(fromRoot('docs/results/model-loading.json'), 'utf8')) as {
      results: { models: { role: string; bytes: number; load_ms_median: Record<string, number>; rss_added_mb_median: Record<string, number> }[] };
    };
    for (const m of results.models) {
      const ms = m.load_ms_median;
      const row = `| ${m.role} (${(m.bytes / 1e6).toFixed(1)} MB) | ${ms.local_directory} | ${ms.hub_empty_cache} | ${ms.cache_hub_down} | ${m.rss_added_mb_median.local_directory} |`;
      expect(doc).toContain(row);
    }
  });

  it("names the code's production models and default LLM models", () => {
    for (const [role, id] of Object.entries(HUB_PRESET)) expect(doc).toContain(`\`${ROLE_VARIABLES[role as keyof typeof HUB_PRESET]}=${id}\``);
    for (const [provider, model] of Object.entries(DEFAULT_MODELS))
      expect(doc).toMatch(new RegExp(`\\| \`${provider}\`( \\(default\\))? \\| \`${model}\` \\|`));
  });
});
