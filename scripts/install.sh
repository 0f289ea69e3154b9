#!/usr/bin/env bash
# make install: CRD and the operator's RBAC into the current cluster, plus
# .cluster/operator.kubeconfig, which authenticates as the operator's
# ServiceAccount (so `make run` never runs with admin rights).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/cluster/env.sh
source "$root/tests/cluster/env.sh"

kubectl apply --server-side --field-manager=trussium-install -f "$root/crds/"
kubectl wait --for=condition=Established --timeout=60s crd/trussiumruntimes.runtime.trussium.io
kubectl apply --server-side --field-manager=trussium-install -k "$root/deploy/rbac"

# A token for the operator's ServiceAccount, valid for a working day.
token=$(kubectl create token trussium-operator -n trussium-system --duration=24h)
server=$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')
ca=$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
if [ -z "$ca" ]; then
  ca_file=$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority}')
  ca=$(base64 -w0 < "$ca_file")
fi

out="$TRUSSIUM_CLUSTER_DIR/operator.kubeconfig"
mkdir -p "$(dirname "$out")"
umask 077
cat > "$out" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: local
    cluster:
      server: $server
      certificate-authority-data: $ca
users:
  - name: trussium-operator
    user:
      token: $token
contexts:
  - name: trussium-operator
    context:
      cluster: local
      user: trussium-operator
      # The operator's own namespace: where its leader-election Lease lives.
      namespace: trussium-system
current-context: trussium-operator
KUBECONFIG
echo "installed; the operator's identity is in $out (system:serviceaccount:trussium-system:trussium-operator)"
