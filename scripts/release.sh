#!/usr/bin/env bash
# make release: writes DIST_DIR (default dist/) with everything a release of
# this version attaches, as it is:
#   kubectl-trussium_<version>_<os>_<arch>.tar.gz     linux/amd64, linux/arm64,
#                                                     darwin/amd64, darwin/arm64
#   kubectl-trussium_<version>_windows_amd64.zip      (kubectl-trussium.exe)
#     each with the LICENSE and the man pages (man/, from docs/man)
#   kubectl-trussium_<version>_<os>_<arch>.cdx.json   the SBOM of each archive's binary
#   trussium-operator_<version>.oci.tar               the operator image: an OCI layout
#                    (tar) whose index v<version> holds linux/amd64 and linux/arm64,
#                    each image with its SBOM attached as a referrer
#   trussium-operator_<version>_linux_<arch>.cdx.json the images' SBOMs
#   trussium-operator-<version>.tgz   the Helm chart (scripts/chart.sh)
#   trussium.yaml     the krew manifest, every platform with its sha256
#   crds.yaml         the CRD bundle
#   install.yaml      the operator's install manifests (kubectl kustomize deploy/,
#                     the operator image pinned to this version)
#   SHA256SUMS        of all of the above
#   <file>.sigstore.json  with COSIGN_KEY: the cosign signature of SHA256SUMS,
#                     the chart and each plugin archive; the image index then
#                     carries its signature and SLSA provenance as referrers
#                     (scripts/sign.sh; make verify checks them)
# The binaries are cross-compiled with cargo-zigbuild (scripts/cross-build.sh);
# the Linux ones are static (musl), so they run on any distribution. Every
# SBOM is checked against Cargo.lock and the build (scripts/sbom-check.sh).
#
# Environment:
#   RELEASE_BASE_URL  where the release's files are downloaded from; it goes
#                     into the krew manifest and into the plugin's "CRD not
#                     installed" hint (default: the GitHub release of this version)
#   DIST_DIR          output directory (default: dist/)
#   PROFILE           cargo profile (default: release; make test uses cross-check)
#   CROSS_TARGET_DIR  cargo target dir of the cross builds (scripts/cross-build.sh)
#   RELEASE_TAG       the git tag being released (the release workflow's); it
#                     must be v<version>, or nothing is built; a tagged
#                     release must be signed
#   COSIGN_KEY        the signing key (a file, or env://VARIABLE); unset: unsigned
#   COSIGN_PASSWORD   its password
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# The signing key reaches the signing alone: taken out of the environment
# here, so that no build script, compiler or image builder below can read
# it, and handed to scripts/sign.sh in a subshell (`export`, a builtin, puts
# it in no process's command line).
signing=()
if [ -n "${COSIGN_KEY:-}" ]; then
  case $COSIGN_KEY in
    env://*)
      key_variable=${COSIGN_KEY#env://}
      if [ -z "${!key_variable:-}" ]; then
        echo "release: COSIGN_KEY=$COSIGN_KEY, but $key_variable is empty or unset" >&2
        exit 1
      fi
      signing+=("$key_variable=${!key_variable}")
      unset "$key_variable"
      ;;
    *) [ -f "$COSIGN_KEY" ] || { echo "release: COSIGN_KEY: no file $COSIGN_KEY" >&2; exit 1; } ;;
  esac
  signing+=("COSIGN_KEY=$COSIGN_KEY")
  if [ -n "${COSIGN_PASSWORD+set}" ]; then signing+=("COSIGN_PASSWORD=$COSIGN_PASSWORD"); fi
  unset COSIGN_KEY COSIGN_PASSWORD
fi
# sign <what>: scripts/sign.sh with the key.
sign() {
  (
    for assignment in "${signing[@]}"; do export "$assignment"; done
    "$root/scripts/sign.sh" "$1" "$dist"
  )
}

# shellcheck source=cache.sh
source "$root/scripts/cache.sh"
cache=$TRUSSIUM_CACHE
dist=${DIST_DIR:-$root/dist}
profile=${PROFILE:-release}

