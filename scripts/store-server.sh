#!/usr/bin/env bash
# The development store's server in the foreground, for a test's private store (libs/testing's privateStore):
# FerretDB on 127.0.0.1:<port>, storing in the PostgreSQL database <postgres-url> (which must exist), its state files
# in <state-dir>, with the PostgreSQL pool infra.sh's FerretDB gets (lib.sh). It execs the server, so the pid the
# caller holds is the server's: a signal to it stops the server.
# Usage: scripts/store-server.sh <port> <postgres-url> <state-dir>
source "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: $0 <port> <postgres-url> <state-dir>"
[[ $1 =~ ^[1-9][0-9]*$ ]] || die "port must be a number, got '$1'"
exec "$(ferretdb_bin)" --handler=postgresql --postgresql-url="$(ferretdb_pg_url "$2")" \
  --listen-addr="127.0.0.1:$1" --debug-addr=- --telemetry=disable \
  --state-dir="$3" --log-level=ERROR
