#!/usr/bin/env bash
# make demo: a local cluster, the operator running as its own ServiceAccount,
# the minimal sample runtime, and `kubectl trussium status` once it is Ready.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

tests/cluster/build.sh >/dev/null
tests/cluster/up.sh
# shellcheck source=../tests/cluster/env.sh
source tests/cluster/env.sh
scripts/install.sh

cargo build --quiet -p trussium-operator -p kubectl-trussium
export PATH="$root/target/debug:$PATH"

# One operator per cluster: stop a previous demo's operator first. The pid
# file lives in the cluster directory and the operator's environment names
# that directory (KUBECONFIG), so `make cluster-down` stops it too.
dir=$TRUSSIUM_CLUSTER_DIR
pidfile=$dir/operator.pid
if [ -f "$pidfile" ] && grep -qaF -- "=$dir/" "/proc/$(cat "$pidfile")/environ" 2>/dev/null; then
  kill "$(cat "$pidfile")" && sleep 1
fi
mkdir -p "$dir/logs"
# No fixed metrics/probe ports: other clusters may run on this machine.
KUBECONFIG=$dir/operator.kubeconfig setsid target/debug/trussium-operator \
  --metrics-bind-address=0 --health-probe-bind-address=0 \
  >"$dir/logs/operator.log" 2>&1 </dev/null &
echo $! >"$pidfile"
echo "operator running (pid $(cat "$pidfile"), log $dir/logs/operator.log)"

kubectl create namespace trussium --dry-run=client -o yaml | kubectl apply -f - >/dev/null
kubectl apply -n trussium -f deploy/samples/minimal.yaml
kubectl wait -n trussium --for=condition=Ready --timeout=120s trussiumruntime/private-ai
echo
kubectl trussium status -n trussium private-ai
cat <<MSG

Try:
  export KUBECONFIG=$KUBECONFIG PATH=$root/target/debug:\$PATH
  kubectl trussium status -n trussium
  kubectl trussium upgrade -n trussium private-ai --tag v1.23.0 --wait
  kubectl trussium scale -n trussium private-ai --replicas 3
  kubectl trussium events -n trussium private-ai
Stop everything with: make cluster-down
MSG
