#!/usr/bin/env bash
# Writes DIST/trussium.yaml: the krew manifest template (krew/trussium.yaml)
# with the version, the base URL and the sha256 of each archive in DIST filled
# in. Every platform's archive must be there.
#   scripts/krew-manifest.sh DIST BASE_URL
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dist=$1
base_url=${2%/}

pkgid=$(cd "$root" && cargo pkgid -p kubectl-trussium)
version=${pkgid##*[#@]}

args=(-e "s|\${VERSION}|$version|g" -e "s|\${BASE_URL}|$base_url|g")
for platform in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64; do
  ext=tar.gz
  [ "${platform%_*}" = windows ] && ext=zip
  archive="$dist/kubectl-trussium_${version}_${platform}.$ext"
  [ -f "$archive" ] || { echo "krew-manifest: $archive is missing" >&2; exit 1; }
  sha=$(sha256sum "$archive" | cut -d' ' -f1)
  args+=(-e "s|\${SHA256_$platform}|$sha|g")
done
# Only these markers: the caveats keep their shell ${KREW_ROOT:-…}.
# The template's own header comment (column 0) is not carried over.
{
  echo "# krew manifest of kubectl-trussium $version, written by make release."
  sed -e '/^#/d' "${args[@]}" "$root/krew/trussium.yaml"
} > "$dist/trussium.yaml"
if grep -n '\${\(VERSION\|BASE_URL\|SHA256_[a-z0-9_]*\)}' "$dist/trussium.yaml" >&2; then
  echo "krew-manifest: markers left unfilled in $dist/trussium.yaml" >&2
  exit 1
fi
echo "$dist/trussium.yaml"
