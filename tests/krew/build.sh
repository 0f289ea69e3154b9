#!/usr/bin/env bash
# Builds krew (sigs.k8s.io/krew/cmd/krew) from this wrapper module as
# `kubectl-krew`, and krew's manifest checker `validate-krew-manifest`, cached
# outside the checkout and keyed by version, go.mod and go.sum (like
# tests/cluster/build.sh). Prints the directory that holds them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${TRUSSIUM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trussium}
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod

version=v0.4.3
# Content only (not paths), so every checkout shares the cache.
key=$(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)
out="$cache/krew-$version-$key"
# Two tests call this at once on a cold cache: one builds, the other waits.
# (Unlocked, one build's clean-up removed the other's binaries, and a cache
# without kubectl-krew was marked complete.)
mkdir -p "$cache"
exec 9>"$cache/krew.lock"
flock 9
complete() { [ -f "$out/.complete" ] && [ -x "$out/kubectl-krew" ] && [ -x "$out/validate-krew-manifest" ]; }
if ! complete; then
  echo "building krew $version into $out" >&2
  tmp=$(mktemp -d "$out.tmp.XXXXXX")
  (cd "$here" && go build -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/krew/internal/version.gitTag=$version" \
    -o "$tmp/kubectl-krew" sigs.k8s.io/krew/cmd/krew)
  (cd "$here" && go build -trimpath -ldflags "-s -w" \
    -o "$tmp/validate-krew-manifest" sigs.k8s.io/krew/cmd/validate-krew-manifest)
  touch "$tmp/.complete"
  rm -rf "$out" && mv "$tmp" "$out"
fi
echo "$out"
