#!/usr/bin/env bash
# Cross-builds one binary of the workspace (the package's binary of the same
# name) for several targets with cargo-zigbuild (Zig from PyPI; see
# scripts/cross-tools.sh), and copies each into OUT/<target>/:
#
#   scripts/cross-build.sh trussium-operator "$work/bin" x86_64-unknown-linux-musl aarch64-unknown-linux-musl
#
# The cargo target dir is shared by every checkout and outlives fresh clones
# (CI), so compiled dependencies are reused: the plugin's linux builds and
# the operator's share most of theirs. Two callers never get each other's
# binary: a lock is held from the build until the copies are made (cargo
# locks the target dir only while it builds), and the workspace's own crates
# are rebuilt when another checkout built last.
#
# Environment:
#   PROFILE           cargo profile (default: release; make test: cross-check)
#   CROSS_TARGET_DIR  the cargo target dir (default: ~/.cache/trussium/cross-target)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=cache.sh
source "$root/scripts/cache.sh"
cache=$TRUSSIUM_CACHE
package=${1:?usage: scripts/cross-build.sh <package> <out dir> <target>...}
out=${2:?usage: scripts/cross-build.sh <package> <out dir> <target>...}
shift 2
[ "$#" -gt 0 ] || { echo "cross-build: no target given" >&2; exit 2; }
profile=${PROFILE:-release}
target_dir=${CROSS_TARGET_DIR:-$cache/cross-target}

# Run from a test (cargo test), the crate's own CARGO_MANIFEST_DIR etc. are in
# the environment; some build scripts (ring's) track them, so they would
# rebuild on every switch between a test and a shell.
for v in $(compgen -e); do
  case $v in
    CARGO_MANIFEST_*|CARGO_PKG_*|CARGO_CRATE_NAME|CARGO_PRIMARY_PACKAGE|CARGO_TARGET_TMPDIR|CARGO_BIN_*) unset "$v" ;;
  esac
done

# shellcheck source=need.sh
source "$root/scripts/need.sh"
# shellcheck source=progress.sh
source "$root/scripts/progress.sh"
need jq jq
tools=$("$root/scripts/cross-tools.sh")
export PATH="$tools:$PATH"
# This Zig, not another one found through Python.
export CARGO_ZIGBUILD_ZIG_PATH="$tools/zig"

mkdir -p "$target_dir"
# shellcheck source=lock.sh
source "$root/scripts/lock.sh"
wait_for_lock 7 "$target_dir.lock" echo "cross-build: another build uses $target_dir; waiting for it"

targets=()
for t in "$@"; do targets+=(--target "$t"); done
# Cargo tells freshness by mtimes and names the workspace's crates by their
# path inside the workspace: right after a build from another checkout, this
# checkout's crates pass as fresh when their files are older, whatever they
# hold. So the workspace's own crates are built again after another
# checkout's build; dependencies stay shared.
members=()
for m in $(cargo metadata --format-version 1 --no-deps --locked | jq -r '.packages[].name'); do
  members+=(-p "$m")
done
for t in "$@"; do
  stamp=$target_dir/.last-checkout-$t-$profile
  if [ "$(cat "$stamp" 2>/dev/null)" != "$root" ]; then
    CARGO_TARGET_DIR=$target_dir cargo clean --quiet --profile "$profile" --target "$t" "${members[@]}"
    echo "$root" >"$stamp"
  fi
done
started=$SECONDS
# The compiler's chatter goes to a log, shown only if the build fails.
log=$cache/logs/cross-build-$package.log
echo "building $package ($profile) for $* into $target_dir (log: $log)" >&2
logged "$log" env CARGO_TARGET_DIR="$target_dir" cargo zigbuild --locked --profile "$profile" \
  -p "$package" --bin "$package" "${targets[@]}"
echo "built $package in $((SECONDS - started))s" >&2

profile_dir=$profile
[ "$profile" = dev ] && profile_dir=debug
for t in "$@"; do
  exe=$package
  case $t in *windows*) exe=$package.exe ;; esac
  install -D -m 0755 "$target_dir/$t/$profile_dir/$exe" "$out/$t/$exe"
done
