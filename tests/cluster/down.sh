#!/usr/bin/env bash
# Stops the local test control plane and removes .cluster/. Safe after a
# partial start or when nothing runs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=env.sh
source "$here/env.sh"
dir=$TRUSSIUM_CLUSTER_DIR
cache=$(realpath -m "$TRUSSIUM_CACHE")

# Our processes: those named by a pid file, plus any process whose command line
# mentions the cluster directory (a start cut short before its pid file was
# written). The directory check also keeps a reused pid from being killed.
ours() {
  local f pid
  for f in "$dir"/*.pid; do
    [ -f "$f" ] && cat "$f"
  done
  for f in /proc/[0-9]*/cmdline; do
    pid=${f#/proc/}
    pid=${pid%/cmdline}
    [ "$pid" = $$ ] && continue
    # kube binaries only, from the cache: never this script's callers.
    case "$(readlink "/proc/$pid/exe" 2>/dev/null)" in "$cache"/*) echo "$pid" ;; esac
  done
}

pids=()
for pid in $(ours | sort -un); do
  grep -qF -- "$dir/" "/proc/$pid/cmdline" 2>/dev/null && pids+=("$pid")
done

if [ "${#pids[@]}" -gt 0 ]; then
  kill -TERM "${pids[@]}" 2>/dev/null || true
  # Up to 15s for a clean exit, then force.
  alive=("${pids[@]}")
  for _ in $(seq 30); do
    still=()
    for pid in "${alive[@]}"; do kill -0 "$pid" 2>/dev/null && still+=("$pid"); done
    alive=("${still[@]}")
    [ "${#alive[@]}" -eq 0 ] && break
    sleep 0.5
  done
  [ "${#alive[@]}" -eq 0 ] || kill -KILL "${alive[@]}" 2>/dev/null || true
  echo "cluster-down: stopped ${#pids[@]} processes"
fi

rm -rf "$dir"
echo "cluster-down: removed $dir"
