#!/usr/bin/env bash
# Prints the path of the previous release's operator binary, building it
# first if this machine has not: from its commit's sources (git archive, so
# nothing of the checkout is touched), with the cheap cross-check profile,
# into the shared cache keyed by the commit. The upgrade test runs it
# (tests/tests/cluster_wide/upgrade.rs); move PREVIOUS_RELEASE on at each
# release.
set -euo pipefail

# shellcheck source=cache.sh
source "$(dirname "$0")/cache.sh"
root=$(cd "$(dirname "$0")/.." && pwd)

# The previous release: main when the third milestone shipped (v1alpha1
# only, before v1beta1).
PREVIOUS_RELEASE=5f9d322cbc25c65042e969446c705e321c0846af

cache=$TRUSSIUM_CACHE
out="$cache/previous-operator-${PREVIOUS_RELEASE:0:12}"
mkdir -p "$cache"
exec 9>"$cache/previous-operator.lock"
flock 9

if [ ! -x "$out/trussium-operator" ]; then
  echo "building the previous release's operator (${PREVIOUS_RELEASE:0:12}) into $out" >&2
  # A shallow clone lacks the commit: fetch just that one.
  if ! git -C "$root" cat-file -e "$PREVIOUS_RELEASE^{commit}" 2>/dev/null; then
    git -C "$root" fetch --quiet --depth=1 origin "$PREVIOUS_RELEASE"
  fi
  work="$out.tmp"
  rm -rf "$work" && mkdir -p "$work/src"
  git -C "$root" archive "$PREVIOUS_RELEASE" | tar -x -C "$work/src"
  (cd "$work/src" && CARGO_TARGET_DIR="$work/target" \
    cargo build --quiet --locked --profile cross-check -p trussium-operator)
  mkdir -p "$work/bin"
  cp "$work/target/cross-check/trussium-operator" "$work/bin/"
  rm -rf "$out" && mv "$work/bin" "$out" && rm -rf "$work"
fi
echo "$out/trussium-operator"
