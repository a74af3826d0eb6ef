# One image recipe for every service of the workspace, chosen at build time:
#   docker build --build-arg SERVICE=agent --build-arg PORT=3002 -t agent-platform/agent-service .
# SERVICE is the folder under services/ (package @platform/<SERVICE>-service); PORT is its contract port
# (scheduler 3001, agent 3002, ..., worker 3008) and only sets EXPOSE and the default of env PORT.
# Needs BuildKit (the default builder since Docker 23) for the pnpm store cache mounts.

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

# ---- runtime: Node and the pruned service tree only, owned by root and run as the unprivileged "node" user ----
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
ARG PORT=3002
LABEL org.opencontainers.image.title="agent-platform ${SERVICE}-service" \
      org.opencontainers.image.source="services/${SERVICE}"
ENV NODE_ENV=production \
    PORT=${PORT}
# System packages of one service only (the OCR image: poppler-utils tesseract-ocr tesseract-ocr-eng); empty for the rest.
ARG APT_PACKAGES=""
RUN if [ -n "$APT_PACKAGES" ]; then apt-get update && apt-get install -y --no-install-recommends $APT_PACKAGES && rm -rf /var/lib/apt/lists/*; fi
WORKDIR /app
COPY --from=build /out/ ./
USER node
EXPOSE ${PORT}
# Exec form: node is PID 1 and receives SIGTERM directly; main.ts drains requests for SHUTDOWN_GRACE_MS.
CMD ["node", "dist/main.js"]
