// The mixed workload of bench:mixed and bench:soak: the requests of each route, and what the service reports of
// itself (resident memory, event-loop delay) from /metrics.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';

const json = { 'content-type': 'application/json' };

const passengers = [
  { pclass: 3, sex: 'male', age: 22, sibsp: 1, parch: 0, embarked: 'S' },
  { pclass: 1, sex: 'female', age: 38, sibsp: 1, parch: 0, embarked: 'C' },
  { pclass: 2, sex: 'female', age: 8, sibsp: 0, parch: 2, embarked: 'S' },
];
const questions = [
  'What did Lyndon Johnson declare war on?',
  'What are the four freedoms?',
  'What did Obama say about health insurance?',
  'When did Washington give his first annual message?',
  'What did Theodore Roosevelt say about trusts?',
  'Who was the enemy in 1941?',
];
const texts = [
  'Shares of the company rose 12% after it reported record quarterly revenue and raised its guidance for the year.',
  'The hotel room was dirty and the staff were rude. I will not stay there again.',
  'Operating profit fell to EUR 3.1 mn from EUR 7.4 mn, as demand in Europe weakened and costs rose.',
];

/** A long document for sentiment: the three texts over and over, 20,000 words. */
const longText = (() => {
  const parts: string[] = [];
  for (let words = 0, i = 0; words < 20_000; i++) {
    parts.push(texts[i % texts.length]!);
    words += texts[i % texts.length]!.split(' ').length;
  }
  return parts.join(' ');
})();

export type Route = 'predict' | 'explain' | 'sentiment' | 'sentiment-long' | 'search' | 'ask';

/** autocannon's request list for a route (cycled through in order). */
export function requestsFor(route: Route): autocannon.Request[] {
  switch (route) {
    case 'predict':
      return passengers.map((p) => ({ method: 'POST', path: '/api/predict', headers: json, body: JSON.stringify(p) }));
    case 'explain':
      return passengers.map((p) => ({ method: 'POST', path: '/api/explain', headers: json, body: JSON.stringify({ ...p, plot_type: 'waterfall' }) }));
    case 'sentiment':
      return texts.map((text) => ({ method: 'POST', path: '/analyze/sentiment', headers: json, body: JSON.stringify({ text }) }));
    case 'sentiment-long':
      return [{ method: 'POST', path: '/analyze/sentiment', headers: json, body: JSON.stringify({ text: longText }) }];
    case 'search':
      return questions.map((query) => ({ method: 'POST', path: '/rag/search', headers: json, body: JSON.stringify({ query, top_k: 5 }) }));
    case 'ask':
      return questions.map((question) => ({ method: 'POST', path: '/rag/ask', headers: json, body: JSON.stringify({ question }) }));
  }
}

export interface RouteResult {
  route: Route;
  connections: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Drives one route with autocannon; `rate` caps requests per second over all its connections. */
export async function drive(url: string, route: Route, connections: number, durationS: number, rate?: number): Promise<RouteResult> {
  const r = await autocannon({
    url,
    connections,
    duration: durationS,
    requests: requestsFor(route),
    ...(rate ? { overallRate: rate } : {}),
  });
  return {
    route,
    connections,
    requests: r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

/** A metric's value from the Prometheus text of /metrics. */
export async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

/** Resident memory of the service process (MB), as it reports it. */
export async function rssMb(url: string): Promise<number> {
  return Math.round((await metric(url, 'process_resident_memory_bytes')) / 2 ** 20);
}

/** The explanation images on disk. */
export function imageCount(dataDir: string): number {
  try {
    return readdirSync(join(dataDir, 'images')).filter((n) => n.endsWith('.png') && !n.startsWith('.')).length;
  } catch {
    return 0;
  }
}

/**
 * The explanation images on disk once the requests still in flight when the load stopped have been answered: the
 * count, read every 250 ms, unchanged for a second (at most 10 s). The bound holds for every answered explanation; a
 * request the load generator gave up on at its deadline may still be saving its image.
 */
export async function settledImageCount(dataDir: string): Promise<number> {
  let last = imageCount(dataDir);
  let still = 0;
  for (let waited = 0; waited < 10_000 && still < 4; waited += 250) {
    await new Promise((ok) => setTimeout(ok, 250));
    const now = imageCount(dataDir);
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}

/** Warms every route once (models load on first use). */
export async function warm(url: string): Promise<void> {
  for (const route of ['predict', 'explain', 'sentiment', 'search', 'ask'] as Route[]) {
    for (const req of requestsFor(route)) {
      const res = await fetch(`${url}${req.path}`, { method: 'POST', headers: json, body: req.body as string });
      if (!res.ok) throw new Error(`${req.path} answered ${res.status}: ${await res.text()}`);
    }
  }
}
