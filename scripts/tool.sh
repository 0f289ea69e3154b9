#!/usr/bin/env bash
# Builds (or reuses) a pinned third-party tool that lint, the tests, the docs or
# a release need, and prints the path of its binary. Every tool is built once
# per machine and cached outside the checkout, keyed by what pins it, so fresh
# clones (CI) reuse it:
#
#   Go tools   tools/<name>/go.mod (+ go.sum): a module of ours whose `tool`
#              line names the command's package (or the module's own, when
#              tools/<name>/*.go wraps a library); optional tools/<name>/ldflags
#              (stamps the version) and tools/<name>/tags (build tags, e.g. to
#              leave out what we never run). Built with the machine's Go
#              toolchain from the Go module proxy, keyed by all of these.
#   Rust tools tools/<name>.crate: one line "<crate> <version>", installed with
#              `cargo install --locked`; optional tools/<name>.features (cargo
#              install's feature flags, to leave out what we never run).
#              Keyed by these and rustc's version.
#
#   scripts/tool.sh helm            -> /root/.cache/trussium/tools/helm-<key>/helm
#
# A cold build prints one line saying so, and a line a minute while it runs;
# the compiler's and downloader's chatter goes to a log file that is shown
# only if the build fails (scripts/progress.sh). Concurrent callers wait for
# one build (a lock per tool).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=progress.sh
source "$root/scripts/progress.sh"
# shellcheck source=cache.sh
source "$root/scripts/cache.sh"
cache=$TRUSSIUM_CACHE
name=${1:?usage: scripts/tool.sh <name> (a directory tools/<name>/ or a file tools/<name>.crate)}
dir=$root/tools/$name
crate_file=$root/tools/$name.crate

mkdir -p "$cache/tools" "$cache/logs"
# shellcheck source=lock.sh
source "$root/scripts/lock.sh"
wait_for_lock 9 "$cache/tools/$name.lock" \
  echo "waiting for another build of $name on this machine to finish"

log=$cache/logs/tool-$name.log
# build <out dir> <binary> <what> <command...>: runs the build into a fresh
# temporary directory, logging, and moves it into place when complete.
build() {
  local out=$1 binary=$2 what=$3
  shift 3
  if [ -f "$out/.complete" ] && [ -x "$out/$binary" ]; then
    return 0
  fi
  local started=$SECONDS tmp
  echo "building $what (once per machine; log: $log)" >&2
  tmp=$(mktemp -d "$out.tmp.XXXXXX")
  if ! logged "$log" "$@" "$tmp"; then
    echo "building $what failed" >&2
    rm -rf "$tmp"
    exit 1
  fi
  touch "$tmp/.complete"
  rm -rf "$out" && mv "$tmp" "$out"
  echo "built $what in $((SECONDS - started)) s" >&2
}

if [ -f "$dir/go.mod" ]; then
  command -v go >/dev/null || { echo "tool.sh: building $name needs Go (go not on PATH)" >&2; exit 1; }
  package=$(awk '/^tool[[:space:]]*\(/ { block = 1; next } block && /\)/ { exit } block { print $1; exit } /^tool[[:space:]]+[^(]/ { print $2; exit }' "$dir/go.mod")
  [ -n "$package" ] || { echo "tool.sh: $dir/go.mod has no tool line" >&2; exit 1; }
  binary=${package##*/}
  ldflags=""
  [ -f "$dir/ldflags" ] && ldflags=$(tr '\n' ' ' <"$dir/ldflags")
  tags=""
  [ -f "$dir/tags" ] && tags=$(tr '\n' ',' <"$dir/tags" | sed 's/,$//')
  # (The pins that exist, then any *.go in name order.)
  key=$( (for pin in go.mod go.sum ldflags tags; do
      if [ -f "$dir/$pin" ]; then cat "$dir/$pin"; fi
    done
    find "$dir" -maxdepth 1 -type f -name '*.go' | sort | xargs -r cat) |
    sha256sum | cut -c1-12)
  out=$cache/tools/$name-$key
  go_build() {
    (cd "$dir" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod \
      go build -trimpath -tags "$tags" -ldflags "-s -w $ldflags" -o "$1/$binary" "$package")
  }
  build "$out" "$binary" "$name ($package)" go_build
elif [ -f "$crate_file" ]; then
  read -r crate version <"$crate_file"
  binary=$crate
  [ -f "$root/tools/$name.bin" ] && binary=$(cat "$root/tools/$name.bin")
  features_file=$root/tools/$name.features
  features=()
  if [ -f "$features_file" ]; then read -r -a features <"$features_file"; fi
  key=$( (cat "$crate_file"; if [ -f "$features_file" ]; then cat "$features_file"; fi; rustc -V) |
    sha256sum | cut -c1-12)
  out=$cache/tools/$name-$version-$key
  cargo_install() {
    cargo install --locked --quiet --root "$1/root" "${features[@]}" "$crate" --version "$version" &&
      ln -s "root/bin/$binary" "$1/$binary"
  }
  build "$out" "$binary" "$crate $version (cargo install)" cargo_install
else
  echo "tool.sh: no tool '$name' (expected tools/$name/go.mod or tools/$name.crate)" >&2
  exit 1
fi
echo "$out/$binary"
