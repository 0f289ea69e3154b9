#!/usr/bin/env bash
# Stops the local test control plane and removes .cluster/. Safe after a
# partial start or when nothing runs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=env.sh
source "$here/env.sh"
dir=$TRUSSIUM_CLUSTER_DIR
cache=$(realpath -m "$TRUSSIUM_CACHE")

# Candidates: pids from the pid files, plus every process running a binary of
# the cache (a start cut short before its pid file was written).
candidates() {
  local f pid
  for f in "$dir"/*.pid; do
    [ -f "$f" ] && cat "$f"
  done
  for f in /proc/[0-9]*/exe; do
    pid=${f#/proc/}
    pid=${pid%/exe}
    case "$(readlink "$f" 2>/dev/null)" in "$cache"/*) echo "$pid" ;; esac
  done
}

# Ours: a candidate whose command line or environment mentions the cluster
# directory (this also keeps a reused pid from being killed). The operator
# `make demo` starts names it only in its environment (KUBECONFIG).
# Printed as "<pid> <binary>".
mentions_dir() {
  grep -qF -- "$dir/" "/proc/$1/cmdline" 2>/dev/null ||
    grep -qaF -- "=$dir/" "/proc/$1/environ" 2>/dev/null
}

ours() {
  local pid
  for pid in $(candidates | sort -un); do
    mentions_dir "$pid" || continue
    echo "$pid $(basename "$(readlink "/proc/$pid/exe" 2>/dev/null)")"
  done
}

# A process that exited but was not reaped yet (a zombie) counts as gone: this
# machine's init reaps orphans only every few seconds.
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# stop <signal> <pid>...: the signal, up to 10s for the exit, then SIGKILL.
stop() {
  local signal=$1
  shift
  [ "$#" -gt 0 ] || return 0
  kill "-$signal" "$@" 2>/dev/null || true
  local remaining=("$@") still pid
  for _ in $(seq 40); do
    still=()
    for pid in "${remaining[@]}"; do alive "$pid" && still+=("$pid"); done
    remaining=("${still[@]}")
    [ "${#remaining[@]}" -eq 0 ] && return 0
    sleep 0.25
  done
  kill -KILL "${remaining[@]}" 2>/dev/null || true
}

# Clients first, then the API server, then etcd: a server stopped before its
# clients makes them (and itself) wait for timeouts. etcd's data is deleted
# right after, so it need not shut down cleanly.
clients=() apiserver=() etcd=()
while read -r pid binary; do
  case "$binary" in
    kube-apiserver) apiserver+=("$pid") ;;
    etcd) etcd+=("$pid") ;;
    *) clients+=("$pid") ;;
  esac
done < <(ours)
stop TERM "${clients[@]}"
stop TERM "${apiserver[@]}"
stop KILL "${etcd[@]}"
total=$((${#clients[@]} + ${#apiserver[@]} + ${#etcd[@]}))
[ "$total" -eq 0 ] || echo "cluster-down: stopped $total processes"

rm -rf "$dir"
echo "cluster-down: removed $dir"
