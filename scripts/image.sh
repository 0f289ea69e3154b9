#!/usr/bin/env bash
# make image: the operator image for linux/amd64 and linux/arm64. Per
# platform a static (musl) binary, cross-built like the plugin
# (scripts/cross-build.sh), in the Containerfile's image (FROM scratch)
# built with buildah; one OCI image index holding both; and each platform's
# SBOM (scripts/sbom.sh) attached to its image as an OCI 1.1 referrer.
# Writes IMAGE_DIR (default dist/):
#   oci/                                             the OCI layout; the index is tagged v<version>
#   trussium-operator_<version>_linux_<arch>.cdx.json  the SBOMs
# and prints each platform's size and the index digest. The same sources
# give the same digests: fixed timestamps, no build paths in the binaries.
#
# Environment:
#   IMAGE_PROFILE  cargo profile (default: release; make test: cross-check)
#   IMAGE_DIR      output directory (default: dist/)
#   IMAGE_TAG      the index's tag in the layout (default: v<version>)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

profile=${IMAGE_PROFILE:-release}
out=${IMAGE_DIR:-$root/dist}
pkgid=$(cargo pkgid -p trussium-operator)
version=${pkgid##*[#@]}
tag=${IMAGE_TAG:-v$version}
epoch=${SOURCE_DATE_EPOCH:-0}
# <OCI platform architecture> <cargo target>
platforms=(
  "amd64 x86_64-unknown-linux-musl"
  "arm64 aarch64-unknown-linux-musl"
)

# shellcheck source=need.sh
source "$root/scripts/need.sh"
need buildah buildah
need jq jq

work=$(mktemp -d)
# buildah's vfs storage holds read-only files.
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

targets=()
for p in "${platforms[@]}"; do targets+=("${p#* }"); done
PROFILE=$profile "$root/scripts/cross-build.sh" trussium-operator "$work/bin" "${targets[@]}"

# Private storage: no state shared with other builds. --timestamp: the same
# binary gives the same image.
storage=(--root "$work/storage" --runroot "$work/run" --storage-driver vfs)
index=localhost/trussium-operator:$tag
buildah "${storage[@]}" manifest create "$index" >/dev/null
for p in "${platforms[@]}"; do
  arch=${p%% *}
  triple=${p#* }
  context=$work/context-$arch
  install -D -m 0755 "$work/bin/$triple/trussium-operator" "$context/trussium-operator"
  buildah "${storage[@]}" bud --quiet --timestamp "$epoch" --isolation chroot \
    --platform "linux/$arch" -f "$root/Containerfile" -t "$index-$arch" "$context" >/dev/null
  buildah "${storage[@]}" manifest add "$index" "containers-storage:$index-$arch" >/dev/null
done
rm -rf "$out/oci"
mkdir -p "$out"
buildah "${storage[@]}" manifest push --quiet --all --format oci "$index" "oci:$out/oci:$tag"

blobs=$out/oci/blobs/sha256
blob() { echo "$blobs/${1#sha256:}"; }
index_digest=$(jq -r --arg tag "$tag" \
  '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"] == $tag) | .digest' \
  "$out/oci/index.json")

# attach <subject manifest digest> <file> <media type>: stores <file> as an
# OCI 1.1 referrer of the subject (an artifact manifest whose `subject` is
# that image manifest, its config the empty descriptor) and lists it in the
# layout's index.json, where oras and registries look for referrers.
empty='{}'
empty_digest=sha256:$(printf '%s' "$empty" | sha256sum | cut -d' ' -f1)
attach() {
  local subject=$1 file=$2 type=$3 digest manifest manifest_digest
  digest=sha256:$(sha256sum "$file" | cut -d' ' -f1)
  cp "$file" "$(blob "$digest")"
  printf '%s' "$empty" >"$(blob "$empty_digest")"
  manifest=$(jq -cn --arg type "$type" --arg digest "$digest" --argjson size "$(stat -c %s "$file")" \
    --arg title "$(basename "$file")" --arg empty "$empty_digest" \
    --arg subject "$subject" --argjson subject_size "$(stat -c %s "$(blob "$subject")")" '{
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      artifactType: $type,
      config: { mediaType: "application/vnd.oci.empty.v1+json", digest: $empty, size: 2 },
      layers: [ { mediaType: $type, digest: $digest, size: $size,
                  annotations: { "org.opencontainers.image.title": $title } } ],
      subject: { mediaType: "application/vnd.oci.image.manifest.v1+json",
                 digest: $subject, size: $subject_size }
    }')
  manifest_digest=sha256:$(printf '%s' "$manifest" | sha256sum | cut -d' ' -f1)
  printf '%s' "$manifest" >"$(blob "$manifest_digest")"
  jq -c --arg type "$type" --arg digest "$manifest_digest" --argjson size "${#manifest}" \
    '.manifests += [ { mediaType: "application/vnd.oci.image.manifest.v1+json",
                       artifactType: $type, digest: $digest, size: $size } ]' \
    "$out/oci/index.json" >"$work/index.json"
  mv "$work/index.json" "$out/oci/index.json"
}

echo "image: oci:$out/oci:$tag"
for p in "${platforms[@]}"; do
  arch=${p%% *}
  triple=${p#* }
  manifest=$(jq -r --arg arch "$arch" \
    '.manifests[] | select(.platform.architecture == $arch) | .digest' "$(blob "$index_digest")")
  sbom=$out/trussium-operator_${version}_linux_$arch.cdx.json
  "$root/scripts/sbom.sh" trussium-operator "$triple" "$sbom"
  attach "$manifest" "$sbom" application/vnd.cyclonedx+json
  # The image's size: its manifest, config and (compressed) layer blobs.
  size=$(jq '[.config.size, .layers[].size] | add' "$(blob "$manifest")")
  size=$((size + $(stat -c %s "$(blob "$manifest")")))
  printf '  linux/%-6s %s  %s bytes (%s MiB compressed; binary %s bytes)\n' "$arch" "$manifest" "$size" \
    "$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }')" \
    "$(stat -c %s "$work/bin/$triple/trussium-operator")"
done
echo "  index digest: $index_digest"
