# Source this file (bash) to use the local test cluster from a script or a shell:
#   source tests/cluster/env.sh
# It sets TRUSSIUM_ROOT, TRUSSIUM_KUBERNETES_VERSION (the minor: the caller's,
# else the running cluster's, else the newest supported), TRUSSIUM_BIN (that
# version's cached control-plane binaries, first on PATH so that its kubectl
# wins over the machine's), TRUSSIUM_CLUSTER_DIR, KUBECONFIG (the admin
# kubeconfig) and the ports. Every value can be overridden from the
# environment, e.g. to run a second cluster beside the first.

TRUSSIUM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/cache.sh
source "$TRUSSIUM_ROOT/scripts/cache.sh"
# shellcheck source=../../scripts/kubernetes-versions.sh
source "$TRUSSIUM_ROOT/scripts/kubernetes-versions.sh"
TRUSSIUM_CLUSTER_DIR=${TRUSSIUM_CLUSTER_DIR:-$TRUSSIUM_ROOT/.cluster}
# up.sh writes the running cluster's minor into kubernetes-version.
TRUSSIUM_KUBERNETES_VERSION=${TRUSSIUM_KUBERNETES_VERSION:-$(cat "$TRUSSIUM_CLUSTER_DIR/kubernetes-version" 2>/dev/null || kubernetes_newest)}
TRUSSIUM_BIN=$TRUSSIUM_CACHE/bin/$TRUSSIUM_KUBERNETES_VERSION
TRUSSIUM_KUBECONFIG=${TRUSSIUM_KUBECONFIG:-$TRUSSIUM_CLUSTER_DIR/admin.kubeconfig}
# Fixed, non-standard ports below the ephemeral range (32768+), loopback only.
TRUSSIUM_APISERVER_PORT=${TRUSSIUM_APISERVER_PORT:-26443}
TRUSSIUM_ETCD_PORT=${TRUSSIUM_ETCD_PORT:-22379}
TRUSSIUM_ETCD_PEER_PORT=${TRUSSIUM_ETCD_PEER_PORT:-22380}
# KWOK's kubelet API (pods/log), where the API server reaches the nodes.
TRUSSIUM_KWOK_PORT=${TRUSSIUM_KWOK_PORT:-22250}

case "$PATH:" in
  "$TRUSSIUM_BIN:"*) ;;
  *) PATH=$TRUSSIUM_BIN:$PATH ;;
esac
KUBECONFIG=$TRUSSIUM_KUBECONFIG
# kubectl's discovery cache goes with the cluster: ~/.kube/cache, keyed by
# host and port, would serve the next cluster on these ports the last one's
# API versions for ten minutes.
KUBECACHEDIR=$TRUSSIUM_CLUSTER_DIR/kube-cache

# TRUSSIUM_CLUSTER_DIR, TRUSSIUM_KUBECONFIG and TRUSSIUM_KUBERNETES_VERSION
# stay exported only when the caller set them: a default exported from one checkout must not steer the
# scripts (or make test's cluster-down) of another.
export TRUSSIUM_ROOT TRUSSIUM_CACHE TRUSSIUM_BIN \
  TRUSSIUM_APISERVER_PORT TRUSSIUM_ETCD_PORT TRUSSIUM_ETCD_PEER_PORT TRUSSIUM_KWOK_PORT PATH KUBECONFIG KUBECACHEDIR
