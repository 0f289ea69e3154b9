#!/usr/bin/env bash
# Starts the local test control plane on 127.0.0.1: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and KWOK with fake nodes in two zones.
# Kubernetes is the minor in TRUSSIUM_KUBERNETES_VERSION (make cluster-up
# KUBERNETES_VERSION=1.34), else the newest supported (kubernetes-versions.txt).
# Everything lives in .cluster/ (PKI, kubeconfigs, logs, pids, audit log).
# Idempotent: a healthy running cluster of that version is reused; a broken
# one, or one of another version, is replaced.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# The version asked for, else the newest (not the running cluster's, which
# env.sh would pick up: a plain make cluster-up means the default).
# shellcheck source=../../scripts/kubernetes-versions.sh
source "$here/../../scripts/kubernetes-versions.sh"
export TRUSSIUM_KUBERNETES_VERSION=${TRUSSIUM_KUBERNETES_VERSION:-$(kubernetes_newest)}
# shellcheck source=env.sh
source "$here/env.sh"
dir=$TRUSSIUM_CLUSTER_DIR
port=$TRUSSIUM_APISERVER_PORT
components=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
started_at=$EPOCHREALTIME

elapsed() { awk -v a="$started_at" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1fs", b - a }'; }

# A component runs if its pid file names a live process that is ours
# (its command line mentions the cluster directory; pids get reused).
running() {
  local pid
  pid=$(cat "$dir/$1.pid" 2>/dev/null) || return 1
  grep -qF -- "$dir/" "/proc/$pid/cmdline" 2>/dev/null
}

healthy() {
  [ -f "$KUBECONFIG" ] || return 1
  [ "$(cat "$dir/kubernetes-version" 2>/dev/null)" = "$TRUSSIUM_KUBERNETES_VERSION" ] || return 1
  local c
  for c in "${components[@]}"; do running "$c" || return 1; done
  [ "$(kubectl get --raw=/readyz --request-timeout=5s 2>/dev/null)" = ok ]
}

usage() {
  cat <<USAGE
Local cluster: https://127.0.0.1:$port, Kubernetes $(kubernetes_patch "$TRUSSIUM_KUBERNETES_VERSION") ($(kubectl get nodes --no-headers 2>/dev/null | wc -l) KWOK nodes)
  export KUBECONFIG=$KUBECONFIG
  or: source tests/cluster/env.sh   (also puts kubectl $(kubectl version --client -o yaml | awk '/gitVersion/ {print $2}') first on PATH)
  logs: $dir/logs/   audit log: $dir/audit.log
  stop: make cluster-down
USAGE
}

# wait_until <seconds> <what> <command...>
wait_until() {
  local timeout=$1 what=$2 deadline=$((SECONDS + $1))
  shift 2
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "cluster-up: timed out after ${timeout}s waiting for $what; logs in $dir/logs/" >&2
      return 1
    fi
    sleep 0.5
  done
}

# start <name> <binary> <args...>: a daemon in its own session (so Ctrl-C on
# the caller does not reach it), output to logs/<name>.log, pid to <name>.pid.
# The command line is kept in <name>.args so that component.sh can stop and
# start that one component again (fault tests).
start() {
  local name=$1
  shift
  printf '%s\0' "$@" >"$dir/$name.args"
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# kubeconfig <identity>: a kubeconfig authenticating with pki/<identity>.{crt,key}.
kubeconfig() {
  cat >"$dir/$1.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: trussium-local
    cluster:
      server: https://127.0.0.1:$port
      certificate-authority-data: $(base64 -w0 "$dir/pki/ca.crt")
users:
  - name: $1
    user:
      client-certificate-data: $(base64 -w0 "$dir/pki/$1.crt")
      client-key-data: $(base64 -w0 "$dir/pki/$1.key")
contexts:
  - name: trussium-local
    context:
      cluster: trussium-local
      user: $1
      namespace: default
current-context: trussium-local
KUBECONFIG
  chmod 600 "$dir/$1.kubeconfig"
}

# Checks the version (naming the supported ones) before anything else.
TRUSSIUM_KUBERNETES_VERSION=$TRUSSIUM_KUBERNETES_VERSION "$here/build.sh" >/dev/null

if healthy; then
  echo "cluster-up: reusing the running cluster in $dir"
  usage
  exit 0
fi
if [ -e "$dir" ]; then
  running=$(cat "$dir/kubernetes-version" 2>/dev/null || true)
  if [ -n "$running" ] && [ "$running" != "$TRUSSIUM_KUBERNETES_VERSION" ]; then
    echo "cluster-up: $dir holds a Kubernetes $running cluster; replacing it with $TRUSSIUM_KUBERNETES_VERSION" >&2
  else
    echo "cluster-up: $dir holds a stopped or broken cluster; removing it" >&2
  fi
  "$here/down.sh"
fi

for p in "$port" "$TRUSSIUM_ETCD_PORT" "$TRUSSIUM_ETCD_PEER_PORT" "$TRUSSIUM_KWOK_PORT"; do
  if ! port_free "$p"; then
    echo "cluster-up: port $p on 127.0.0.1 is in use (set TRUSSIUM_APISERVER_PORT, TRUSSIUM_ETCD_PORT, TRUSSIUM_ETCD_PEER_PORT, TRUSSIUM_KWOK_PORT)" >&2
    exit 1
  fi
done

mkdir -p "$dir/logs"
echo "$TRUSSIUM_KUBERNETES_VERSION" >"$dir/kubernetes-version"
"$here/pki.sh" "$dir/pki"
for identity in admin kube-controller-manager kube-scheduler kwok; do kubeconfig "$identity"; done

# etcd: single member on loopback; no fsync, the data is thrown away.
start etcd etcd --name=trussium \
  --data-dir="$dir/etcd" \
  --listen-client-urls="http://127.0.0.1:$TRUSSIUM_ETCD_PORT" \
  --advertise-client-urls="http://127.0.0.1:$TRUSSIUM_ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$TRUSSIUM_ETCD_PEER_PORT" \
  --initial-advertise-peer-urls="http://127.0.0.1:$TRUSSIUM_ETCD_PEER_PORT" \
  --initial-cluster="trussium=http://127.0.0.1:$TRUSSIUM_ETCD_PEER_PORT" \
  --unsafe-no-fsync --log-level=warn

# kube-apiserver: the machine has no default route, hence --advertise-address;
# no endpoint reconciler (a loopback address is not a valid Endpoints IP).
# The audit log is written synchronously (blocking mode) and never rotated, so
# tests can read a request's event right after it returns.
# TRUSSIUM_APISERVER_PROFILING=true serves /debug/pprof, to see where the API
# server's CPU goes (`kubectl get --raw '/debug/pprof/profile?seconds=30'`).
start kube-apiserver kube-apiserver \
  --advertise-address=127.0.0.1 --bind-address=127.0.0.1 --secure-port="$port" \
  --etcd-servers="http://127.0.0.1:$TRUSSIUM_ETCD_PORT" \
  --tls-cert-file="$dir/pki/apiserver.crt" --tls-private-key-file="$dir/pki/apiserver.key" \
  --client-ca-file="$dir/pki/ca.crt" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$dir/pki/sa.pub" \
  --service-account-signing-key-file="$dir/pki/sa.key" \
  --service-cluster-ip-range=10.96.0.0/16 \
  --authorization-mode=Node,RBAC \
  --enable-admission-plugins=OwnerReferencesPermissionEnforcement \
  --audit-policy-file="$here/audit-policy.yaml" \
  --audit-log-path="$dir/audit.log" --audit-log-format=json --audit-log-mode=blocking \
  --audit-log-maxsize=100000 --audit-log-maxbackup=0 \
  --endpoint-reconciler-type=none --profiling="${TRUSSIUM_APISERVER_PROFILING:-false}" \
  --kubelet-preferred-address-types=InternalIP

wait_until 90 "kube-apiserver /readyz" kubectl get --raw=/readyz

kubectl apply -f "$here/kwok-rbac.yaml" -f "$here/nodes.yaml" >/dev/null

# kube-controller-manager: each controller acts as its own ServiceAccount, as
# in a real cluster. HPAs resync every 5s so tests see them react quickly.
start kube-controller-manager kube-controller-manager \
  --kubeconfig="$dir/kube-controller-manager.kubeconfig" \
  --leader-elect=false --secure-port=0 \
  --use-service-account-credentials=true \
  --service-account-private-key-file="$dir/pki/sa.key" \
  --root-ca-file="$dir/pki/ca.crt" \
  --controllers=deployment-controller,replicaset-controller,garbage-collector-controller,horizontal-pod-autoscaler-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller,node-lifecycle-controller,taint-eviction-controller,root-ca-certificate-publisher-controller,disruption-controller,clusterrole-aggregation-controller,endpointslice-controller,pod-garbage-collector-controller,resourcequota-controller \
  --horizontal-pod-autoscaler-sync-period=5s \
  --kube-api-qps=200 --kube-api-burst=400

start kube-scheduler kube-scheduler \
  --kubeconfig="$dir/kube-scheduler.kubeconfig" \
  --leader-elect=false --secure-port=0

# Every container's log, as KWOK serves it (the CRI log format kubelets
# write: one "<time> <stream> F <text>" line each); a crash-looping
# container's previous run ends with its exit.
cat > "$dir/runtime.log" <<'LOG'
2026-12-01T10:00:00.000000000Z stdout F trussium gateway starting
2026-12-01T10:00:01.000000000Z stdout F provider ollama reachable
2026-12-01T10:00:02.000000000Z stdout F listening on :9000
LOG
cat > "$dir/runtime-previous.log" <<'LOG'
2026-12-01T09:59:00.000000000Z stdout F trussium gateway starting
2026-12-01T09:59:01.000000000Z stderr F error: model not found on the provider
LOG
cat > "$dir/kwok-logs.yaml" <<YAML
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: every-container
spec:
  logs:
  - logsFile: $dir/runtime.log
    previousLogsFile: $dir/runtime-previous.log
    follow: true
YAML

# KWOK plays the kubelet of the nodes annotated kwok.x-k8s.io/node=fake, and
# serves their kubelet API (pods/log) on 127.0.0.1, the nodes' InternalIP.
start kwok kwok \
  --kubeconfig="$dir/kwok.kubeconfig" \
  --config="$here/kwok-stages.yaml" \
  --config="$dir/kwok-logs.yaml" \
  --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --node-lease-duration-seconds=40 \
  --cidr=10.244.0.0/16 --node-ip=127.0.0.1 \
  --server-address="127.0.0.1:$TRUSSIUM_KWOK_PORT" --node-port="$TRUSSIUM_KWOK_PORT" \
  --tls-cert-file="$dir/pki/kwok-serving.crt" --tls-private-key-file="$dir/pki/kwok-serving.key"

wait_until 60 "the KWOK nodes to be Ready" kubectl wait --for=condition=Ready node --all --timeout=5s
wait_until 60 "the not-ready taints to be removed" \
  bash -c '! kubectl get nodes -o jsonpath="{.items[*].spec.taints[*].key}" | grep -q not-ready'
wait_until 60 "the default ServiceAccount" kubectl get serviceaccount default --namespace=default

for c in "${components[@]}"; do
  running "$c" || { echo "cluster-up: $c exited; see $dir/logs/$c.log" >&2; exit 1; }
done
echo "cluster-up: started in $(elapsed)"
usage
