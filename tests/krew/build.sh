#!/usr/bin/env bash
# Builds krew (sigs.k8s.io/krew/cmd/krew) from this wrapper module as
# `kubectl-krew`, and krew's manifest checker `validate-krew-manifest`, cached
# outside the checkout and keyed by version, go.mod and go.sum (like
# tests/cluster/build.sh). Prints the directory that holds them. Go's output
# goes to a log file, shown only if the build fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../scripts/progress.sh
source "$here/../../scripts/progress.sh"
# shellcheck source=../../scripts/cache.sh
source "$here/../../scripts/cache.sh"
# shellcheck source=../../scripts/lock.sh
source "$here/../../scripts/lock.sh"
cache=$TRUSSIUM_CACHE
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod

version=v0.4.3
# Content only (not paths), so every checkout shares the cache.
key=$(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)
out="$cache/krew-$version-$key"
# Two tests call this at once on a cold cache: one builds, the other waits.
# (Unlocked, one build's clean-up removed the other's binaries, and a cache
# without kubectl-krew was marked complete.)
mkdir -p "$cache/logs"
wait_for_lock 9 "$cache/krew.lock" \
  step "waiting for another build of krew on this machine to finish"
complete() { [ -f "$out/.complete" ] && [ -x "$out/kubectl-krew" ] && [ -x "$out/validate-krew-manifest" ]; }
# go_build <output> <ldflags> <package>
go_build() ( cd "$here" && go build -trimpath -ldflags "-s -w $2" -o "$1" "$3" )
if ! complete; then
  log=$cache/logs/krew
  step "building krew $version from its Go module (once per machine, about 2 minutes; logs: $log-*.log)"
  tmp=$(mktemp -d "$out.tmp.XXXXXX")
  logged "$log-krew.log" go_build "$tmp/kubectl-krew" "-X sigs.k8s.io/krew/internal/version.gitTag=$version" \
    sigs.k8s.io/krew/cmd/krew
  logged "$log-validate.log" go_build "$tmp/validate-krew-manifest" "" \
    sigs.k8s.io/krew/cmd/validate-krew-manifest
  touch "$tmp/.complete"
  rm -rf "$out" && mv "$tmp" "$out"
fi
echo "$out"
