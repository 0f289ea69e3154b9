#!/usr/bin/env bash
# make verify KEY=cosign.pub: checks a release's signatures offline with
# cosign (tools/cosign, built once per machine) and the public key KEY:
#   - SHA256SUMS, the chart and each plugin archive against its
#     <file>.sigstore.json, then every file of the release against SHA256SUMS;
#   - the image index in trussium-operator_<version>.oci.tar: its signature and
#     its SLSA provenance, from a registry on a loopback port (cosign reads
#     signatures from registries); it prints who built it from what, and
#     with EXPECT_TAG checks that it was built from that tag, from a clean
#     tree (the release workflow sets it).
# With IMAGE=<registry>/<repository>@sha256:<digest> it checks that image's
# signature and provenance where it is published instead (the registry's
# usual credentials; PLAIN_HTTP=1 for a plain-HTTP registry).
# Nothing is fetched from Sigstore's services: the signatures are the key's
# alone (no transparency log, hence cosign's --insecure-ignore-tlog).
# Every check runs; the exit status is 1 if any failed.
#
# Environment:
#   KEY          the public key (the project's, or yours for your own build)
#   DIST_DIR     the release's files (default dist/)
#   IMAGE        verify this published image instead of DIST_DIR
#   PLAIN_HTTP   1: IMAGE's registry speaks plain HTTP
#   EXPECT_TAG   the tag the provenance must name (v<version>)
# Needs bash 4.4 or later and GNU coreutils (Linux); elsewhere, the plain
# cosign commands of the manual's "Verifying a release" do the same.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
key=${KEY:-}
if [ -z "$key" ]; then
  echo "verify: name the public key: make verify KEY=cosign.pub (the key the release was signed with)" >&2
  exit 2
fi
[ -f "$key" ] || { echo "verify: KEY: no file $key" >&2; exit 2; }
key=$(realpath "$key")
dist=${DIST_DIR:-$root/dist}
image=${IMAGE:-}

