#!/usr/bin/env bash
# Installs the Jaeger binary (the trace backend: OTLP in, query API out) with the Go toolchain. Idempotent.
# The UI is built apart from the Go module: where the release image serves it, this binary serves a placeholder page;
# the query API (/api/...) is the same.
source "$(dirname "$0")/lib.sh"

need go "Install Go (https://go.dev/dl) or the Debian package golang."
BIN="$(jaeger_bin)"
[[ "$BIN" == /* ]] || BIN="$PWD/$BIN" # the build below runs in another directory
MOD="github.com/jaegertracing/jaeger"
# `jaeger version` prints its build information as JSON. The version is read into a variable first: `grep -q`
# closing the pipe early would fail the pipeline (pipefail).
reports_version() {
  local out
  out="$("$BIN" version 2>/dev/null)" || return 1
  [[ "$out" == *"\"gitVersion\":\"${JAEGER_VERSION}\""* ]]
}
if [ -x "$BIN" ] && reports_version; then
  exit 0
fi
# One build at a time: CI starts one in the background early (.ci/run) and infra.sh's call waits for it here, then
# finds the binary built.
exec 9>"$RUN_DIR/install-jaeger.lock"
flock 9
if [ -x "$BIN" ] && reports_version; then
  exit 0
fi

log "installing Jaeger ${JAEGER_VERSION} into $(dirname "$BIN") (a first build takes several minutes)"
mkdir -p "$(dirname "$BIN")"
# The module's cmd/jaeger is Jaeger v2 (an OpenTelemetry Collector build with Jaeger's extensions). A module of its
# own pins it and its dependencies through the Go module proxy, as `go install` would, but leaves room for the
# build flags below.
SRC="$(mktemp -d)"
trap 'rm -rf "$SRC"' EXIT
cd "$SRC"
go mod init jaeger-build >/dev/null 2>&1 || die "go mod init failed in $SRC"
# It lists every module it adds (hundreds): shown only when it fails.
go get -tool "$MOD/cmd/jaeger@${JAEGER_VERSION}" >"$SRC/get.log" 2>&1 \
  || { cat "$SRC/get.log" >&2; die "could not fetch $MOD@${JAEGER_VERSION} through the Go module proxy"; }
# Jaeger's release build stamps its version into internal/version (without it, `jaeger version` reports an empty
# one and the check above could never pass); the build date is the module's commit time.
DATE="$(go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' "$MOD" 2>/dev/null || true)"
go build -trimpath -o "$BIN" \
  -ldflags "-X $MOD/internal/version.latestVersion=${JAEGER_VERSION} -X $MOD/internal/version.date=${DATE}" \
  "$MOD/cmd/jaeger" || die "building Jaeger failed (see above)"
reports_version || die "Jaeger built but does not report ${JAEGER_VERSION}"
log "Jaeger installed: $BIN"
