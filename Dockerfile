# Multi-stage build: compile TypeScript, then a slim runtime image with production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/migrate.ts ./scripts/migrate.ts
RUN npm run build

FROM node:24-bookworm-slim AS runtime
# glibc keeps freed native memory (ONNX Runtime, PGlite) in per-thread arenas; two arenas and an eager trim keep the
# resident size near what is in use (see README, "Memory").
ENV NODE_ENV=production APP_ENV=production PORT=5000 DATA_DIR=/var/lib/service MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY src/web/views ./src/web/views
COPY src/infra/worker-entry.mjs ./src/infra/worker-entry.mjs
# npm run collect, index, migrate and models:pull run the compiled tools through this launcher (tsx is not installed).
COPY scripts/cli.mjs ./scripts/cli.mjs
COPY config ./config
COPY models ./models
COPY static ./static
COPY migrations ./migrations
COPY docs/sample-collection ./docs/sample-collection
# Hub models are cached outside DATA_DIR, so that models pulled into the image are not hidden by a volume on DATA_DIR.
ENV MODEL_CACHE_DIR=/var/cache/service/models
RUN mkdir -p /var/lib/service /var/cache/service/models && chown -R node:node /var/lib/service /var/cache/service
USER node
# Optional: --build-arg PULL_MODELS=hub downloads the production text models (config/hub-models.env) into the image
# at build time (network needed then, not at run time); run the image with those settings (docker run --env-file
# config/hub-models.env ...). HF_ENDPOINT may name a mirror; PULL_MODELS=configured pulls the Hub ids set by
# SENTIMENT_MODEL etc. passed as build arguments.
ARG PULL_MODELS=
ARG HF_ENDPOINT=https://huggingface.co
ARG SENTIMENT_MODEL=models/text/sentiment
ARG EMOTION_MODEL=models/text/emotion
ARG EMBEDDING_MODEL=models/text/embedder
ARG RERANK_MODEL=Xenova/ms-marco-MiniLM-L-6-v2
ARG READER_MODEL=
RUN if [ "$PULL_MODELS" = "configured" ]; then \
      HF_ENDPOINT="$HF_ENDPOINT" SENTIMENT_MODEL="$SENTIMENT_MODEL" EMOTION_MODEL="$EMOTION_MODEL" EMBEDDING_MODEL="$EMBEDDING_MODEL" \
        RERANK_MODEL="$RERANK_MODEL" READER_MODEL="$READER_MODEL" npm run models:pull; \
    elif [ -n "$PULL_MODELS" ]; then HF_ENDPOINT="$HF_ENDPOINT" npm run models:pull -- --preset "$PULL_MODELS"; fi
# The command-line tools, in a running container: docker exec <container> npm run collect -- --dry-run (likewise
# npm run index, npm run migrate, npm run models:pull); they go through the service when it runs on the same DATA_DIR.
EXPOSE 5000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||5000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=4", "dist/src/server.js"]
