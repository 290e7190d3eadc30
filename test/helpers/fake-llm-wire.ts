// The three providers' wire formats for the fake LLM server: bodies, errors and server-sent events of Gemini
// (generateContent), OpenAI (chat completions) and Anthropic (messages), from what a request produced.
import type { ServerResponse } from 'node:http';
import type { FakeLlm, Outcome, Provider } from './fake-llm.js';

type Body = Record<string, unknown> & { stream?: boolean };

export const budgetOf = (provider: Provider, body: Body): number => {
  if (provider === 'gemini') return Number((body.generationConfig as { maxOutputTokens?: number } | undefined)?.maxOutputTokens ?? 65_536);
  if (provider === 'openai') return Number(body.max_completion_tokens ?? body.max_tokens ?? 128_000);
  return Number(body.max_tokens);
};

export const notFound = (provider: Provider, model: string) =>
  provider === 'gemini'
    ? `models/${model} is not found for API version v1beta, or is not supported for generateContent.`
    : provider === 'openai'
      ? `The model \`${model}\` does not exist or you do not have access to it.`
      : `model: ${model}`;

export function errorBody(provider: Provider, status: number, message: string) {
  if (provider === 'gemini')
    return { error: { code: status, message, status: status === 400 ? 'INVALID_ARGUMENT' : status === 404 ? 'NOT_FOUND' : 'INTERNAL' } };
  if (provider === 'openai') return { error: { message, type: 'invalid_request_error', param: null, code: status === 404 ? 'model_not_found' : null } };
  return { type: 'error', error: { type: status === 404 ? 'not_found_error' : status === 400 ? 'invalid_request_error' : 'api_error', message } };
}

export function sse(res: ServerResponse, events: { event?: string; data: unknown }[]) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
  res.end();
}

const text = (o: Outcome) => o.words.join('');

function geminiUsage(o: Outcome) {
  return {
    promptTokenCount: 50,
    candidatesTokenCount: o.words.length,
    ...(o.thoughts ? { thoughtsTokenCount: o.thoughts } : {}),
    totalTokenCount: 50 + o.words.length + o.thoughts,
  };
}

export function geminiBody(fake: FakeLlm, o: Outcome) {
  if (fake.mode === 'blocked') {
    return {
      candidates: [{ finishReason: 'SAFETY', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }] }],
      usageMetadata: geminiUsage(o),
    };
  }
  // A starved answer has no parts at all, only the role.
  const content = o.words.length ? { parts: [{ text: text(o) }], role: 'model' } : { role: 'model' };
  return { candidates: [{ content, finishReason: o.cut ? 'MAX_TOKENS' : 'STOP', index: 0 }], usageMetadata: geminiUsage(o), modelVersion: 'fake' };
}

export function geminiChunks(fake: FakeLlm, o: Outcome) {
  if (fake.mode === 'blocked') return [{ data: geminiBody(fake, o) }];
  const pieces = o.words.map((w) => ({
    data: { candidates: [{ content: { parts: [{ text: w }], role: 'model' }, index: 0 }], usageMetadata: geminiUsage(o) },
  }));
  return [
    ...pieces,
    {
      data: {
        candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: o.cut ? 'MAX_TOKENS' : 'STOP', index: 0 }],
        usageMetadata: geminiUsage(o),
      },
    },
  ];
}

function openaiUsage(o: Outcome) {
  return {
    prompt_tokens: 50,
    completion_tokens: o.words.length + o.thoughts,
    total_tokens: 50 + o.words.length + o.thoughts,
    completion_tokens_details: { reasoning_tokens: o.thoughts },
  };
}

const openaiFinish = (fake: FakeLlm, o: Outcome) => (fake.mode === 'blocked' ? 'content_filter' : o.cut ? 'length' : fake.openaiQuirks.stop);

export function openaiBody(fake: FakeLlm, o: Outcome, model: string) {
  const content = fake.mode === 'blocked' ? null : text(o);
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: openaiFinish(fake, o) }],
    ...(fake.openaiQuirks.usage ? { usage: openaiUsage(o) } : {}),
  };
}

/** Chat Completions streaming: content deltas, a chunk with the finish reason, the usage chunk when asked, [DONE]. */
export function openaiChunks(fake: FakeLlm, o: Outcome, body: Body) {
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    data: { id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] },
  });
  const usage =
    (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage && fake.openaiQuirks.usage
      ? [{ data: { id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage: openaiUsage(o) } }]
      : [];
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...o.words.map((w) => chunk({ content: w }, null)),
    chunk({}, openaiFinish(fake, o)),
    ...usage,
    { data: '[DONE]' },
  ];
}

const anthropicStop = (fake: FakeLlm, o: Outcome) => (fake.mode === 'blocked' ? 'refusal' : o.cut ? 'max_tokens' : 'end_turn');

export function anthropicBody(fake: FakeLlm, o: Outcome, model: string) {
  const thinking = o.thoughts ? [{ type: 'thinking', thinking: 'Considering the passages.', signature: 'sig' }] : [];
  const answer = fake.mode === 'blocked' || !o.words.length ? [] : [{ type: 'text', text: text(o) }];
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [...thinking, ...answer],
    stop_reason: anthropicStop(fake, o),
    stop_sequence: null,
    usage: { input_tokens: 50, output_tokens: o.thoughts + o.words.length },
  };
}

/** Messages streaming: message_start, content blocks (thinking, then text) with their deltas, message_delta, message_stop. */
export function anthropicEvents(fake: FakeLlm, o: Outcome, model: string) {
  const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
  const events = [
    ev('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 50, output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  if (o.thoughts) {
    events.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } }));
    events.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: 'Considering the passages.' } }));
    events.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'sig' } }));
    events.push(ev('content_block_stop', { index: index++ }));
  }
  if (fake.mode !== 'blocked' && o.words.length) {
    events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const w of o.words) events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: w } }));
    events.push(ev('content_block_stop', { index }));
  }
  events.push(
    ev('message_delta', { delta: { stop_reason: anthropicStop(fake, o), stop_sequence: null }, usage: { output_tokens: o.thoughts + o.words.length } }),
  );
  events.push(ev('message_stop', {}));
  return events;
}
