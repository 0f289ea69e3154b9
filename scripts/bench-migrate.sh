#!/usr/bin/env bash
# make bench-migrate: the storage migration (`kubectl trussium migrate`) at N
# runtimes (BENCH_MIGRATE_RUNTIMES, default 1000), against the running local
# cluster. The runtimes are created under the CRD turned into one that
# stores v1alpha1 (as releases before v1beta1 did), then this release's CRD
# is applied again and migrate runs twice. Prints the writes (from the audit
# log), the wall time and the peak RSS of each run. Leaves the namespace
# trussium-bench-migrate behind (BENCH_CLEANUP=1 deletes it).
#
# Environment: PROFILE (cargo profile, default release).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/cluster/env.sh
source "$root/tests/cluster/env.sh"
cd "$root"

count=${BENCH_MIGRATE_RUNTIMES:-1000}
profile=${PROFILE:-release}
target_dir=${CARGO_TARGET_DIR:-$root/target}
ns=trussium-bench-migrate
crd=trussiumruntimes.runtime.trussium.io
audit=$TRUSSIUM_CLUSTER_DIR/audit.log

kubectl version --request-timeout=5s >/dev/null 2>&1 || {
  echo "bench-migrate: the local cluster is not reachable; run make cluster-up" >&2
  exit 1
}
echo "building kubectl-trussium ($profile)" >&2
cargo build --quiet --profile "$profile" -p kubectl-trussium --bin kubectl-trussium
case $profile in
  dev) plugin="$target_dir/debug/kubectl-trussium" ;;
  *) plugin="$target_dir/$profile/kubectl-trussium" ;;
esac

kubectl apply --server-side --force-conflicts -f crds/ >/dev/null
kubectl wait --for condition=established --timeout=60s "crd/$crd" >/dev/null

# The CRD storing v1alpha1: swap the storage flags of its two versions.
beta_index=$(kubectl get crd "$crd" -o jsonpath='{range .spec.versions[*]}{.name}{"\n"}{end}' | grep -n '^v1beta1$' | cut -d: -f1)
alpha_index=$(kubectl get crd "$crd" -o jsonpath='{range .spec.versions[*]}{.name}{"\n"}{end}' | grep -n '^v1alpha1$' | cut -d: -f1)
kubectl patch crd "$crd" --type=json -p "[
  {\"op\": \"replace\", \"path\": \"/spec/versions/$((beta_index - 1))/storage\", \"value\": false},
  {\"op\": \"replace\", \"path\": \"/spec/versions/$((alpha_index - 1))/storage\", \"value\": true}
]" >/dev/null
sleep 2 # the API server switches its storage a moment after the CRD changes

echo "creating $count runtimes as v1alpha1 in $ns" >&2
kubectl delete namespace "$ns" --ignore-not-found --wait >/dev/null
kubectl create namespace "$ns" >/dev/null
manifests=$(mktemp)
trap 'rm -f "$manifests"' EXIT
for i in $(seq -f '%05g' 1 "$count"); do
  cat >>"$manifests" <<YAML
---
apiVersion: runtime.trussium.io/v1alpha1
kind: TrussiumRuntime
metadata: {name: bench-$i, namespace: $ns}
spec:
  image: {repository: ghcr.io/trussiumhq/trussium-runtime, tag: v1.22.0}
  provider: {type: ollama, model: llama3.2}
YAML
done
kubectl apply --server-side -f "$manifests" >/dev/null
kubectl apply --server-side --force-conflicts -f crds/ >/dev/null
sleep 2 # and back (migrate waits for it too)
echo "storedVersions: $(kubectl get crd "$crd" -o jsonpath='{.status.storedVersions}')" >&2
# migrate rewrites every runtime of the cluster (bench-plugin leaves some).
count=$(kubectl get trussiumruntimes -A --no-headers | wc -l)

# run <label>: one migrate, its writes of runtimes and CRDs (audit log; the
# control plane's own Lease renewals are not counted) and time.
run() {
  local label=$1 before after writes rss start seconds log
  before=$(wc -l <"$audit")
  start=$(date +%s.%N)
  log=$(mktemp)
  if ! /usr/bin/time -o "$log" -f '%M' "$plugin" migrate >/dev/null; then
    echo "bench-migrate: migrate failed" >&2
    exit 1
  fi
  rss=$(tail -n 1 "$log")
  rm -f "$log"
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  sleep 1
  after=$(wc -l <"$audit")
  writes=$(sed -n "$((before + 1)),${after}p" "$audit" |
    grep '"stage":"ResponseComplete"' |
    grep -E '"verb":"(create|update|patch|delete)"' |
    grep -cE '"resource":"(trussiumruntimes|customresourcedefinitions)"' || true)
  printf '%-14s %8s %10s %12s %10.2f %12s\n' "$label" "$count" "$writes" \
    "$(echo "scale=3; $writes / $count" | bc)" "$seconds" "$((rss / 1024))"
}
printf '%-14s %8s %10s %12s %10s %12s\n' run runtimes writes "per runtime" seconds "peak MiB"
run "migrate"
run "migrate again"
if [ "${BENCH_CLEANUP:-0}" = 1 ]; then
  kubectl delete namespace "$ns" --wait=false >/dev/null
fi
