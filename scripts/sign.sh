#!/usr/bin/env bash
# scripts/sign.sh image|files DIST: signs what `make release` wrote to DIST
# with a cosign key (make release runs both when COSIGN_KEY is set: the image
# first, since SHA256SUMS sums the image archive with its signatures):
#   files: the chart, the five plugin archives and SHA256SUMS: one Sigstore
#     bundle each, <file>.sigstore.json (`cosign verify-blob --bundle`);
#   image: the image index in trussium-operator_<version>.oci.tar: a signature and
#     SLSA v1 provenance (an in-toto statement, DSSE-signed), both attached to
#     the index as OCI referrers inside the archive, so that `make publish`
#     and `make push` carry them to the registry with the images and SBOMs.
# cosign signs images in a registry, so the index goes through a registry on
# a loopback port (tools/registry) and its two new referrers are copied back
# into the layout. Nothing is sent anywhere else: no transparency log, no
# timestamp authority (a signing config without services). Verify with
# `make verify KEY=cosign.pub` (scripts/verify.sh).
#
# Environment:
#   COSIGN_KEY       the private key: a file, or env://VARIABLE holding it (as
#                    cosign reads keys); never a file in the repository
#   COSIGN_PASSWORD  its password (cosign asks on a terminal when unset)
#   RELEASE_TAG      the tag being released; names the source in the provenance
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: scripts/sign.sh image|files DIST"
what=${1:?$usage}
dist=${2:?$usage}
dist=$(cd "$dist" && pwd)
key=${COSIGN_KEY:?sign.sh: set COSIGN_KEY to the private key (a file, or env://VARIABLE)}
case $key in
  env://*) ;;
  *)
    [ -f "$key" ] || { echo "sign.sh: COSIGN_KEY: no file $key" >&2; exit 1; }
    key=$(realpath "$key")
    # Inside the checkout only where git ignores it (target/, *.key): a
    # private key is never one `git add` from being committed.
    case $key in
      "$root"/*)
        if ! git -C "$root" check-ignore -q --no-index -- "$key"; then
          echo "sign.sh: $key is inside the checkout and not ignored by git, one git add from being committed; keep private keys outside it" >&2
          exit 1
        fi
        ;;
    esac
    ;;
esac
# cosign asks for the password once per signature, and its output goes to a
# log: ask once here, on a terminal.
if [ -z "${COSIGN_PASSWORD+set}" ] && [ -t 0 ]; then
  read -r -s -p "Password of the signing key: " COSIGN_PASSWORD
  echo >&2
  export COSIGN_PASSWORD
fi

pkgid=$(cd "$root" && cargo pkgid -p trussium-operator)
version=${pkgid##*[#@]}
tag=v$version
archive=$dist/trussium-operator_$version.oci.tar
# shellcheck source=need.sh
source "$root/scripts/need.sh"
need jq jq
need curl curl
cosign=$("$root/scripts/tool.sh" cosign)
oras=$("$root/scripts/tool.sh" oras)
registry=$("$root/scripts/tool.sh" registry)

work=$(mktemp -d)
registry_pid=""
cleanup() {
  if [ -n "$registry_pid" ]; then kill "$registry_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# No transparency log and no timestamp authority: the signature is the key's
# alone, verifiable offline (cosign's default would upload to Rekor).
cat >"$work/signing-config.json" <<'JSON'
{"mediaType": "application/vnd.dev.sigstore.signingconfig.v0.2+json",
 "caUrls": [], "oidcUrls": [], "rekorTlogUrls": [], "tsaUrls": [],
 "rekorTlogConfig": {"selector": "ANY"}, "tsaConfig": {"selector": "ANY"}}
JSON
sign=(--key "$key" --signing-config "$work/signing-config.json" --yes)

# The files.
sign_files() {
  blobs=("$dist/SHA256SUMS" "$dist/trussium-operator-$version.tgz")
  for archive_file in "$dist"/kubectl-trussium_"$version"_*.tar.gz "$dist"/kubectl-trussium_"$version"_*.zip; do
    [ -f "$archive_file" ] && blobs+=("$archive_file")
  done
  for blob in "${blobs[@]}"; do
    [ -f "$blob" ] || { echo "sign.sh: $blob is missing" >&2; exit 1; }
    "$cosign" sign-blob "${sign[@]}" --bundle "$blob.sigstore.json" "$blob" >"$work/cosign.log" 2>&1 ||
      { cat "$work/cosign.log" >&2; exit 1; }
    echo "signed $(basename "$blob") -> $(basename "$blob").sigstore.json" >&2
  done
}

# The image index, through a loopback registry.
sign_image() {
  [ -f "$archive" ] || { echo "sign.sh: $archive is missing" >&2; exit 1; }
  digest=$(tar -xOf "$archive" index.json | jq -r --arg tag "$tag" \
    '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"] == $tag) | .digest')
  [ -n "$digest" ] || { echo "sign.sh: $archive has no index tagged $tag" >&2; exit 1; }
  "$registry" >"$work/registry.out" 2>"$work/registry.log" &
  registry_pid=$!
  for _ in $(seq 50); do
    grep -q '^serving on ' "$work/registry.out" && break
    sleep 0.1
  done
  address=$(sed -n 's/^serving on //p' "$work/registry.out")
  [ -n "$address" ] || { echo "sign.sh: the loopback registry did not start" >&2; cat "$work/registry.log" >&2; exit 1; }
  repository=$address/trussium-operator
  "$oras" cp --recursive --to-plain-http --from-oci-layout "$archive:$tag" "$repository:$tag" >"$work/oras.log" 2>&1 ||
    { cat "$work/oras.log" >&2; exit 1; }

  "$root/scripts/provenance.sh" "$dist" >"$work/provenance.json"
  "$cosign" sign "${sign[@]}" --allow-http-registry "$repository@$digest" >"$work/cosign.log" 2>&1 ||
    { cat "$work/cosign.log" >&2; exit 1; }
  "$cosign" attest "${sign[@]}" --allow-http-registry --type slsaprovenance1 \
    --predicate "$work/provenance.json" "$repository@$digest" >"$work/cosign.log" 2>&1 ||
    { cat "$work/cosign.log" >&2; exit 1; }

  # The two Sigstore bundles now referring to the index, copied into the layout.
  mkdir "$work/layout"
  tar -xf "$archive" -C "$work/layout"
  mapfile -t bundles < <(curl -fsS "http://$address/v2/trussium-operator/referrers/$digest" |
    jq -r '.manifests[] | select(.annotations["dev.sigstore.bundle.content"] != null) | .digest')
  [ "${#bundles[@]}" -eq 2 ] || { echo "sign.sh: expected a signature and a provenance, the registry lists ${#bundles[@]}" >&2; exit 1; }
  for bundle in "${bundles[@]}"; do
    "$oras" cp --from-plain-http "$repository@$bundle" --to-oci-layout "$work/layout@$bundle" >"$work/oras.log" 2>&1 ||
      { cat "$work/oras.log" >&2; exit 1; }
  done
  tar -C "$work/layout" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
    -cf "$archive" oci-layout index.json blobs
  echo "signed the image index $digest: a signature and SLSA provenance, attached as referrers" >&2
}

case $what in
  image) sign_image ;;
  files) sign_files ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
