-- Movie collection: the spec's movies table, catalog and ratings details, quota ledger and run history.
CREATE TABLE movies (
  movie_id            SERIAL PRIMARY KEY,
  tmdb_id             INTEGER NOT NULL UNIQUE,
  imdb_id             TEXT,
  title               TEXT NOT NULL,
  release_date        DATE,
  last_catalog_update TIMESTAMPTZ,
  last_ratings_update TIMESTAMPTZ,
  last_full_refresh   TIMESTAMPTZ,
  data_frozen         BOOLEAN NOT NULL DEFAULT FALSE,
  -- consecutive refresh cycles in which no volatile field changed (freezing needs 3)
  unchanged_refreshes INTEGER NOT NULL DEFAULT 0,
  created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX movies_refresh_idx ON movies (data_frozen, last_catalog_update, last_ratings_update);

CREATE TABLE catalog_movies (
  tmdb_id              INTEGER PRIMARY KEY REFERENCES movies (tmdb_id) ON DELETE CASCADE,
  imdb_id              TEXT,
  title                TEXT,
  original_title       TEXT,
  overview             TEXT,
  tagline              TEXT,
  status               TEXT,
  release_date         DATE,
  budget               BIGINT,
  revenue              BIGINT,
  runtime              INTEGER,
  vote_average         DOUBLE PRECISION,
  vote_count           INTEGER,
  popularity           DOUBLE PRECISION,
  genres               TEXT[] NOT NULL DEFAULT '{}',
  production_companies TEXT[] NOT NULL DEFAULT '{}',
  raw                  JSONB NOT NULL,
  fetched_at           TIMESTAMPTZ NOT NULL
);

CREATE TABLE ratings_movies (
  imdb_id         TEXT PRIMARY KEY,
  title           TEXT,
  imdb_rating     DOUBLE PRECISION,
  imdb_votes      INTEGER,
  rotten_tomatoes INTEGER,
  metacritic      INTEGER,
  awards          TEXT,
  box_office_usd  BIGINT,
  director        TEXT,
  actors          TEXT,
  rated           TEXT,
  raw             JSONB NOT NULL,
  fetched_at      TIMESTAMPTZ NOT NULL
);

CREATE TABLE api_quota (
  service TEXT NOT NULL,
  day     DATE NOT NULL,
  used    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (service, day)
);

CREATE TABLE collection_runs (
  run_id      SERIAL PRIMARY KEY,
  started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at TIMESTAMPTZ,
  status      TEXT NOT NULL,
  trigger     TEXT NOT NULL,
  parameters  JSONB NOT NULL DEFAULT '{}',
  stats       JSONB,
  errors      JSONB NOT NULL DEFAULT '[]'
);
