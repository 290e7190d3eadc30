import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkText } from '../../src/text/sentiment/chunking.js';
import { type LoadedModels, NOT_LOADED, defaultLoader, interpretFromScores } from '../../src/text/sentiment/service.js';
import { SENTIMENT_INLINE_CHARS } from '../../src/text/plugin.js';
import { makeApp } from '../helpers/app.js';
import { FakeLlm, baseUrlFor } from '../helpers/fake-llm.js';

const realLoad = defaultLoader('models/text/sentiment', 'models/text/emotion');
const post = (app: Awaited<ReturnType<typeof makeApp>>, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/analyze/sentiment', payload: payload as string, headers });

describe('POST /analyze/sentiment without an LLM key', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  let models: LoadedModels;
  beforeAll(async () => {
    app = await makeApp({ SENTIMENT_MAX_CHARS: 50_000 });
    models = await realLoad();
  });
  afterAll(() => app.close());

  it('reads words on either side of a control character as two words', async () => {
    const spaced = (await post(app, { text: 'The service was bad bad.' })).json();
    const joined = (await post(app, { text: 'The service was bad\u0000bad.' })).json();
    expect(joined.scores).toEqual(spaced.scores);
    expect(joined.warnings).toEqual([]);
  });

  it('warns when the model knows none or few of the words, and says nothing for plain English', async () => {
    const emoji = (await post(app, { text: '😡😡😡' })).json();
    expect(emoji.warnings).toEqual([expect.stringMatching(/knows none of the words/)]);
    const mostly = (await post(app, { text: 'Xyzzqf plughq frobnozz wibblezork good' })).json();
    expect(mostly.warnings).toEqual([expect.stringMatching(/knows only 1 of the text's 5 words/)]);
    expect((await post(app, { text: 'The food was cold and bland.' })).json().warnings).toEqual([]);
    const page = await app.inject({
      method: 'POST',
      url: '/sentiment',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `text=${encodeURIComponent('😡😡😡')}`,
    });
    expect(page.body).toMatch(/<p class="notice">The sentiment model knows none of the words/);
  });

  it('answers the spec fields for a short text, with a fallback interpretation from the scores', async () => {
    const res = await post(app, { text: 'Profit rose 20% and beat expectations.' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ sentiment: 'positive', num_chunks: 1, llm_powered: false, llm: { fallback_reason: 'no_key' } });
    expect(Object.keys(body.scores).sort()).toEqual(['negative', 'neutral', 'positive']);
    expect(Object.keys(body.emotions).sort()).toEqual(['anger', 'disgust', 'fear', 'joy', 'neutral', 'sadness', 'surprise']);
    expect(body.confidence).toBe(body.scores.positive);
    expect(body.contextual_sentiment).toMatch(/positive/);
    expect(body.models).toEqual({ sentiment: 'models/text/sentiment', emotion: 'models/text/emotion' });
  });

  it('averages the chunks of a long text, each chunk counting the same', async () => {
    const text = `${'The company reported record profit and strong growth. '.repeat(70)}${'The firm filed for bankruptcy after heavy losses. '.repeat(70)}`;
    const body = (await post(app, { text })).json();
    const count = (s: string) => models.sentiment.tokenizer.encode(s, { add_special_tokens: false }).length;
    const chunks = chunkText(text, count);
    expect(body.num_chunks).toBe(chunks.length);
    expect(chunks.length).toBeGreaterThan(1);
    const per = await Promise.all(chunks.map(async (c) => (await models.sentiment(c, { top_k: null })) as { label: string; score: number }[]));
    const meanOf = (label: string) => per.reduce((s, r) => s + r.find((x) => x.label === label)!.score, 0) / per.length;
    for (const label of ['positive', 'negative', 'neutral']) expect(body.scores[label]).toBeCloseTo(meanOf(label), 3);
    expect(body.contextual_sentiment).toMatch(/parts/);
  });

  it('scores a text longer than one chunk in a worker thread, and a short one on the event loop', async () => {
    const done = () => app.workers.stats().completed;
    const before = done();
    const short = (await post(app, { text: 'Revenue fell and the outlook is weak.' })).json();
    expect(short.num_chunks).toBe(1);
    expect(done()).toBe(before);
    const text = 'The company reported record profit and strong growth, and investors cheered the results. '.repeat(40);
    expect(text.length).toBeGreaterThan(SENTIMENT_INLINE_CHARS);
    const long = (await post(app, { text })).json();
    expect(done()).toBe(before + 1);
    // The same numbers as the event loop's own models give.
    const count = (s: string) => models.sentiment.tokenizer.encode(s, { add_special_tokens: false }).length;
    const chunks = chunkText(text, count);
    expect(long.num_chunks).toBe(chunks.length);
    const per = await Promise.all(chunks.map(async (c) => (await models.sentiment(c, { top_k: null })) as { label: string; score: number }[]));
    const meanOf = (label: string) => per.reduce((s, r) => s + r.find((x) => x.label === label)!.score, 0) / per.length;
    for (const label of ['positive', 'negative', 'neutral']) expect(long.scores[label]).toBeCloseTo(meanOf(label), 4);
  });

  it.each([
    [
      'a missing text and an unknown field',
      { other: 'x' },
      [
        { loc: ['text'], type: 'missing' },
        { loc: ['other'], type: 'unrecognized_keys' },
      ],
    ],
    ['a number', { text: 42 }, [{ loc: ['text'], type: 'invalid_type' }]],
    ['null', { text: null }, [{ loc: ['text'], type: 'invalid_type' }]],
    ['an array body', ['text'], [{ loc: ['body'], type: 'invalid_type' }]],
  ])('400 Invalid input format for %s, naming the field and why', async (_name, payload, errors) => {
    const res = await post(app, payload);
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.detail).toBe('Invalid input format');
    expect(body.errors).toHaveLength(errors.length);
    expect(body.errors).toEqual(expect.arrayContaining(errors.map((e) => ({ ...e, msg: expect.any(String) }))));
  });

  it('400 for malformed JSON, and for an empty or blank text with the reason', async () => {
    const bad = await post(app, '{"text": "unterminated', { 'content-type': 'application/json' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: 'Invalid input format', reason: expect.stringMatching(/^Request body is not valid JSON/) });
    // Blank once read: control characters (a NUL gave 500), a lone surrogate, zero-width, formatting and combining
    // characters (these were scored "positive 0.68", the models' answer to an empty input).
    for (const text of ['', '   \n\t ', '\u0000', '\u0000\ud800', '\udc00', '\u200b\u200b', '\u00ad\u0301\ufeff', '\u{E0041}']) {
      const res = await post(app, { text });
      expect(res.statusCode, JSON.stringify(text)).toBe(400);
      expect(res.json()).toEqual({ detail: 'Invalid input format', reason: 'text is empty' });
    }
    // A control character between words is a space: the words are read.
    expect((await post(app, { text: 'a wonderful\u0000movie' })).statusCode).toBe(200);
  });

  it('415 for a body in a media type it does not take', async () => {
    const res = await post(app, '<text>I love this movie</text>', { 'content-type': 'application/xml' });
    expect(res.statusCode).toBe(415);
    expect(res.json().detail).toMatch(/Content-Type/);
  });

  it('413 for a text over the configured limit', async () => {
    const res = await post(app, { text: 'a '.repeat(30_000) });
    expect(res.statusCode).toBe(413);
    expect(res.json().detail).toMatch(/at most 50000 characters/);
  });
});

describe('model loading states', () => {
  it('the first request waits for the load, others meanwhile get 503, and only one load runs', async () => {
    let loads = 0;
    // The load starts, then waits for the test's go-ahead: the second request arrives during it however slow the machine.
    let started!: () => void;
    const loading = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const app = await makeApp(
      {},
      {
        text: {
          loadSentimentModels: async () => {
            loads++;
            started();
            await released;
            return realLoad();
          },
        },
      },
    );
    const first = post(app, { text: 'Shares jumped.' });
    await loading;
    // A second request that waited for the load would never answer before the release: give it 10 s, then fail.
    const during = await Promise.race([
      post(app, { text: 'Shares jumped.' }),
      sleep(10_000).then(() => ({ statusCode: 'no answer during the load', json: () => null })),
    ]);
    release();
    expect(during.statusCode).toBe(503);
    expect(during.json()).toMatchObject({ detail: NOT_LOADED });
    expect((await first).statusCode).toBe(200);
    expect((await post(app, { text: 'Shares jumped.' })).statusCode).toBe(200);
    expect(loads).toBe(1);
    await app.close();
  });

  it('a failed load gives 503 and is retried by a later request', async () => {
    let loads = 0;
    const app = await makeApp(
      {},
      {
        text: {
          loadSentimentModels: async () => {
            if (++loads === 1) throw new Error('out of memory');
            return realLoad();
          },
        },
      },
    );
    const failed = await post(app, { text: 'Revenue fell.' });
    expect(failed.statusCode).toBe(503);
    expect(failed.json().detail).toBe(NOT_LOADED);
    expect((await app.inject({ url: '/health' })).json().components.sentiment).toMatchObject({ ready: false, state: 'failed', error: 'out of memory' });
    expect((await post(app, { text: 'Revenue fell.' })).statusCode).toBe(200);
    expect(loads).toBe(2);
    await app.close();
  });

  it('an inference error gives 500 "Analysis failed: ..." with the request id and no internal message', async () => {
    const app = await makeApp(
      {},
      {
        text: {
          loadSentimentModels: async () => {
            const m = await realLoad();
            const broken = Object.assign(
              async () => {
                throw new Error('tensor shape mismatch');
              },
              { tokenizer: m.sentiment.tokenizer },
            );
            return { ...m, sentiment: broken as unknown as LoadedModels['sentiment'] };
          },
        },
      },
    );
    const res = await post(app, { text: 'Anything.' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: `Analysis failed: the models could not process this text (request id ${String(res.headers['x-request-id'])})` });
    expect(res.body).not.toContain('tensor shape mismatch');
    await app.close();
  });
});

describe('LLM interpretation and its fallbacks', () => {
  const fake = new FakeLlm();
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    await fake.start();
    app = await makeApp({ LLM_API_KEY: 'k-1', LLM_PROVIDER: 'gemini', LLM_BASE_URL: baseUrlFor(fake, 'gemini'), LLM_TIMEOUT_MS: 800 });
  });
  afterAll(async () => {
    await app.close();
    await fake.stop();
  });

  it('uses the LLM text when it answers, sending only the first 600 characters, the scores and three emotions', async () => {
    fake.mode = 'ok';
    fake.calls.length = 0;
    const text = `${'Results were excellent and the guidance was raised. '.repeat(12)}SECRET-TAIL-MARKER`;
    const body = (await post(app, { text })).json();
    expect(body.llm_powered).toBe(true);
    expect(body.contextual_sentiment).toBe(fake.reply);
    const prompt = JSON.stringify(fake.calls[0]!.body);
    expect(prompt).toContain(text.slice(0, 600).slice(-40));
    expect(prompt).not.toContain('SECRET-TAIL-MARKER');
    expect(prompt).toMatch(/positive \d\.\d\d, negative \d\.\d\d, neutral \d\.\d\d/);
    expect(prompt).toMatch(/Top emotions: \w+ \d\.\d\d, \w+ \d\.\d\d, \w+ \d\.\d\d\./);
  });

  it.each([
    ['500', 'error'],
    ['blocked', 'blocked'],
    ['truncated', 'truncated'],
    ['timeout', 'timeout'],
  ] as const)('falls back when the provider answers %s', async (mode, reason) => {
    fake.mode = mode;
    const res = await post(app, { text: 'The bank reported a surprise loss and cut its dividend.' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.llm_powered).toBe(false);
    expect(body.llm).toEqual({ fallback_reason: reason, detail: expect.any(String) });
    expect(body.contextual_sentiment).not.toBe(fake.reply);
    expect(body.contextual_sentiment.length).toBeGreaterThan(40);
  });
});

describe('fallback interpretation', () => {
  it('is specific to the scores, not a canned sentence', () => {
    const e = { anger: 0.05, joy: 0.6, fear: 0.05, sadness: 0.05, surprise: 0.15, disgust: 0.02, neutral: 0.08 };
    const a = interpretFromScores({ positive: 0.9, negative: 0.05, neutral: 0.05 }, e, ['positive']);
    const b = interpretFromScores({ positive: 0.4, negative: 0.35, neutral: 0.25 }, { ...e, joy: 0.1, neutral: 0.7 }, ['positive', 'negative', 'positive']);
    expect(a).toMatch(/strongly positive \(90% positive\)/);
    expect(a).toMatch(/dominant emotion is joy \(60%\)/);
    expect(b).toMatch(/only slightly positive.*negative signals are close behind at 35%/);
    expect(b).toMatch(/mostly matter-of-fact \(70% neutral\)/);
    // Neutral at a third, beside anger at a third, is no majority: the text does not say "mostly".
    const even = interpretFromScores({ positive: 0.1, negative: 0.6, neutral: 0.3 }, { ...e, joy: 0.02, anger: 0.33, neutral: 0.34 }, ['negative']);
    expect(even).toMatch(/no feeling stands out: matter-of-fact leads with 34% \(neutral\), and the strongest emotion is anger at 33%/);
    expect(even).not.toMatch(/mostly/);
    expect(b).toMatch(/2 of its 3 parts lean positive/);
    expect(a).not.toBe(b);
  });

  it('names the runners-up of the dominant emotion only when they reach 5%', () => {
    const nearlyAllJoy = { anger: 0.001, joy: 0.985, fear: 0.001, sadness: 0.002, surprise: 0.006, disgust: 0.001, neutral: 0.004 };
    const text = interpretFromScores({ positive: 0.99, negative: 0.005, neutral: 0.005 }, nearlyAllJoy, ['positive']);
    expect(text).toMatch(/dominant emotion is joy \(99%\), with no other emotion at 5% or more\./);
    expect(text).not.toMatch(/\(0%\)|\(1%\)/);
  });

  const calm = { anger: 0.02, joy: 0.03, fear: 0.02, sadness: 0.02, surprise: 0.03, disgust: 0.01, neutral: 0.87 };

  it.each([
    ['positive with joy', { positive: 0.85, negative: 0.05, neutral: 0.1 }, { ...calm, joy: 0.9, neutral: 0.05 }, /strongly positive \(85% positive\)/],
    ['negative with anger', { positive: 0.05, negative: 0.7, neutral: 0.25 }, { ...calm, anger: 0.75, neutral: 0.15 }, /clearly negative \(70% negative\)/],
    ['neutral and matter-of-fact', { positive: 0.1, negative: 0.1, neutral: 0.8 }, calm, /strongly neutral in tone \(80% neutral\)/],
    ['positive news told without emotion', { positive: 0.75, negative: 0.05, neutral: 0.2 }, calm, /clearly positive \(75% positive\)/],
  ])('when the sentiment and the dominant emotion agree (%s), reads them as one picture', (_name, scores, emotions, lead) => {
    const text = interpretFromScores(scores, emotions, ['neutral']);
    expect(text).toMatch(lead);
    expect(text).not.toMatch(/disagree|while the emotion model/);
  });

  it.each([
    ['neutral against strong joy', { positive: 0.18, negative: 0.1, neutral: 0.72 }, { ...calm, joy: 0.997, neutral: 0.0 }, 'neutral', 'strong joy \\(100%\\)'],
    [
      'neutral against clear anger',
      { positive: 0.05, negative: 0.11, neutral: 0.84 },
      { ...calm, anger: 0.6, neutral: 0.2 },
      'neutral',
      'clear anger \\(60%\\)',
    ],
    ['positive against anger', { positive: 0.7, negative: 0.1, neutral: 0.2 }, { ...calm, anger: 0.85, neutral: 0.05 }, 'positive', 'strong anger \\(85%\\)'],
    ['negative against joy', { positive: 0.2, negative: 0.65, neutral: 0.15 }, { ...calm, joy: 0.7, neutral: 0.1 }, 'negative', 'clear joy \\(70%\\)'],
  ])('when they disagree (%s), says so instead of contradicting itself', (_name, scores, emotions, label, emotion) => {
    const text = interpretFromScores(scores, emotions, [label as 'neutral']);
    expect(text).toMatch(new RegExp(`sentiment model reads this as \\w+ ${label} .*while the emotion model finds ${emotion}`));
    if (label === 'neutral') expect(text).toMatch(/feeling without taking a stance/);
    else expect(text).toMatch(/the two disagree/);
    expect(text).not.toMatch(/neutral in tone|matter-of-fact|dominant emotion/);
  });

  it('a weak emotion against the sentiment is not called a disagreement', () => {
    const text = interpretFromScores({ positive: 0.1, negative: 0.1, neutral: 0.8 }, { ...calm, joy: 0.4, neutral: 0.35 }, ['neutral']);
    expect(text).toMatch(/strongly neutral in tone/);
    expect(text).not.toMatch(/while the emotion model/);
  });
});
