#!/usr/bin/env bash
# Builds the test control plane from Go modules (tests/cluster/{kubernetes,etcd,kwok}),
# caching the binaries outside the checkout, keyed by version and go.sum.
# Prints the directory that holds the binaries.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${TRUSSIUM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trussium}
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod

k8s_version=v1.36.4
etcd_version=v3.6.8
kwok_version=v0.8.0

# Content only (not paths), so every checkout shares the cache.
key() { cat "$here/$1/go.mod" "$here/$1/go.sum" | sha256sum | cut -c1-12; }

# build <module dir> <version> <ldflags> <binary>=<package>...
# Outputs into $cache/<dir>-<version>-<key>/ and links each binary into $cache/bin.
build() {
  local dir=$1 version=$2 ldflags=$3
  shift 3
  local out="$cache/$dir-$version-$(key "$dir")"
  if [ ! -f "$out/.complete" ]; then
    echo "building $dir $version into $out" >&2
    local start=$SECONDS
    rm -rf "$out.tmp" && mkdir -p "$out.tmp"
    for spec in "$@"; do
      (cd "$here/$dir" && go build -trimpath -tags selinux,notest,grpcnotrace \
        -ldflags "-s -w $ldflags" -o "$out.tmp/${spec%%=*}" "${spec#*=}")
    done
    touch "$out.tmp/.complete"
    rm -rf "$out" && mv "$out.tmp" "$out"
    echo "built $dir in $((SECONDS - start))s" >&2
  fi
  for spec in "$@"; do ln -sf "$out/${spec%%=*}" "$cache/bin/${spec%%=*}"; done
}

version_ldflags() {
  local v=$1 major minor
  major=$(echo "${v#v}" | cut -d. -f1)
  minor=$(echo "${v#v}" | cut -d. -f2)
  local flags=""
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $p.gitVersion=$v -X $p.gitMajor=$major -X $p.gitMinor=$minor"
    flags+=" -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.gitTreeState=clean"
    flags+=" -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}

mkdir -p "$cache/bin"
# One build at a time per machine: checkouts (and make test beside make demo)
# share the cache, and two builds would write the same temporary directory.
exec 8>"$cache/control-plane.lock"
flock 8
build etcd "$etcd_version" "" etcd=go.etcd.io/etcd/server/v3
build kwok "$kwok_version" "-X sigs.k8s.io/kwok/pkg/consts.Version=$kwok_version" \
  kwok=sigs.k8s.io/kwok/cmd/kwok
build kubernetes "$k8s_version" "$(version_ldflags "$k8s_version")" \
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
  kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
  kubectl=k8s.io/kubernetes/cmd/kubectl
echo "$cache/bin"
