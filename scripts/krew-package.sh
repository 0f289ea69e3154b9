#!/usr/bin/env bash
# make krew: builds the release binary of kubectl-trussium, packs it with the
# LICENSE into dist/kubectl-trussium_<version>_linux_amd64.tar.gz, and writes
# dist/trussium.yaml: krew/trussium.yaml with the version, URI and the real
# sha256 filled in. Install it locally with:
#   kubectl krew install --manifest=dist/trussium.yaml \
#     --archive=dist/kubectl-trussium_<version>_linux_amd64.tar.gz
#
# Environment:
#   DIST_DIR   where to write (default: dist/)
#   PROFILE    cargo profile to build (default: release; the krew test uses dev)
#   KREW_URI   the archive's download URL written into the manifest
#              (default: the GitHub release asset of this version)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dist=${DIST_DIR:-$root/dist}
profile=${PROFILE:-release}
target_dir=${CARGO_TARGET_DIR:-$root/target}

pkgid=$(cargo pkgid -p kubectl-trussium)
version=${pkgid##*[#@]}
os=linux
arch=amd64
name="kubectl-trussium_${version}_${os}_${arch}"
uri=${KREW_URI:-https://github.com/trussiumhq/trussium-operator/releases/download/v${version}/${name}.tar.gz}

echo "building kubectl-trussium $version ($profile)" >&2
cargo build --locked --profile "$profile" -p kubectl-trussium --bin kubectl-trussium >&2
case $profile in
  dev) bin="$target_dir/debug/kubectl-trussium" ;;
  *) bin="$target_dir/$profile/kubectl-trussium" ;;
esac

mkdir -p "$dist"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
install -m 0755 "$bin" "$stage/kubectl-trussium"
# The release profile strips already; a dev build (tests) sheds its debug info here.
if command -v strip >/dev/null; then strip "$stage/kubectl-trussium"; fi
install -m 0644 LICENSE "$stage/LICENSE"
archive="$dist/$name.tar.gz"
# Reproducible: fixed order, owners and times; gzip without a timestamp.
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
  -cf - kubectl-trussium LICENSE | gzip -n -9 > "$archive"
sha256=$(sha256sum "$archive" | cut -d' ' -f1)

# Fill in the template (only these three markers; the caveats keep their $VARS).
sed -e "s|\${VERSION}|$version|g" -e "s|\${URI}|$uri|g" -e "s|\${SHA256}|$sha256|g" \
  krew/trussium.yaml > "$dist/trussium.yaml"

echo "$archive"
echo "$dist/trussium.yaml (sha256 $sha256)"
