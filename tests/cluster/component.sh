#!/usr/bin/env bash
# Stops, starts or restarts ONE component of the running local cluster, for
# fault tests: tests/cluster/component.sh <stop|kill|start|restart> <name> [flag...]
# where <name> is etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler or kwok. `stop` is SIGTERM (SIGKILL after 10 s), `kill` is
# SIGKILL; `start` runs the component again with the command line up.sh gave
# it (kept in <name>.args; etcd keeps its data directory), plus the flags
# given for this start only (e.g. --feature-gates=WatchList=false), and, for
# the API server and etcd, waits until the API server is ready again.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=env.sh
source "$here/env.sh"
dir=$TRUSSIUM_CLUSTER_DIR

usage() {
  echo "usage: $0 <stop|kill|start|restart> <etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kwok> [flag...]" >&2
  exit 2
}
[ "$#" -ge 2 ] || usage
action=$1 name=$2
shift 2
extra=("$@")
case "$name" in
  etcd | kube-apiserver | kube-controller-manager | kube-scheduler | kwok) ;;
  *) usage ;;
esac
[ -f "$dir/$name.args" ] || {
  echo "component: no $dir/$name.args; is the cluster up (make cluster-up)?" >&2
  exit 1
}

# The pid of the running component, if it is ours (its command line names
# the cluster directory; pids get reused).
pid_of() {
  local pid
  pid=$(cat "$dir/$name.pid" 2>/dev/null) || return 1
  grep -qF -- "$dir/" "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}

alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

halt() {
  local signal=$1 pid
  pid=$(pid_of) || return 0
  kill "-$signal" "$pid" 2>/dev/null || true
  for _ in $(seq 40); do
    alive "$pid" || return 0
    sleep 0.25
  done
  kill -KILL "$pid" 2>/dev/null || true
  for _ in $(seq 40); do
    alive "$pid" || return 0
    sleep 0.25
  done
  echo "component: $name (pid $pid) did not exit" >&2
  return 1
}

launch() {
  if pid_of >/dev/null; then
    echo "component: $name runs already" >&2
    return 0
  fi
  local args=()
  mapfile -d '' args <"$dir/$name.args"
  setsid "${args[@]}" "${extra[@]}" >>"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
  case "$name" in
    etcd | kube-apiserver)
      local deadline=$((SECONDS + 90))
      until [ "$(kubectl get --raw=/readyz --request-timeout=5s 2>/dev/null)" = ok ]; do
        if [ "$SECONDS" -ge "$deadline" ]; then
          echo "component: the API server is not ready 90 s after starting $name" >&2
          return 1
        fi
        sleep 0.5
      done
      ;;
  esac
}

case "$action" in
  stop) halt TERM ;;
  kill) halt KILL ;;
  start) launch ;;
  restart) halt TERM && launch ;;
  *) usage ;;
esac
