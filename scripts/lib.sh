#!/usr/bin/env bash
# Shared helpers for the project's scripts. Sourced, not run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUN_DIR="$ROOT/.run"
mkdir -p "$RUN_DIR"

FERRETDB_VERSION="v1.24.2"
FERRETDB_PORT="${FERRETDB_PORT:-27017}"
PG_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb}"
REDIS_PORT="${REDIS_PORT:-6379}"

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }
die() { printf '\n[%s] ERROR: %s\n\n' "$(basename "$0")" "$*" >&2; exit 1; }

need() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' is required but not installed. $2"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  local port="$1" what="$2" tries="${3:-100}"
  for _ in $(seq "$tries"); do
    port_open "$port" && return 0
    sleep 0.1
  done
  return 1
}

ferretdb_bin() {
  if [ -n "${FERRETDB_BIN:-}" ]; then echo "$FERRETDB_BIN"; return; fi
  echo "$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin/ferretdb"
}
