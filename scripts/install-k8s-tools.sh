#!/usr/bin/env bash
# Installs the pinned tools scripts/validate-k8s.sh uses into .tools/bin, built from their Go modules (idempotent:
# a binary already built from the pinned version is kept). Prints nothing on success unless something was built.
#   kustomize   renders k8s/overlays/* (the same engine as `kubectl kustomize`, pinned here)
#   kubeconform validates every rendered object against the JSON schemas vendored in k8s/schemas
source "$(dirname "$0")/lib.sh"

KUSTOMIZE_MODULE="sigs.k8s.io/kustomize/kustomize/v5"
KUSTOMIZE_VERSION="v5.5.0"
KUBECONFORM_MODULE="github.com/yannh/kubeconform"
KUBECONFORM_PACKAGE="$KUBECONFORM_MODULE/cmd/kubeconform"
KUBECONFORM_VERSION="v0.7.0"
TOOLS_BIN="$ROOT/.tools/bin"

need go "Install Go 1.22 or newer (https://go.dev/doc/install); the tools are built from their modules."
mkdir -p "$TOOLS_BIN"
# Test files run in parallel may call this at once: one builds, the others wait and then find the binaries.
exec 9>"$TOOLS_BIN/.install.lock"
flock 9

# True when $1 exists and was built from module $2 at version $3.
built_from() {
  [ -x "$1" ] && go version -m "$1" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+$2[[:space:]]+$3([[:space:]]|$)"
}

install_tool() {
  local bin="$1" module="$2" package="$3" version="$4"
  if built_from "$TOOLS_BIN/$bin" "$module" "$version"; then return 0; fi
  log "building $bin $version from $package"
  GOBIN="$TOOLS_BIN" GOFLAGS=-buildvcs=false go install "$package@$version" || die "could not build $package@$version"
  built_from "$TOOLS_BIN/$bin" "$module" "$version" || die "$TOOLS_BIN/$bin is not $module $version after installing it"
}

install_tool kustomize "$KUSTOMIZE_MODULE" "$KUSTOMIZE_MODULE" "$KUSTOMIZE_VERSION"
install_tool kubeconform "$KUBECONFORM_MODULE" "$KUBECONFORM_PACKAGE" "$KUBECONFORM_VERSION"
