#!/usr/bin/env bash
# Installs (or reuses) what cross-building kubectl-trussium needs, and prints
# the directory to put first on PATH (it holds `zig` and `cargo-zigbuild`):
#   - Zig and cargo-zigbuild, both from PyPI (pinned), into a cache directory
#     outside the checkout keyed by their versions;
#   - the rustup targets of the release platforms.
# With --qemu it also installs Debian's qemu-user-static (the tests run the
# linux/arm64 binary under it).
set -euo pipefail

# shellcheck source=need.sh
source "$(dirname "$0")/need.sh"
# shellcheck source=cache.sh
source "$(dirname "$0")/cache.sh"
cache=$TRUSSIUM_CACHE
zig_version=0.17.1
zigbuild_version=0.24.0
targets=(
  x86_64-unknown-linux-musl
  aarch64-unknown-linux-musl
  x86_64-apple-darwin
  aarch64-apple-darwin
  x86_64-pc-windows-gnu
)

# One installer at a time (make test and a test may both get here).
mkdir -p "$cache"
exec 8>"$cache/cross-tools.lock"
flock 8

tools="$cache/cross-tools-zig$zig_version-zigbuild$zigbuild_version"
if [ ! -f "$tools/.complete" ]; then
  echo "installing zig $zig_version and cargo-zigbuild $zigbuild_version into $tools" >&2
  # (Zig and cargo-zigbuild come from PyPI.)
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3 python3-pip
  python=python3
  rm -rf "$tools.tmp" && mkdir -p "$tools.tmp"
  "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --target "$tools.tmp/py" "ziglang==$zig_version" "cargo-zigbuild==$zigbuild_version"
  mkdir -p "$tools.tmp/bin"
  # The wheel's binaries, reachable by their usual names.
  ln -s ../py/ziglang/zig "$tools.tmp/bin/zig"
  ln -s ../py/bin/cargo-zigbuild "$tools.tmp/bin/cargo-zigbuild"
  "$tools.tmp/bin/zig" version >/dev/null
  "$tools.tmp/bin/cargo-zigbuild" --version >/dev/null
  touch "$tools.tmp/.complete"
  rm -rf "$tools" && mv "$tools.tmp" "$tools"
fi

command -v rustup >/dev/null || {
  echo "cross-tools: rustup is missing (it adds the Rust targets of the cross builds)" >&2
  exit 1
}
installed=$(rustup target list --installed)
missing=()
for t in "${targets[@]}"; do
  grep -qx "$t" <<<"$installed" || missing+=("$t")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "adding rustup targets ${missing[*]}" >&2
  rustup target add "${missing[@]}" >&2
fi

if [ "${1:-}" = "--qemu" ]; then
  need qemu-aarch64-static qemu-user-static
fi

echo "$tools/bin"
