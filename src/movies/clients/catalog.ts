// Catalog client (TMDB-shaped): /discover/movie and /movie/{id}; the key goes where its kind belongs (api_key or bearer).
import { z } from 'zod';
import { ApiClient, ApiError, type ClientOptions } from './http.js';

const DiscoverSchema = z.object({
  page: z.int(),
  total_pages: z.int(),
  results: z.array(
    z.object({
      id: z.int(),
      title: z.string(),
      release_date: z.string().optional().nullable(),
      vote_average: z.number().optional().nullable(),
      vote_count: z.number().optional().nullable(),
      popularity: z.number().optional().nullable(),
    }),
  ),
});

const named = z
  .array(z.object({ name: z.string() }).loose())
  .optional()
  .nullable();

export const CatalogDetailsSchema = z
  .object({
    id: z.int(),
    imdb_id: z.string().nullable().optional(),
    title: z.string(),
    original_title: z.string().nullable().optional(),
    overview: z.string().nullable().optional(),
    tagline: z.string().nullable().optional(),
    status: z.string().nullable().optional(),
    release_date: z.string().nullable().optional(),
    budget: z.number().nullable().optional(),
    revenue: z.number().nullable().optional(),
    runtime: z.number().nullable().optional(),
    vote_average: z.number().nullable().optional(),
    vote_count: z.number().nullable().optional(),
    popularity: z.number().nullable().optional(),
    genres: named,
    production_companies: named,
  })
  .loose();

export type DiscoverPage = z.output<typeof DiscoverSchema>;
export type CatalogDetails = z.output<typeof CatalogDetailsSchema>;

export interface DiscoverQuery {
  page: number;
  minPopularity: number;
  minVoteCount: number;
  minReleaseYear: number;
  maxReleaseYear?: number;
}

function parse<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const r = schema.safeParse(data);
  if (!r.success) throw new ApiError('invalid_response', `${what}: unexpected shape at ${r.error.issues[0]?.path.join('.') || 'root'}`);
  return r.data;
}

/** How the key is sent: the api_key query parameter (TMDB's v3 API key) or an Authorization bearer header (v4 token). */
export type CatalogAuth = 'query' | 'bearer';

/**
 * TMDB shows two credentials on the account page: the v3 "API Key" (32 hexadecimal characters), accepted only as the
 * api_key parameter, and the v4 "API Read Access Token" (a JWT), accepted only as a bearer token. An explicit choice
 * (CATALOG_AUTH) wins over the guess.
 */
export function catalogAuth(key: string, explicit?: CatalogAuth): CatalogAuth {
  if (explicit) return explicit;
  return /^[0-9a-f]{32}$/i.test(key.trim()) ? 'query' : 'bearer';
}

export class CatalogClient extends ApiClient {
  constructor(opts: Omit<ClientOptions, 'service'> & { apiKey?: string; auth?: CatalogAuth }) {
    super({ ...opts, service: 'catalog' });
    this.apiKey = opts.apiKey?.trim() || undefined;
    this.auth = this.apiKey ? catalogAuth(this.apiKey, opts.auth) : undefined;
  }

  private readonly apiKey: string | undefined;
  readonly auth: CatalogAuth | undefined;

  protected override headers() {
    return { ...super.headers(), ...(this.apiKey && this.auth === 'bearer' ? { authorization: `Bearer ${this.apiKey}` } : {}) };
  }

  protected override authQuery(): Record<string, string> {
    return this.apiKey && this.auth === 'query' ? { api_key: this.apiKey } : {};
  }

  protected override secrets(): string[] {
    return this.apiKey ? [this.apiKey] : [];
  }

  async discover(q: DiscoverQuery): Promise<DiscoverPage> {
    const data = await this.get('discover/movie', {
      'popularity.gte': q.minPopularity,
      'vote_count.gte': q.minVoteCount,
      'primary_release_date.gte': `${q.minReleaseYear}-01-01`,
      'primary_release_date.lte': q.maxReleaseYear ? `${q.maxReleaseYear}-12-31` : undefined,
      sort_by: 'popularity.desc',
      include_adult: false,
      include_video: false,
      page: q.page,
    });
    return parse(DiscoverSchema, data, 'discover');
  }

  async details(tmdbId: number, signal?: AbortSignal): Promise<CatalogDetails> {
    return parse(CatalogDetailsSchema, await this.get(`movie/${tmdbId}`, {}, signal), `movie ${tmdbId}`);
  }
}
