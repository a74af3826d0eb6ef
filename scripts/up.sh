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

# Tracing (README "Tracing") is off unless the standard OTEL_* variables ask for it: nothing here sets them, and the
# services inherit this environment, so whatever OTEL_* the caller set reaches every service as given, e.g.
#   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 pnpm start     (into the Jaeger infra.sh started)
# Left unset, no service records or exports a span (what the benchmarks, run with these settings, measure).
otel_disabled="${OTEL_SDK_DISABLED:-}"
otel_exporter="${OTEL_TRACES_EXPORTER:-}"
otel_endpoint="${OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:-${OTEL_EXPORTER_OTLP_ENDPOINT:-}}"
if [ -n "$otel_endpoint" ] && [ "${otel_disabled,,}" != "true" ] && [ "${otel_exporter,,}" != "none" ]; then
  log "tracing on: every service exports its spans to $otel_endpoint"
  if [ -n "${OTEL_SERVICE_NAME:-}" ]; then
    log "note: OTEL_SERVICE_NAME=$OTEL_SERVICE_NAME names every service alike (unset, each is named after itself)"
  fi
  # The operations console links each run's trace id to the local Jaeger when the spans go there and the caller did
  # not set TRACE_UI_URL (the gateway reads it; set empty, ids are shown unlinked). A Jaeger built from its Go module
  # (install-jaeger.sh) has no UI, only a placeholder page: the link then opens the trace's JSON from its query API;
  # a Jaeger with its UI on that port (the release image) opens the trace in the UI.
  if [ -z "${TRACE_UI_URL+set}" ] &&
    [[ "$otel_endpoint" =~ ^http://(127\.0\.0\.1|localhost):${JAEGER_OTLP_HTTP_PORT}(/|$) ]]; then
    jaeger="http://127.0.0.1:$JAEGER_QUERY_PORT"
    jaeger_home="$(curl -fsS -m 2 "$jaeger/" 2>/dev/null || true)"
    if [[ "$jaeger_home" == *"placeholder for the Jaeger UI"* ]]; then
      export TRACE_UI_URL="$jaeger/api/traces/{trace_id}"
    else
      export TRACE_UI_URL="$jaeger/trace/{trace_id}"
    fi
    log "the console links trace ids to $TRACE_UI_URL"
  fi
else
  log "tracing off (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$JAEGER_OTLP_HTTP_PORT pnpm start traces into the local Jaeger)"
fi

# name:port of every service.
SERVICES=(scheduler:3001 agent:3002 rag:3003 rai:3004 voice:3005 graph:3006 ocr:3007 worker:3008 gateway:8080)
PIDS=()
stop() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT
trap 'log "stopping"; exit 0' INT TERM

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
