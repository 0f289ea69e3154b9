#!/usr/bin/env bash
# make release: writes DIST_DIR (default dist/) with everything a release of
# this version attaches, as it is:
#   kubectl-trussium_<version>_<os>_<arch>.tar.gz   linux/amd64, linux/arm64,
#                                                   darwin/amd64, darwin/arm64
#   kubectl-trussium_<version>_windows_amd64.zip    (kubectl-trussium.exe)
#     each with the LICENSE and the man pages (man/, from docs/man)
#   trussium.yaml     the krew manifest, every platform with its sha256
#   crds.yaml         the CRD bundle
#   install.yaml      the operator's install manifests (kubectl kustomize deploy/,
#                     the operator image pinned to this version)
#   SHA256SUMS        of all of the above
# The plugin is cross-compiled with cargo-zigbuild (Zig from PyPI; see
# scripts/cross-tools.sh); the Linux binaries are static (musl), so they run
# on any distribution.
#
# Environment:
#   RELEASE_BASE_URL  where the release's files are downloaded from; it goes
#                     into the krew manifest and into the plugin's "CRD not
#                     installed" hint (default: the GitHub release of this version)
#   DIST_DIR          output directory (default: dist/)
#   PROFILE           cargo profile (default: release; make test uses cross-check)
#   CROSS_TARGET_DIR  cargo target dir of the cross builds, outside the checkout so
#                     that it outlives fresh clones (default: ~/.cache/trussium/cross-target)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cache=${TRUSSIUM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trussium}
dist=${DIST_DIR:-$root/dist}
profile=${PROFILE:-release}
target_dir=${CROSS_TARGET_DIR:-$cache/cross-target}

pkgid=$(cargo pkgid -p kubectl-trussium)
version=${pkgid##*[#@]}
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

# Run from a test (cargo test), the crate's own CARGO_MANIFEST_DIR etc. are in
# the environment; some build scripts (ring's) track them, so they would
# rebuild on every switch between a test and a shell.
for v in $(compgen -e); do
  case $v in
    CARGO_MANIFEST_*|CARGO_PKG_*|CARGO_CRATE_NAME|CARGO_PRIMARY_PACKAGE|CARGO_TARGET_TMPDIR|CARGO_BIN_*) unset "$v" ;;
  esac
done

tools=$("$root/scripts/cross-tools.sh")
export PATH="$tools:$PATH"
# This Zig, not another one found through Python.
export CARGO_ZIGBUILD_ZIG_PATH="$tools/zig"

started=$SECONDS
targets=()
for p in "${platforms[@]}"; do targets+=(--target "${p#* }"); done
echo "building kubectl-trussium $version ($profile) for ${#platforms[@]} platforms into $target_dir" >&2
# Compiled into the plugin's "CRD not installed" hint.
TRUSSIUM_RELEASE_BASE_URL=$base_url CARGO_TARGET_DIR=$target_dir \
  cargo zigbuild --locked --profile "$profile" -p kubectl-trussium --bin kubectl-trussium \
  "${targets[@]}" >&2
echo "built in $((SECONDS - started))s" >&2

profile_dir=$profile
[ "$profile" = dev ] && profile_dir=debug
# Best compression for a release; the test bundles only need to be quick.
level=9
[ "$profile" = release ] || level=1
rm -rf "$dist" && mkdir -p "$dist"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for p in "${platforms[@]}"; do
  platform=${p%% *}
  triple=${p#* }
  exe=kubectl-trussium
  [ "${platform%_*}" = windows ] && exe=kubectl-trussium.exe
  rm -rf "${stage:?}"/* && install -m 0755 "$target_dir/$triple/$profile_dir/$exe" "$stage/$exe"
  install -m 0644 LICENSE "$stage/LICENSE"
  install -d "$stage/man" && install -m 0644 docs/man/*.1 "$stage/man/"
  name="kubectl-trussium_${version}_${platform}"
  if [ "${platform%_*}" = windows ]; then
    # Reproducible zip: fixed order and times.
    mapfile -t man_pages < <(cd "$stage" && ls man/*.1)
    python3 - "$level" "$stage" "$dist/$name.zip" "$exe" LICENSE "${man_pages[@]}" <<'PY'
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
    tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
      -cf - "$exe" LICENSE man | gzip -n "-$level" > "$dist/$name.tar.gz"
  fi
done

# The CRD bundle and the install manifests of this version.
for crd in crds/*.yaml; do
  echo "---"
  grep -v '^---$' "$crd"
done > "$dist/crds.yaml"
# kubectl (for kustomize): the test cluster's, built once by make control-plane.
kubectl=$cache/bin/kubectl
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
(cd "$dist" && sha256sum -- *.tar.gz *.zip trussium.yaml crds.yaml install.yaml > SHA256SUMS)

ls -l "$dist" >&2
echo "$dist"
