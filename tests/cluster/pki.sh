#!/usr/bin/env bash
# Writes the local cluster's PKI into $1 with openssl: a CA, the API server's
# serving certificate, one client certificate per identity, and the
# ServiceAccount token signing key pair. Everything is throwaway test material.
set -euo pipefail

pki=$1
mkdir -p "$pki"
cd "$pki"

# openssl config with no defaults from the system file; extensions come from $1.
conf() { printf '[req]\ndistinguished_name=dn\nprompt=no\n[dn]\n[ext]\n%b\n' "$1"; }

# ECDSA P-256: fast to generate, accepted by Go, rustls and the token signer (ES256).
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"; }

key ca
openssl req -x509 -new -key ca.key -subj "/CN=trussium-test-ca" -days 3650 \
  -config <(conf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign,digitalSignature\nsubjectKeyIdentifier=hash') \
  -extensions ext -out ca.crt

# cert <name> <subject> <extensions>: a leaf certificate signed by the CA.
cert() {
  key "$1"
  openssl req -new -key "$1.key" -subj "$2" -config <(conf '') -out "$1.csr"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
    -extfile <(conf "$3") -extensions ext -out "$1.crt" 2>/dev/null
  rm "$1.csr"
}

client='basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth'
# 10.96.0.1 is the `kubernetes` Service IP (first of --service-cluster-ip-range).
cert apiserver "/CN=kube-apiserver" \
  'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local'
cert admin "/O=system:masters/CN=admin" "$client"
cert kube-controller-manager "/CN=system:kube-controller-manager" "$client"
cert kube-scheduler "/CN=system:kube-scheduler" "$client"
cert kwok "/CN=kwok" "$client"
# KWOK's server, which plays the nodes' kubelet API (pods/log). The API server
# is given no kubelet CA, so it does not verify this; it only has to be TLS.
cert kwok-serving "/CN=kwok-kubelet" \
  'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1'

# ServiceAccount tokens: the API server signs and verifies, the
# controller-manager signs the tokens of its controllers.
key sa
openssl pkey -in sa.key -pubout -out sa.pub
chmod 600 ./*.key
