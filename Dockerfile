# Multi-stage build: compile TypeScript, then a slim runtime image with production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim AS runtime
# glibc keeps freed native memory (ONNX Runtime, PGlite) in per-thread arenas; two arenas and an eager trim keep the
# resident size near what is in use (see README, "Memory").
ENV NODE_ENV=production APP_ENV=production PORT=5000 DATA_DIR=/var/lib/service MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY src/web/views ./src/web/views
COPY config ./config
COPY models ./models
COPY static ./static
COPY migrations ./migrations
COPY docs/sample-collection ./docs/sample-collection
RUN mkdir -p /var/lib/service && chown node:node /var/lib/service
USER node
EXPOSE 5000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||5000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/server.js"]
