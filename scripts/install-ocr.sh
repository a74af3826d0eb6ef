#!/usr/bin/env bash
# Installs what the OCR service needs on a Debian machine, when it is missing: poppler-utils (pdftoppm rasterizes
# pages), tesseract-ocr with English (reads them); and what its tests build their fixtures with: qpdf (encrypted
# PDFs), fonts-dejavu-core (Cyrillic glyphs) and fonts-droid-fallback (CJK glyphs). Idempotent: does nothing when
# everything is there. OCR_LANGUAGES (e.g. "eng+rus") adds the tesseract-ocr-<lang> packages the service will read.
source "$(dirname "$0")/lib.sh"

PACKAGES=(poppler-utils tesseract-ocr tesseract-ocr-eng qpdf fonts-dejavu-core fonts-droid-fallback)
for lang in $(printf '%s' "${OCR_LANGUAGES:-eng}" | tr '+,' '  '); do
  # Debian names the packages with dashes and lowercase (chi_sim → tesseract-ocr-chi-sim).
  pkg="tesseract-ocr-$(printf '%s' "$lang" | tr '_A-Z' '-a-z')"
  [[ " ${PACKAGES[*]} " == *" $pkg "* ]] || PACKAGES+=("$pkg")
done

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

log "installing ${missing[*]}"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install ${missing[*]} with this system's package manager."
SUDO=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || die "root is needed to install ${missing[*]} (apt-get install ${missing[*]})."
  SUDO=(sudo -n)
fi
apt_install() { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; }
# A machine whose package lists are old or empty finds nothing until they are refreshed: refresh once, then retry.
if ! apt_install "${missing[@]}"; then
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed."
  apt_install "${missing[@]}" || die "could not install ${missing[*]} (apt-get install ${missing[*]})."
fi
command -v pdftoppm >/dev/null 2>&1 || die "pdftoppm is still missing after installing poppler-utils."
command -v tesseract >/dev/null 2>&1 || die "tesseract is still missing after installing tesseract-ocr."
