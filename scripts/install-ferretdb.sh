#!/usr/bin/env bash
# Installs the FerretDB binary (MongoDB wire protocol on PostgreSQL) with the Go toolchain. Idempotent.
source "$(dirname "$0")/lib.sh"

need go "Install Go (https://go.dev/dl) or the Debian package golang."
BIN="$(ferretdb_bin)"
# The version is read into a variable first: `grep -q` closing the pipe early would fail the pipeline (pipefail).
reports_version() { local out; out="$("$BIN" --version 2>/dev/null)" || return 1; [[ "$out" == *"${FERRETDB_VERSION}"* ]]; }
if [ -x "$BIN" ] && reports_version; then
  exit 0
fi

log "installing FerretDB ${FERRETDB_VERSION} into $(dirname "$BIN")"
mkdir -p "$(dirname "$BIN")"
# `go install ...@v1.24.2` builds a binary that panics at start because the module archive lacks
# build/version/version.txt (and some module proxies refuse the version-list lookup it makes first).
# So: fetch the exact module through the Go module proxy, add the version file, build it.
MOD="github.com/FerretDB/FerretDB@${FERRETDB_VERSION}"
DIR="$(go mod download -json "$MOD" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
[ -d "$DIR" ] || die "could not download $MOD through the Go module proxy"
SRC="$(mktemp -d)"
trap 'rm -rf "$SRC"' EXIT
cp -r "$DIR/." "$SRC/"
chmod -R u+w "$SRC"
echo "${FERRETDB_VERSION}" > "$SRC/build/version/version.txt"
(cd "$SRC" && GOFLAGS=-mod=mod go build -trimpath -o "$BIN" ./cmd/ferretdb) || die "building FerretDB failed (see above)"
reports_version || die "FerretDB built but does not report ${FERRETDB_VERSION}"
log "FerretDB installed: $BIN"
