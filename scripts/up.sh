#!/usr/bin/env bash
# Runs the whole platform locally: FerretDB, Redis and every service, in the foreground. Ctrl-C stops the services.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/infra.sh
bash scripts/install-ocr.sh # poppler and tesseract, for the OCR service's scanned pages
bash scripts/install-graph.sh # Debian's Chromium, for the graph service's playwright:chromium crawls
pnpm install --frozen-lockfile --prefer-offline >/dev/null
pnpm run build >/dev/null

# Local secrets, made once and kept out of git; one missing from an older dev.env is added.
# INTERNAL_SERVICE_SECRET is shared by the agent, the worker (which runs agents on their owners' behalf), rag (which
# asks the agent service whose credentials are whose) and rai (which the agent's RAI feature asks);
# SCHEDULE_SECRET_ENCRYPTION_KEY by the scheduler and the worker (HTTP schedules' header values).
DEV_ENV="$RUN_DIR/dev.env"
(umask 077 && touch "$DEV_ENV")
chmod 600 "$DEV_ENV" # also for a dev.env made before this script restricted it
for var in CREDENTIALS_ENCRYPTION_KEY WEBHOOK_SECRET_ENCRYPTION_KEY SCHEDULE_SECRET_ENCRYPTION_KEY INTERNAL_SERVICE_SECRET; do
  if ! grep -q "^$var=" "$DEV_ENV"; then
    if [ -s "$DEV_ENV" ] && [ -n "$(tail -c1 "$DEV_ENV")" ]; then echo >>"$DEV_ENV"; fi
    echo "$var=$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("hex"))')" >>"$DEV_ENV"
  fi
done
set -a
# shellcheck disable=SC1090
source "$DEV_ENV"
MONGODB_URI="mongodb://127.0.0.1:${FERRETDB_PORT}"
REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"
FERRETDB_POSTGRESQL_URL="$PG_URL" # where libs/db's FerretDB adapter takes its locks and reads (libs/db README)
# Used by the scheduler and the worker.
AGENT_SERVICE_URL="http://127.0.0.1:3002"
PUBLIC_BASE_URL="http://127.0.0.1:3001"
# Used by rag (credential checks), graph (opening RAG credentials) and the gateway.
AGENT_URL="http://127.0.0.1:3002"
# The gateway's upstreams: one base URL (port 8080) for every service.
SCHEDULER_URL="http://127.0.0.1:3001"
RAG_URL="http://127.0.0.1:3003"
RAI_URL="http://127.0.0.1:3004"
VOICE_URL="http://127.0.0.1:3005"
OCR_URL="http://127.0.0.1:3007"
GRAPH_URL="http://127.0.0.1:3006" # also rag's (retrieval); RAG_URL is also the graph's and the agent's
set +a

# name:port of every service.
SERVICES=(scheduler:3001 agent:3002 rag:3003 rai:3004 voice:3005 graph:3006 ocr:3007 worker:3008 gateway:8080)
PIDS=()
WATCH_PID=""
stop() {
  for pid in "${PIDS[@]}" $WATCH_PID; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT
trap 'log "stopping"; exit 0' INT TERM

# Restarts the FerretDB that infra.sh started when it stops answering pings (FERRETDB_WATCH_* in the README).
bash scripts/ferretdb-watch.sh &
WATCH_PID=$!

for entry in "${SERVICES[@]}"; do
  name="${entry%%:*}"
  port="${entry##*:}"
  if port_open "$port"; then die "port $port (service $name) is already in use"; fi
  PORT="$port" node --enable-source-maps "services/$name/dist/main.js" >"$RUN_DIR/$name.log" 2>&1 &
  PIDS+=("$!")
done

for entry in "${SERVICES[@]}"; do
  name="${entry%%:*}"
  port="${entry##*:}"
  ok=""
  for _ in $(seq 100); do
    if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then ok=1; break; fi
    sleep 0.2
  done
  [ -n "$ok" ] || { tail -20 "$RUN_DIR/$name.log" >&2; die "service $name did not become ready on port $port"; }
  log "$name ready on http://127.0.0.1:$port (docs: /docs, log: ${RUN_DIR#"$ROOT/"}/$name.log)"
done
log "platform is up; Ctrl-C stops it"
wait -n "${PIDS[@]}" || true
die "a service exited; see ${RUN_DIR#"$ROOT/"}/*.log"
