#!/usr/bin/env bash
# make bench: against the running local cluster (make cluster-up), compares
# `kubectl trussium status` (list view) with `kubectl get trussiumruntimes`
# for a namespace of 1 and of 1000 runtimes, and prints a table of
# mean/min/max wall time and max RSS.
#
# Uses hyperfine when installed (apt-get install hyperfine), else a timed
# loop. Max RSS comes from /usr/bin/time -v when present. The runtimes are
# created as the admin with a status written through the status subresource
# (no operator needed); the namespaces trussium-bench-1 and
# trussium-bench-1000 are left in place for reruns (BENCH_CLEANUP=1 deletes
# them).
#
# Environment: RUNS (default 20), PROFILE (cargo profile, default release),
# COUNTS (default "1 1000").
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/cluster/env.sh
source "$root/tests/cluster/env.sh"
cd "$root"

runs=${RUNS:-20}
profile=${PROFILE:-release}
counts=${COUNTS:-1 1000}
target_dir=${CARGO_TARGET_DIR:-$root/target}

kubectl version --request-timeout=5s >/dev/null 2>&1 || {
  echo "bench: the local cluster is not reachable; run make cluster-up" >&2
  exit 1
}

echo "building kubectl-trussium ($profile)" >&2
cargo build --quiet --profile "$profile" -p kubectl-trussium --bin kubectl-trussium
case $profile in
  dev) plugin_dir="$target_dir/debug" ;;
  *) plugin_dir="$target_dir/$profile" ;;
esac
export PATH="$plugin_dir:$PATH"

kubectl apply --server-side --force-conflicts -f crds/ >/dev/null
kubectl wait --for condition=established --timeout=60s crd/trussiumruntimes.runtime.trussium.io >/dev/null

# populate <namespace> <count>: runtimes bench-0001… with a healthy status.
populate() {
  local ns=$1 count=$2 have
  kubectl create namespace "$ns" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  have=$(kubectl get trussiumruntimes -n "$ns" --no-headers 2>/dev/null | wc -l)
  if [ "$have" -eq "$count" ]; then
    return
  fi
  echo "creating $count runtimes in $ns" >&2
  kubectl delete trussiumruntimes --all -n "$ns" >/dev/null
  local spec status
  spec=$(mktemp) status=$(mktemp)
  for i in $(seq -f '%04g' 1 "$count"); do
    local tag="v1.$((10#$i % 30)).0"
    cat >>"$spec" <<YAML
---
apiVersion: runtime.trussium.io/v1beta1
kind: TrussiumRuntime
metadata:
  name: bench-$i
  namespace: $ns
spec:
  image: {repository: ghcr.io/trussiumhq/trussium, tag: $tag}
  replicas: 2
  provider: {type: ollama, model: llama3.2}
YAML
    cat >>"$status" <<YAML
---
apiVersion: runtime.trussium.io/v1beta1
kind: TrussiumRuntime
metadata:
  name: bench-$i
  namespace: $ns
spec:
  image: {repository: ghcr.io/trussiumhq/trussium, tag: $tag}
  replicas: 2
  provider: {type: ollama, model: llama3.2}
status:
  observedGeneration: 1
  desiredReplicas: 2
  readyReplicas: 2
  availableReplicas: 2
  desiredImage: ghcr.io/trussiumhq/trussium:$tag
  currentImage: ghcr.io/trussiumhq/trussium:$tag
  lastSuccessfulImage: ghcr.io/trussiumhq/trussium:$tag
  endpoint: http://bench-$i.$ns.svc.cluster.local:9000
  conditions:
  - {type: Ready, status: "True", reason: RuntimeReady, message: All requested runtime replicas are ready and available., lastTransitionTime: "2025-01-01T00:00:00Z", observedGeneration: 1}
  - {type: Upgrading, status: "False", reason: NoUpgrade, message: No image upgrade is active., lastTransitionTime: "2025-01-01T00:00:00Z", observedGeneration: 1}
YAML
  done
  kubectl create -f "$spec" >/dev/null
  kubectl replace --subresource=status -f "$status" >/dev/null
  rm -f "$spec" "$status"
}

results=$(mktemp)
trap 'rm -f "$results"' EXIT

# measure <runtimes> <label> <command…>: appends "runtimes|label|mean|min|max|rss" in ms/MiB.
measure() {
  local n=$1 label=$2
  shift 2
  local mean min max rss="-"
  if command -v hyperfine >/dev/null; then
    local json
    json=$(mktemp)
    hyperfine --style none --shell=none --warmup 2 --runs "$runs" --export-json "$json" \
      "$(printf '%q ' "$@")" >/dev/null
    read -r mean min max < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(" ".join("%.1f" % (r[k] * 1000) for k in ("mean", "min", "max")))' "$json")
    rm -f "$json"
  else
    local times=() start end
    "$@" >/dev/null 2>&1 || true
    for _ in $(seq "$runs"); do
      start=$(date +%s%N)
      "$@" >/dev/null 2>&1
      end=$(date +%s%N)
      times+=($(((end - start) / 1000)))
    done
    read -r mean min max < <(printf '%s\n' "${times[@]}" | awk '
      {s += $1; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1}
      END {printf "%.1f %.1f %.1f\n", s / NR / 1000, min / 1000, max / 1000}')
  fi
  if [ -x /usr/bin/time ]; then
    rss=$(/usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}')
  fi
  echo "$n|$label|$mean|$min|$max|$rss" >>"$results"
}

for n in $counts; do
  ns="trussium-bench-$n"
  populate "$ns" "$n"
  measure "$n" "kubectl trussium status" kubectl trussium status -n "$ns"
  measure "$n" "kubectl-trussium status (direct)" kubectl-trussium status -n "$ns"
  measure "$n" "kubectl get trussiumruntimes" kubectl get trussiumruntimes -n "$ns"
done

echo
echo "kubectl $(kubectl version --client -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])'), kubectl-trussium ($profile build), $runs runs each"
printf '%-10s %-34s %10s %10s %10s %12s\n' RUNTIMES COMMAND "MEAN ms" "MIN ms" "MAX ms" "MAX RSS MiB"
while IFS='|' read -r n label mean min max rss; do
  printf '%-10s %-34s %10s %10s %10s %12s\n' "$n" "$label" "$mean" "$min" "$max" "$rss"
done <"$results"

if [ "${BENCH_CLEANUP:-0}" = 1 ]; then
  for n in $counts; do kubectl delete namespace "trussium-bench-$n" --wait=false >/dev/null; done
fi
