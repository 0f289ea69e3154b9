#!/usr/bin/env bash
# Builds the test control plane from Go modules (tests/cluster/{kubernetes/<minor>,etcd,kwok}),
# caching the binaries outside the checkout, keyed by version and go.sum.
# Kubernetes is the minor in TRUSSIUM_KUBERNETES_VERSION (make cluster-up
# KUBERNETES_VERSION=1.34), else the newest supported one (kubernetes-versions.txt),
# at the patch release pinned there. Prints the directory that holds that
# version's binaries (with etcd and KWOK beside them). A cold build says what it
# builds and roughly how long that takes; Go's download and compile output
# goes to a log file per binary, shown only if its build fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../scripts/progress.sh
source "$here/../../scripts/progress.sh"
# shellcheck source=../../scripts/cache.sh
source "$here/../../scripts/cache.sh"
# shellcheck source=../../scripts/lock.sh
source "$here/../../scripts/lock.sh"
# shellcheck source=../../scripts/kubernetes-versions.sh
source "$here/../../scripts/kubernetes-versions.sh"
cache=$TRUSSIUM_CACHE
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod

# Before anything is built: an unsupported minor says which are supported.
k8s_minor=${TRUSSIUM_KUBERNETES_VERSION:-$(kubernetes_newest)}
kubernetes_check "$k8s_minor"
k8s_version=$(kubernetes_patch "$k8s_minor")
bin=$cache/bin/$k8s_minor
# The patch the file pins is the module the wrapper builds (the binaries'
# version strings come from the file).
grep -q "^require k8s.io/kubernetes $k8s_version\$\|^[[:space:]]k8s.io/kubernetes $k8s_version\b" "$here/kubernetes/$k8s_minor/go.mod" || {
  echo "build: tests/cluster/kubernetes/$k8s_minor/go.mod does not require k8s.io/kubernetes $k8s_version (kubernetes-versions.txt)" >&2
  exit 1
}
etcd_version=v3.6.8
kwok_version=v0.8.0

# Content only (not paths), so every checkout shares the cache.
key() { cat "$here/$1/go.mod" "$here/$1/go.sum" | sha256sum | cut -c1-12; }

# go_build <module dir> <ldflags> <output> <package>
go_build() (
  cd "$here/$1" && go build -trimpath -tags selinux,notest,grpcnotrace \
    -ldflags "-s -w $2" -o "$3" "$4"
)

# build <module dir> <version> <first-time estimate> <ldflags> <binary>=<package>...
# Outputs into $cache/<name>-<version>-<key>/ and links each binary into $bin.
build() {
  local dir=$1 version=$2 estimate=$3 ldflags=$4 name=${1%%/*}
  shift 4
  local out="$cache/$name-$version-$(key "$dir")"
  if [ ! -f "$out/.complete" ]; then
    # One build at a time per machine: checkouts (and make test beside make
    # demo) share the cache, and two builds would write the same temporary
    # directory. Once held, the lock stays until the script ends.
    wait_for_lock 8 "$cache/control-plane.lock" \
      step "waiting for another build of the control plane on this machine to finish"
  fi
  if [ ! -f "$out/.complete" ]; then
    step "building $name $version from its Go module (once per machine, $estimate on 2 cores)"
    local start=$SECONDS spec
    rm -rf "$out.tmp" && mkdir -p "$out.tmp"
    for spec in "$@"; do
      echo "    ${spec%%=*} (log: $cache/logs/control-plane-${spec%%=*}.log)" >&2
      logged "$cache/logs/control-plane-${spec%%=*}.log" \
        go_build "$dir" "$ldflags" "$out.tmp/${spec%%=*}" "${spec#*=}"
    done
    touch "$out.tmp/.complete"
    rm -rf "$out" && mv "$out.tmp" "$out"
    echo "    built $name in $((SECONDS - start)) s" >&2
  fi
  for spec in "$@"; do ln -sfn "$out/${spec%%=*}" "$bin/${spec%%=*}"; done
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

mkdir -p "$bin" "$cache/logs"
build etcd "$etcd_version" "about a minute" "" etcd=go.etcd.io/etcd/server/v3
build kwok "$kwok_version" "about 2 minutes" "-X sigs.k8s.io/kwok/pkg/consts.Version=$kwok_version" \
  kwok=sigs.k8s.io/kwok/cmd/kwok
build "kubernetes/$k8s_minor" "$k8s_version" "about 5 to 9 minutes" "$(version_ldflags "$k8s_version")" \
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
  kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
  kubectl=k8s.io/kubernetes/cmd/kubectl
echo "$bin"
