#!/usr/bin/env bash
# Offline validation of the Kubernetes manifests: renders every overlay, and every overlay with each optional
# component added, with kustomize, then validates each object (and each Secret example) with kubeconform -strict
# against the JSON schemas vendored in k8s/schemas (one Kubernetes release, kinds the manifests use; no network).
# Fails on any render error, invalid object, unknown field or kind without a schema.
#   bash scripts/validate-k8s.sh [K8S_DIR]      K8S_DIR defaults to k8s/ (with base/, overlays/*/, components/*/
#                                               and schemas/)
source "$(dirname "$0")/lib.sh"

K8S_DIR="$(cd "${1:-$ROOT/k8s}" && pwd)"
SCHEMAS="$K8S_DIR/schemas"
bash "$ROOT/scripts/install-k8s-tools.sh"
KUSTOMIZE="$ROOT/.tools/bin/kustomize"
KUBECONFORM="$ROOT/.tools/bin/kubeconform"

[ -d "$K8S_DIR/overlays" ] || die "$K8S_DIR has no overlays/"
ls "$SCHEMAS"/*.json >/dev/null 2>&1 || die "$SCHEMAS holds no JSON schemas"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

validate() { # $1: label, $2..: files
  local label="$1"; shift
  if ! "$KUBECONFORM" -strict -summary -output text \
      -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@"; then
    echo "INVALID: $label" >&2
    return 1
  fi
}

status=0
overlays=0
for overlay in "$K8S_DIR"/overlays/*/; do
  name="$(basename "$overlay")"
  overlays=$((overlays + 1))
  if ! "$KUSTOMIZE" build "$overlay" >"$out/$name.yaml" 2>"$out/$name.err"; then
    cat "$out/$name.err" >&2
    echo "INVALID: overlay $name does not render" >&2
    status=1
    continue
  fi
  # An overlay that renders nothing would pass kubeconform vacuously.
  grep -q '^kind: Deployment$' "$out/$name.yaml" || { echo "INVALID: overlay $name renders no Deployment" >&2; status=1; continue; }
  echo "overlay $name:"
  validate "overlay $name" "$out/$name.yaml" || status=1
done
[ "$overlays" -gt 0 ] || die "no overlay under $K8S_DIR/overlays"

# Optional components (k8s/components/*), each rendered as it is used: listed under `components:` in an overlay's
# kustomization.yaml, once in each overlay, so that the overlay's patches apply to its objects too.
components=0
for component in "$K8S_DIR"/components/*/; do
  [ -d "$component" ] || continue
  cname="$(basename "$component")"
  components=$((components + 1))
  for overlay in "$K8S_DIR"/overlays/*/; do
    oname="$(basename "$overlay")"
    label="overlay $oname with component $cname"
    copy="$out/with-$cname-$oname"
    mkdir -p "$copy"
    cp -r "$K8S_DIR/base" "$K8S_DIR/overlays" "$K8S_DIR/components" "$copy/"
    kfile="$copy/overlays/$oname/kustomization.yaml"
    if grep -q '^components:' "$kfile"; then
      sed -i "/^components:/a\\  - ../../components/$cname" "$kfile"
    else
      printf 'components:\n  - ../../components/%s\n' "$cname" >>"$kfile"
    fi
    if ! "$KUSTOMIZE" build "$copy/overlays/$oname" >"$copy.yaml" 2>"$copy.err"; then
      cat "$copy.err" >&2
      echo "INVALID: $label does not render" >&2
      status=1
      continue
    fi
    echo "$label:"
    validate "$label" "$copy.yaml" || status=1
  done
done
# The tracing component carries a copy of Jaeger's configuration: kustomize reads no file outside its folder.
tracing_config="$K8S_DIR/components/tracing/config.yaml"
if [ -f "$tracing_config" ] && ! cmp -s "$tracing_config" "$ROOT/deploy/jaeger/config.yaml"; then
  echo "INVALID: components/tracing/config.yaml differs from deploy/jaeger/config.yaml (copy the latter over it)" >&2
  status=1
fi

mapfile -t examples < <(find "$K8S_DIR/base" -name '*.example.yaml' | sort)
if [ "${#examples[@]}" -gt 0 ]; then
  echo "secret examples:"
  validate "secret examples" "${examples[@]}" || status=1
fi

[ "$status" -eq 0 ] && echo "k8s manifests valid ($overlays overlays, each also with each of $components components)"
exit $status
