import { describe, expect, it } from 'vitest';
import { NOT_FOUND } from '../../../src/text/rag/ask/response.js';
import { RefuseStep } from '../../../src/text/rag/ask/steps/refuse.js';
import { context, hit, reading, verdict } from './fakes.js';

const refusal = async (fields: Parameters<typeof context>[0]) => {
  const ctx = context(fields);
  ctx.warnings.push('earlier warning');
  await new RefuseStep().run(ctx);
  return ctx.response;
};

describe('refuse step', () => {
  it('lets a supported question, or one a learned part read, go on to the answer', async () => {
    expect(await refusal({ kept: [hit('x')], support: verdict() })).toBeNull();
    expect(await refusal({ kept: [hit('x')], support: verdict({ passed: false }), gated: reading('y') })).toBeNull();
  });

  it.each([
    [{ kept: [] }, /No retrieved passage reached the relevance threshold/],
    [{ kept: [hit('x')], support: verdict({ passed: false, missing: ['Erie', 'canal'] }) }, /do not mention "Erie", "canal"/],
    [{ kept: [hit('x')], support: verdict(), notInCatalogue: ['1950'] }, /No document of the collection's catalogue .* matches "1950"/],
    [{ kept: [hit('x')], support: verdict(), newest: '1961-01-12' }, /asks about the present.*dated 1961-01-12/],
  ])('answers "not in the collection" with the reason (%#)', async (fields, reason) => {
    const r = await refusal(fields);
    expect(r?.answer).toBe(NOT_FOUND);
    expect(r?.answer_passage).toBeNull();
    expect(r?.confidence).toBe('low');
    expect(r?.warnings[0]).toBe('earlier warning');
    expect(r?.warnings[1]).toMatch(reason);
  });
});
