#!/usr/bin/env bash
# make image: builds the static (musl) operator binary and the image
# (Containerfile, FROM scratch) into an OCI layout with buildah, then prints
# the image's size and digest. Installs buildah, musl-tools and the Rust musl
# target when missing.
#
#   scripts/image.sh                       release build -> dist/oci:<version>
#   IMAGE_PROFILE=dev IMAGE_DIR=target/image scripts/image.sh
#                                          the container test's cheaper build
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/cluster/env.sh
source "$root/tests/cluster/env.sh"
cd "$root"

profile=${IMAGE_PROFILE:-release}
out=${IMAGE_DIR:-$root/dist}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
tag=${IMAGE_TAG:-v$version}
name=localhost/trussium-operator:$tag
target=x86_64-unknown-linux-musl

apt_install() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "image.sh: installing $*"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}
missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v musl-gcc >/dev/null || missing+=(musl-tools)
[ "${#missing[@]}" -eq 0 ] || apt_install "${missing[@]}"
rustup target list --installed | grep -qx "$target" || rustup target add "$target"

# Outside the checkout, so that fresh CI clones build incrementally; one
# directory per compiler version, so old ones can simply be deleted.
rustc_key=$(rustc -V | sha256sum | cut -c1-12)
target_dir=$TRUSSIUM_CACHE/target-musl/$rustc_key
case $profile in
  dev) profile_dir=debug ;;
  *) profile_dir=$profile ;;
esac
# No debug info in the dev build: it only has to run, and links faster.
CARGO_PROFILE_DEV_DEBUG=0 CC_x86_64_unknown_linux_musl=musl-gcc CARGO_TARGET_DIR=$target_dir \
  cargo build --locked --quiet --profile "$profile" --target "$target" -p trussium-operator
binary=$target_dir/$target/$profile_dir/trussium-operator

context=$out/context
rm -rf "$context" "$out/oci"
mkdir -p "$context"
cp "$binary" "$context/trussium-operator"

# Private storage per output directory: no shared state with other builds.
# --timestamp 0: the same binary gives the same digest.
storage=(--root "$out/.buildah/root" --runroot "$out/.buildah/run" --storage-driver vfs)
buildah "${storage[@]}" bud --quiet --timestamp 0 --isolation chroot -f "$root/Containerfile" -t "$name" "$context" >/dev/null
buildah "${storage[@]}" push --quiet "$name" "oci:$out/oci:$tag"
buildah "${storage[@]}" rmi --all >/dev/null 2>&1 || true

manifest_digest=$(sed -n 's/.*"digest":"\(sha256:[0-9a-f]*\)".*/\1/p' "$out/oci/index.json" | head -n1)
manifest=$out/oci/blobs/sha256/${manifest_digest#sha256:}
# The image's size: its manifest, config and (compressed) layer blobs.
size=$(grep -o '"size":[0-9]*' "$manifest" | cut -d: -f2 | awk -v m="$(stat -c %s "$manifest")" '{ s += $1 } END { print s + m }')
echo "image: oci:$out/oci:$tag"
echo "  digest: $manifest_digest"
echo "  size:   $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }') MiB compressed; binary $(stat -c %s "$binary") bytes)"
