# One image recipe for every service of the workspace, chosen at build time:
#   docker build --build-arg SERVICE=agent --build-arg PORT=3002 --target runtime -t agent-platform/agent-service .
#   docker build --build-arg SERVICE=ocr --build-arg PORT=3007 --target ocr -t agent-platform/ocr-service .
#   docker build --build-arg SERVICE=graph --build-arg PORT=3006 --target graph -t agent-platform/graph-service .
# SERVICE is the folder under services/ (package @platform/<SERVICE>-service); PORT is its contract port
# (scheduler 3001, agent 3002, ..., worker 3008) and only sets EXPOSE and the default of env PORT.
# Targets: "ocr" (poppler and tesseract), "graph" (Chromium) and "runtime" (the default, every other service): the
# system packages of one service are in its image only, and each target refuses the wrong SERVICE.
# Images run as the unprivileged "node" user (uid 1000) and never write under / : give them a read-only root
# filesystem and a writable /tmp (docker-compose.yml, k8s/). Needs BuildKit (the default builder since Docker 23).

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: install the whole workspace from the lockfile, compile, then cut a pruned production tree ----
FROM ${NODE_IMAGE} AS build
ENV PNPM_HOME=/pnpm \
    CI=true
ENV PATH=${PNPM_HOME}:${PATH}
RUN npm i -g pnpm@10.34.8
WORKDIR /repo

# Download every package named in the lockfile first, so a source change does not re-download dependencies.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm fetch

COPY . .
ARG SERVICE
RUN if [ -z "${SERVICE}" ]; then echo "build arg SERVICE is required (e.g. --build-arg SERVICE=agent)" >&2; exit 1; fi; \
    if [ ! -f "services/${SERVICE}/package.json" ]; then echo "no services/${SERVICE}/package.json" >&2; exit 1; fi
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm install --frozen-lockfile --prefer-offline
# Builds the service and the workspace libraries it depends on (the "..." suffix), in dependency order.
RUN pnpm --filter "@platform/${SERVICE}-service..." run build
# --legacy: pnpm 10 otherwise requires inject-workspace-packages=true; the legacy deploy copies each workspace
# library (with its dist/) into node_modules and installs only production dependencies.
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm --filter "@platform/${SERVICE}-service" deploy --legacy --prod /out \
 && test -f /out/dist/main.js

# ---- runtime-node: what every runtime image shares (Node, production mode, the app folder) ----
FROM ${NODE_IMAGE} AS runtime-node
ARG SERVICE
ARG PORT=3002
LABEL org.opencontainers.image.title="agent-platform ${SERVICE}-service" \
      org.opencontainers.image.source="services/${SERVICE}"
ENV NODE_ENV=production \
    PORT=${PORT}
WORKDIR /app

# ---- ocr: poppler (pdftoppm rasterizes pages) and tesseract (reads them), for the OCR service only ----
FROM runtime-node AS ocr
ARG SERVICE
RUN test "${SERVICE}" = ocr || { echo "target ocr is for SERVICE=ocr (got ${SERVICE})" >&2; exit 1; }
RUN apt-get update \
 && apt-get install -y --no-install-recommends poppler-utils tesseract-ocr tesseract-ocr-eng \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ ./
USER node
EXPOSE ${PORT}
CMD ["node", "dist/main.js"]

# ---- graph: Debian's Chromium (CHROMIUM_PATH=/usr/bin/chromium) for crawls that need a browser, graph only ----
FROM runtime-node AS graph
ARG SERVICE
RUN test "${SERVICE}" = graph || { echo "target graph is for SERVICE=graph (got ${SERVICE})" >&2; exit 1; }
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ ./
USER node
EXPOSE ${PORT}
CMD ["node", "dist/main.js"]

# ---- runtime (the default target): Node and the pruned service tree only, owned by root, run as "node" ----
FROM runtime-node AS runtime
ARG SERVICE
RUN case "${SERVICE}" in ocr|graph) echo "SERVICE=${SERVICE} needs its own system packages: build with --target ${SERVICE}" >&2; exit 1;; esac
COPY --from=build /out/ ./
USER node
EXPOSE ${PORT}
# Exec form: node is PID 1 and receives SIGTERM directly; main.ts drains requests for SHUTDOWN_GRACE_MS.
CMD ["node", "dist/main.js"]
