#!/usr/bin/env bash
# Runs every benchmark under bench/ (each bench/<name>/run.sh) against real local infrastructure, printing figures.
# `pnpm bench trigger cron` runs only the ones named.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
shopt -s nullglob
runs=(bench/*/run.sh)
if [ $# -gt 0 ]; then
  runs=()
  for name in "$@"; do
    [ -f "bench/$name/run.sh" ] || { echo "no benchmark bench/$name" >&2; exit 2; }
    runs+=("bench/$name/run.sh")
  done
fi
if [ ${#runs[@]} -eq 0 ]; then
  echo "no benchmarks yet (bench/<name>/run.sh)"
  exit 0
fi
bash scripts/infra.sh
pnpm run build >/dev/null
export FERRETDB_POSTGRESQL_URL="$PG_URL" # where libs/db's FerretDB adapter takes its locks and reads (libs/db README)
export RATE_LIMIT_PER_KEY_PER_MIN=0 RATE_LIMIT_PER_WEBHOOK_PER_MIN=0 # benchmarks measure throughput, not the limits
# One benchmark failing does not hide the figures of the others; the run still fails at the end.
failed=()
for r in "${runs[@]}"; do
  echo "== ${r%/run.sh}"
  bash "$r" || failed+=("${r%/run.sh}")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
