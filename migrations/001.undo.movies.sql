DROP TABLE IF EXISTS collection_runs;
DROP TABLE IF EXISTS api_quota;
DROP TABLE IF EXISTS ratings_movies;
DROP TABLE IF EXISTS catalog_movies;
DROP TABLE IF EXISTS movies;
