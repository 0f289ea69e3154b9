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
key=$(sha256sum "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)
out="$cache/krew-$version-$key"
if [ ! -f "$out/.complete" ]; then
  echo "building krew $version into $out" >&2
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  (cd "$here" && go build -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/krew/internal/version.gitTag=$version" \
    -o "$out.tmp/kubectl-krew" sigs.k8s.io/krew/cmd/krew)
  (cd "$here" && go build -trimpath -ldflags "-s -w" \
    -o "$out.tmp/validate-krew-manifest" sigs.k8s.io/krew/cmd/validate-krew-manifest)
  touch "$out.tmp/.complete"
  rm -rf "$out" && mv "$out.tmp" "$out"
fi
echo "$out"
