// Local servers that speak the catalog (TMDB-shaped) and ratings (OMDb-shaped) wire formats, and misbehave on demand.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

export interface FakeMovie {
  id: number;
  title: string;
  release_date: string;
  imdb_id: string | null;
  status?: string;
  budget?: number;
  revenue?: number;
  runtime?: number;
  vote_count?: number;
  vote_average?: number;
  popularity?: number;
  /** OMDb fields */
  imdbRating?: string;
  imdbVotes?: string;
  awards?: string;
  boxOffice?: string;
}

/** What to do with one matching request instead of answering normally. */
export interface Misbehaviour {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export interface RecordedRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  at: number;
}

export class FakeApis {
  readonly movies = new Map<number, FakeMovie>();
  readonly requests: { catalog: RecordedRequest[]; ratings: RecordedRequest[] } = { catalog: [], ratings: [] };
  /** Queued misbehaviours per service, matched by a path/query predicate, consumed in order. */
  private faults: { service: 'catalog' | 'ratings'; match: (r: RecordedRequest) => boolean; m: Misbehaviour }[] = [];
  /**
   * When set, the catalog checks credentials as TMDB does: the v3 API key only as the api_key parameter, the v4 read
   * access token only as a bearer header; anything else answers 401. Unset: any request is served.
   */
  catalogKeys: { apiKey: string; readAccessToken: string } | null = null;
  /** When set, every ratings request answers OMDb's daily-limit 401. */
  ratingsLimitReached = false;
  latencyMs = 0;
  pageSize = 20;
  private servers: Server[] = [];
  catalogUrl = '';
  ratingsUrl = '';

  add(...movies: FakeMovie[]): this {
    for (const m of movies) this.movies.set(m.id, m);
    return this;
  }

  fault(service: 'catalog' | 'ratings', match: (r: RecordedRequest) => boolean, ...m: Misbehaviour[]): void {
    for (const x of m) this.faults.push({ service, match, m: x });
  }

  async start(): Promise<void> {
    const listen = (handler: (req: RecordedRequest, res: ServerResponse) => void, service: 'catalog' | 'ratings') =>
      new Promise<string>((resolve) => {
        const server = createServer((req, res) => {
          const url = new URL(req.url ?? '/', 'http://x');
          const rec = { path: url.pathname, query: url.searchParams, headers: req.headers, at: Date.now() };
          this.requests[service].push(rec);
          const i = this.faults.findIndex((f) => f.service === service && f.match(rec));
          const run = () => {
            if (i >= 0) {
              const { m } = this.faults.splice(i, 1)[0]!;
              const answer = () => {
                res.writeHead(m.status ?? 200, { 'content-type': 'application/json', ...m.headers });
                res.end(m.body ?? '{}');
              };
              if (m.delayMs) setTimeout(answer, m.delayMs);
              else answer();
              return;
            }
            handler(rec, res);
          };
          if (this.latencyMs) setTimeout(run, this.latencyMs);
          else run();
        });
        server.keepAliveTimeout = 1000;
        this.servers.push(server);
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`));
      });
    this.catalogUrl = await listen((req, res) => this.catalog(req, res), 'catalog');
    this.ratingsUrl = await listen((req, res) => this.ratings(req, res), 'ratings');
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise((r) => {
            s.closeAllConnections();
            s.close(r);
          }),
      ),
    );
  }

  private json(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private catalogAuthorised(req: RecordedRequest): boolean {
    if (!this.catalogKeys) return true;
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const apiKey = req.query.get('api_key');
    if (bearer !== undefined) return bearer === this.catalogKeys.readAccessToken && apiKey === null;
    return apiKey === this.catalogKeys.apiKey;
  }

  private catalog(req: RecordedRequest, res: ServerResponse) {
    if (!this.catalogAuthorised(req)) {
      return this.json(res, 401, { status_code: 7, status_message: 'Invalid API key: You must be granted a valid key.', success: false });
    }
    if (req.path === '/discover/movie') {
      const minVotes = Number(req.query.get('vote_count.gte') ?? 0);
      const from = req.query.get('primary_release_date.gte') ?? '0000';
      const to = req.query.get('primary_release_date.lte') ?? '9999';
      const all = [...this.movies.values()]
        .filter((m) => (m.vote_count ?? 0) >= minVotes && m.release_date >= from && m.release_date <= to)
        .sort((a, b) => (b.popularity ?? 0) - (a.popularity ?? 0) || a.id - b.id);
      const page = Number(req.query.get('page') ?? 1);
      const total_pages = Math.max(1, Math.ceil(all.length / this.pageSize));
      const results = all.slice((page - 1) * this.pageSize, page * this.pageSize).map((m) => ({
        id: m.id,
        title: m.title,
        release_date: m.release_date,
        vote_average: m.vote_average ?? 6,
        vote_count: m.vote_count ?? 100,
        popularity: m.popularity ?? 20,
        adult: false,
        video: false,
        genre_ids: [18],
        original_language: 'en',
      }));
      return this.json(res, 200, { page, results, total_pages, total_results: all.length });
    }
    const m = /^\/movie\/(\d+)$/.exec(req.path);
    const movie = m ? this.movies.get(Number(m[1])) : undefined;
    if (!movie) return this.json(res, 404, { success: false, status_code: 34, status_message: 'The resource you requested could not be found.' });
    return this.json(res, 200, {
      id: movie.id,
      imdb_id: movie.imdb_id,
      title: movie.title,
      original_title: movie.title,
      overview: `About ${movie.title}.`,
      tagline: '',
      status: movie.status ?? 'Released',
      release_date: movie.release_date,
      budget: movie.budget ?? 1_000_000,
      revenue: movie.revenue ?? 5_000_000,
      runtime: movie.runtime ?? 100,
      vote_average: movie.vote_average ?? 6,
      vote_count: movie.vote_count ?? 100,
      popularity: movie.popularity ?? 20,
      adult: false,
      genres: [{ id: 18, name: 'Drama' }],
      production_companies: [{ id: 1, name: 'Studio One', origin_country: 'US' }],
    });
  }

  private ratings(req: RecordedRequest, res: ServerResponse) {
    if (this.ratingsLimitReached) {
      return this.json(res, 401, { Response: 'False', Error: 'Request limit reached!' });
    }
    const id = req.query.get('i');
    const movie = [...this.movies.values()].find((m) => m.imdb_id === id);
    if (!movie) return this.json(res, 200, { Response: 'False', Error: 'Incorrect IMDb ID.' });
    return this.json(res, 200, {
      Title: movie.title,
      Year: movie.release_date.slice(0, 4),
      Rated: 'PG-13',
      Released: movie.release_date,
      Runtime: '100 min',
      Genre: 'Drama',
      Director: 'Jane Doe',
      Writer: 'John Roe',
      Actors: 'A. Actor, B. Actor',
      Plot: 'A plot.',
      Language: 'English',
      Country: 'United States',
      Awards: movie.awards ?? 'N/A',
      Poster: 'N/A',
      Ratings: [
        { Source: 'Internet Movie Database', Value: `${movie.imdbRating ?? '7.0'}/10` },
        { Source: 'Rotten Tomatoes', Value: '80%' },
        { Source: 'Metacritic', Value: '70/100' },
      ],
      Metascore: '70',
      imdbRating: movie.imdbRating ?? '7.0',
      imdbVotes: movie.imdbVotes ?? '10,000',
      imdbID: movie.imdb_id,
      Type: 'movie',
      DVD: 'N/A',
      BoxOffice: movie.boxOffice ?? '$1,234,567',
      Production: 'N/A',
      Website: 'N/A',
      Response: 'True',
    });
  }
}
