#!/usr/bin/env bash
# make demo: a local cluster, the operator running as its own ServiceAccount,
# the minimal sample runtime, and `kubectl trussium status` once it is Ready.
# One line per phase; the compilers' output goes to log files, shown only
# when a build fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=progress.sh
source scripts/progress.sh
# What the demo runs besides Go and Rust (openssl for the cluster's
# certificates, a C linker for cargo, setsid), installed with apt when
# missing, as make test does.
# shellcheck source=need.sh
source scripts/need.sh
need_for_demo

step "control plane: Kubernetes, etcd and KWOK binaries (built from Go modules once per machine, about 7 to 12 minutes; then cached)"
tests/cluster/build.sh >/dev/null
step "starting the local cluster (a few seconds)"
tests/cluster/up.sh >/dev/null
# shellcheck source=../tests/cluster/env.sh
source tests/cluster/env.sh
step "installing the CRD and the operator's RBAC"
scripts/install.sh >/dev/null

step "building the operator and the plugin (cargo; the first time about 3 to 5 minutes)"
logged target/demo-build.log cargo build -p trussium-operator -p kubectl-trussium
export PATH="$root/target/debug:$PATH"

step "starting the operator"
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
echo "    pid $(cat "$pidfile"), log $dir/logs/operator.log" >&2

step "creating the sample runtime and waiting until it is Ready (seconds)"
kubectl create namespace trussium --dry-run=client -o yaml | kubectl apply -f - >/dev/null
kubectl apply -n trussium -f deploy/samples/minimal.yaml >/dev/null
if ! kubectl wait -n trussium --for=condition=Ready --timeout=120s trussiumruntime/private-ai >/dev/null; then
  echo "the runtime did not become Ready; the last lines of the operator's log:" >&2
  tail -n 20 "$dir/logs/operator.log" >&2
  exit 1
fi
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