pkgid=$(cargo pkgid -p kubectl-trussium)
version=${pkgid##*[#@]}
if [ -n "${RELEASE_TAG:-}" ] && [ "$RELEASE_TAG" != "v$version" ]; then
  echo "release: the tag $RELEASE_TAG does not match the crate version $version (expected v$version)" >&2
  exit 1
fi
if [ -n "${RELEASE_TAG:-}" ] && [ "${#signing[@]}" -eq 0 ]; then
  echo "release: a tagged release is signed: set COSIGN_KEY (a key file, or env://VARIABLE) and COSIGN_PASSWORD" >&2
  exit 1
fi
base_url=${RELEASE_BASE_URL:-https://github.com/trussiumhq/trussium-operator/releases/download/v$version}
base_url=${base_url%/}

# <os>_<arch> <cargo target>
platforms=(
  "linux_amd64 x86_64-unknown-linux-musl"
  "linux_arm64 aarch64-unknown-linux-musl"
  "darwin_amd64 x86_64-apple-darwin"
  "darwin_arm64 aarch64-apple-darwin"
  "windows_amd64 x86_64-pc-windows-gnu"
)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# The base URL is compiled into the plugin's "CRD not installed" hint.
TRUSSIUM_RELEASE_BASE_URL=$base_url PROFILE=$profile \
  "$root/scripts/cross-build.sh" kubectl-trussium "$stage/bin" "${platforms[@]#* }"

# Best compression for a release; the test bundles only need to be quick.
level=9
[ "$profile" = release ] || level=1
rm -rf "$dist" && mkdir -p "$dist"
for p in "${platforms[@]}"; do
  platform=${p%% *}
  triple=${p#* }
  exe="kubectl-trussium"
  [ "${platform%_*}" = windows ] && exe="kubectl-trussium.exe"
  files=$stage/$platform
  mkdir -p "$files"
  install -m 0755 "$stage/bin/$triple/$exe" "$files/$exe"
  install -m 0644 LICENSE "$files/LICENSE"
  install -d "$files/man" && install -m 0644 docs/man/*.1 "$files/man/"
  name="kubectl-trussium_${version}_${platform}"
  if [ "${platform%_*}" = windows ]; then
    # Reproducible zip: fixed order and times.
    mapfile -t man_pages < <(cd "$files" && ls man/*.1)
    python3 - "$level" "$files" "$dist/$name.zip" "$exe" LICENSE "${man_pages[@]}" <<'PY'
import sys, zipfile
level, stage, out, *names = sys.argv[1:]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=int(level)) as z:
    for n in names:
        info = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = (0o100755 if n.endswith(".exe") else 0o100644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(f"{stage}/{n}", "rb") as f:
            z.writestr(info, f.read())
PY
  else
    # Reproducible: fixed order, owners and times; gzip without a timestamp.
    tar -C "$files" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
      -cf - "$exe" LICENSE man | gzip -n "-$level" > "$dist/$name.tar.gz"
  fi
  "$root/scripts/sbom.sh" kubectl-trussium "$triple" "$dist/$name.cdx.json"
done

# The operator image and its SBOMs. The layout ships as one tar, as
# `oras cp --from-oci-layout` and skopeo's oci-archive: read it; fixed order,
# owners and times.
IMAGE_PROFILE=$profile IMAGE_DIR=$dist IMAGE_TAG=v$version "$root/scripts/image.sh" >&2
tar -C "$dist/oci" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
  -cf "$dist/trussium-operator_$version.oci.tar" oci-layout index.json blobs
rm -rf "$dist/oci"

# The Helm chart, the same bytes for the same sources.
DIST_DIR=$dist "$root/scripts/chart.sh" >&2

# The CRD bundle and the install manifests of this version.
for crd in crds/*.yaml; do
  echo "---"
  grep -v '^---$' "$crd"
done > "$dist/crds.yaml"
# kubectl (for kustomize): the test cluster's, built once by make control-plane.
# shellcheck source=kubernetes-versions.sh
source "$root/scripts/kubernetes-versions.sh"
kubectl=$cache/bin/$(kubernetes_newest)/kubectl
[ -x "$kubectl" ] || kubectl=$(command -v kubectl) || kubectl="$("$root/tests/cluster/build.sh")/kubectl"
overlay="$stage/install"
mkdir -p "$overlay"
cat > "$overlay/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $(realpath --relative-to="$overlay" "$root/deploy")
images:
  - name: ghcr.io/trussiumhq/trussium-operator
    newTag: v$version
YAML
"$kubectl" kustomize "$overlay" > "$dist/install.yaml"

"$root/scripts/krew-manifest.sh" "$dist" "$base_url" >/dev/null
# The image's signature and provenance go into its archive, which SHA256SUMS sums.
[ "${#signing[@]}" -eq 0 ] || sign image
# Every file of the release.
(cd "$dist" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\0' | sort -z |
  xargs -0 sha256sum -- > SHA256SUMS)
if [ "${#signing[@]}" -gt 0 ]; then
  sign files
else
  echo "release: unsigned (set COSIGN_KEY to sign; make verify checks signatures)" >&2
fi

ls -l "$dist" >&2
echo "$dist"
