-- Explanation images, kept here when replicas share PostgreSQL (every replica then serves every image URL).
CREATE TABLE explanation_images (
  name       TEXT PRIMARY KEY,
  png        BYTEA NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX explanation_images_created_idx ON explanation_images (created_at);
