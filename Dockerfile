# Parley in one image: the web server, the engine (inline) and, unless DATABASE_URL is set, an embedded
# PostgreSQL whose data lives in the /data volume.
#
#   docker build -t parley .
#   docker run -d --init -p 3000:3000 -v parley-data:/data -e APP_HOST=parley.example.com parley
#   docker run -d --init -p 3000:3000 -e DATABASE_URL=postgres://user:pass@db:5432/parley -e APP_HOST=... parley

FROM node:20-bookworm-slim AS build
WORKDIR /app
# patches/: fixes applied to dependencies by npm's postinstall (patch-package, ADR 052).
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000 \
    PARLEY_DATA_DIR=/data
WORKDIR /app
# embedded-postgres refuses to run as root without creating an OS user: run everything as `node` (uid 1000).
RUN mkdir -p /data && chown node:node /data
COPY --from=build --chown=node:node /app /app
USER node
VOLUME ["/data"]
# 3000: HTTP (put a TLS reverse proxy in front). 2525: reserved for inbound email (SMTP) of the email channels.
EXPOSE 3000 2525
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Already built: start the server directly (not `npm start`, which builds), as PID 1 so `docker stop`'s SIGTERM
# reaches it and it shuts down gracefully (requests, jobs, then the embedded PostgreSQL). The node flags are
# `npm run serve`'s (a larger young generation: ADR 137).
CMD ["node", "--max-semi-space-size=64", "--enable-source-maps", "build/server/index.js"]
