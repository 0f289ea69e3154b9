#!/usr/bin/env bash
# scripts/throwaway-key.sh DIR: a fresh cosign key pair, DIR/cosign.key (no
# password) and DIR/cosign.pub, for the tests to sign a release with and
# verify it: never a key anything trusts. Replaces one made before.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: scripts/throwaway-key.sh DIR}
cosign=$("$root/scripts/tool.sh" cosign)
mkdir -p "$dir"
rm -f "$dir/cosign.key" "$dir/cosign.pub"
(cd "$dir" && COSIGN_PASSWORD="" "$cosign" generate-key-pair >/dev/null 2>&1) ||
  { echo "throwaway-key.sh: cosign generate-key-pair failed in $dir" >&2; exit 1; }
