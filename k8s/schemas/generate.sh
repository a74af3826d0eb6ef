#!/usr/bin/env bash
# Regenerates the vendored JSON schemas (*.json beside this file) from pinned npm packages, in a temporary folder.
# Needs the npm registry once; validation itself (scripts/validate-k8s.sh) then needs no network.
# To move to another Kubernetes release, change KUBERNETES_TYPES_VERSION (kubernetes-types follows its minor
# versions) and the release named in k8s/README.md; a new kind gets a line in generate.mjs.
set -euo pipefail
KUBERNETES_TYPES_VERSION="1.30.0"
GENERATOR_VERSION="2.9.0"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent \
  "kubernetes-types@$KUBERNETES_TYPES_VERSION" "ts-json-schema-generator@$GENERATOR_VERSION")
node "$here/generate.mjs" "$work"