# shellcheck source=need.sh
source "$root/scripts/need.sh"
need jq jq
cosign=$("$root/scripts/tool.sh" cosign)
work=$(mktemp -d)
registry_pid=""
cleanup() {
  if [ -n "$registry_pid" ]; then kill "$registry_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

failed=0
ok() { echo "✓ $*"; }
bad() {
  echo "✗ $*"
  failed=1
}
# The first line of cosign's complaint that is not its tlog warning.
why() { grep -v -e '^WARNING' -e '^error during command execution' "$1" | head -n 1 | sed 's/^Error: //'; }

# verify_image <label> <reference by digest> [cosign flags...]
verify_image() {
  local label=$1 reference=$2
  shift 2
  if "$cosign" verify --key "$key" --insecure-ignore-tlog "$@" "$reference" >"$work/out" 2>"$work/err"; then
    ok "$label: signature verified"
  else
    bad "$label: no valid signature: $(why "$work/err")"
  fi
  if "$cosign" verify-attestation --key "$key" --insecure-ignore-tlog --type slsaprovenance1 "$@" \
    "$reference" >"$work/out" 2>"$work/err"; then
    local statement said
    statement=$(head -n 1 "$work/out" | jq -r '.payload' | base64 -d) || statement=""
    if ! said=$(jq -r '.predicate |
      "built by " + .runDetails.builder.id + " from " + .buildDefinition.externalParameters.source.uri
      + "@" + .buildDefinition.externalParameters.source.ref
      + " (commit " + .buildDefinition.resolvedDependencies[0].digest.gitCommit[0:12] + ")"' \
      <<<"$statement" 2>/dev/null); then
      bad "$label: the SLSA provenance verified, but is not the statement expected"
      return
    fi
    ok "$label: SLSA provenance verified: $said"
    if [ -n "${EXPECT_TAG:-}" ]; then
      if jq -e --arg tag "$EXPECT_TAG" '.predicate.buildDefinition
          | .externalParameters.tag == $tag and .internalParameters.dirtyWorkingTree == false' \
        <<<"$statement" >/dev/null; then
        ok "$label: built from $EXPECT_TAG, from a clean tree"
      else
        bad "$label: the provenance does not name $EXPECT_TAG built from a clean tree"
      fi
    fi
  else
    bad "$label: no valid SLSA provenance: $(why "$work/err")"
  fi
}

if [ -n "$image" ]; then
  [[ $image == *@sha256:* ]] || { echo "verify: IMAGE must name a digest (…@sha256:…), as a Deployment should pin it" >&2; exit 2; }
  flags=()
  [ "${PLAIN_HTTP:-}" = 1 ] && flags=(--allow-http-registry)
  verify_image "image $image" "$image" "${flags[@]}"
  exit "$failed"
fi

[ -f "$dist/SHA256SUMS" ] || { echo "verify: $dist/SHA256SUMS is missing: run make release, or set DIST_DIR" >&2; exit 2; }
# What is signed: SHA256SUMS, the chart, the plugin archives.
mapfile -t signed < <(echo SHA256SUMS; sed -n 's/^[0-9a-f]*  //p' "$dist/SHA256SUMS" |
  grep -E '^(trussium-operator-.*\.tgz|kubectl-trussium_.*\.(tar\.gz|zip))$')
for file in "${signed[@]}"; do
  if [ ! -f "$dist/$file" ]; then
    bad "$file: missing"
  elif [ ! -f "$dist/$file.sigstore.json" ]; then
    bad "$file: unsigned (no $file.sigstore.json)"
  elif "$cosign" verify-blob --key "$key" --insecure-ignore-tlog --bundle "$dist/$file.sigstore.json" \
    "$dist/$file" >"$work/out" 2>"$work/err"; then
    ok "$file: signature verified"
  else
    bad "$file: does not match its signature (changed since signing, or another key signed it): $(why "$work/err")"
  fi
done
if (cd "$dist" && sha256sum --quiet -c SHA256SUMS) >"$work/out" 2>&1; then
  ok "every file matches SHA256SUMS ($(wc -l <"$dist/SHA256SUMS") files)"
else
  bad "files differ from SHA256SUMS: $(grep -v '^sha256sum:' "$work/out" | tr '\n' ' ')"
fi

# Files the release does not list: not verified, so said.
while IFS= read -r extra; do
  echo "! $extra: not in SHA256SUMS, not verified"
done < <(cd "$dist" && find . -maxdepth 1 -type f ! -name SHA256SUMS ! -name '*.sigstore.json' -printf '%f\n' |
  sort | grep -vxF -f <(sed -n 's/^[0-9a-f]*  //p' SHA256SUMS) || true)

# The image, through a loopback registry.
archive=$(find "$dist" -maxdepth 1 -name 'trussium-operator_*.oci.tar' | head -n 1)
if [ -z "$archive" ]; then
  bad "no image archive (trussium-operator_<version>.oci.tar)"
  exit "$failed"
fi
version=$(basename "$archive" .oci.tar)
version=${version#trussium-operator_}
oras=$("$root/scripts/tool.sh" oras)
registry=$("$root/scripts/tool.sh" registry)
"$registry" >"$work/registry.out" 2>"$work/registry.log" &
registry_pid=$!
for _ in $(seq 50); do
  grep -q '^serving on ' "$work/registry.out" && break
  sleep 0.1
done
address=$(sed -n 's/^serving on //p' "$work/registry.out")
[ -n "$address" ] || { echo "verify: the loopback registry did not start" >&2; exit 1; }
if "$oras" cp --recursive --to-plain-http --from-oci-layout "$archive:v$version" \
  "$address/trussium-operator:v$version" >"$work/out" 2>&1; then
  digest=$(sed -n 's/^Digest: //p' "$work/out" | tail -n 1)
  verify_image "$(basename "$archive"), index $digest" "$address/trussium-operator@$digest" --allow-http-registry
else
  bad "$(basename "$archive"): cannot read the image index: $(tail -n 1 "$work/out")"
fi
exit "$failed"
