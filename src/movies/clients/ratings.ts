// Ratings client (OMDb-shaped): /?i=<imdb id>&apikey=<key>; OMDb reports errors inside HTTP 200 bodies.
import { z } from 'zod';
import { ApiClient, ApiError, type ClientOptions } from './http.js';

export const RatingsSchema = z
  .object({
    Response: z.literal('True'),
    imdbID: z.string(),
    Title: z.string().optional(),
    Rated: z.string().optional(),
    Director: z.string().optional(),
    Actors: z.string().optional(),
    Awards: z.string().optional(),
    BoxOffice: z.string().optional(),
    imdbRating: z.string().optional(),
    imdbVotes: z.string().optional(),
    Metascore: z.string().optional(),
    Ratings: z.array(z.object({ Source: z.string(), Value: z.string() })).optional(),
  })
  .loose();

export type RatingsData = z.output<typeof RatingsSchema>;

export const IMDB_ID = /^tt\d{7,8}$/;

export class RatingsClient extends ApiClient {
  constructor(opts: Omit<ClientOptions, 'service'> & { apiKey?: string }) {
    super({ ...opts, service: 'ratings' });
    this.apiKey = opts.apiKey;
  }

  private readonly apiKey: string | undefined;

  protected override secrets(): string[] {
    return this.apiKey ? [this.apiKey] : [];
  }

  protected override async interpret(res: Response): Promise<unknown> {
    if (res.status === 401) {
      const body = await res.text();
      // OMDb answers 401 "Request limit reached!" when the day's quota is spent: stop for the day, no retry.
      if (/limit reached/i.test(body)) {
        await this.markExhausted();
        throw new ApiError('quota', 'ratings daily request limit reached', 401);
      }
      throw new ApiError('auth', 'ratings API key refused (401)', 401);
    }
    const data = await super.interpret(res);
    const err = data as { Response?: string; Error?: string };
    if (err?.Response === 'False') {
      if (/limit reached/i.test(err.Error ?? '')) {
        await this.markExhausted();
        throw new ApiError('quota', 'ratings daily request limit reached', res.status);
      }
      if (/not found|incorrect imdb id/i.test(err.Error ?? '')) throw new ApiError('not_found', err.Error ?? 'not found', res.status);
      throw new ApiError('client', `ratings service: ${err.Error ?? 'unknown error'}`, res.status);
    }
    return data;
  }

  async byImdbId(imdbId: string, signal?: AbortSignal): Promise<RatingsData> {
    if (!IMDB_ID.test(imdbId)) throw new ApiError('client', `not an IMDb id: ${imdbId}`);
    const data = await this.get('', { i: imdbId, apikey: this.apiKey }, signal);
    const r = RatingsSchema.safeParse(data);
    if (!r.success) throw new ApiError('invalid_response', `ratings ${imdbId}: unexpected shape at ${r.error.issues[0]?.path.join('.')}`);
    return r.data;
  }
}
