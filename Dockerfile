# infraledger: built with the same `npm run build` as `npm start` (server, web UI, GraphiQL), run as
# the unprivileged `node` user. Works for embedded mode (a volume at /data) and for
# PostgreSQL/EventStoreDB (set DATABASE_URL, SECRET_KEY, TOKEN_SIGNING_KEY, EVENT_STORE, EVENTSTOREDB_URL).
# test/e2e/docker-image.e2e.spec.ts checks that this file copies every input of the build and every
# file the service serves; no test here builds the image itself (no Docker engine in CI).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: a `prepare` script would try to build before the sources are copied, and no
# dependency needs its install script (esbuild and rollup ship their binaries as packages).
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY scripts ./scripts
# The server, the web UI and GraphiQL (assets content-hashed and precompressed, brotli and gzip).
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the service: only /data is writable by it.
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]
