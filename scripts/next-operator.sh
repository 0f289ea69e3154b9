#!/usr/bin/env bash
# Builds "the next release" of the operator for the test of rollout turns:
# this operator with the feature `next-template-default` (one more pod
# template default), as target/debug/trussium-operator-next. The feature
# build replaces target/debug/trussium-operator for a moment, so the plain
# one is put back after it (cargo keeps both builds: no recompile). Run
# before the cluster tests, never beside them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
# However it ends, the plain operator is what target/debug holds afterwards.
trap 'cargo build --quiet -p trussium-operator --bin trussium-operator' EXIT
cargo build --quiet -p trussium-operator --bin trussium-operator --features next-template-default
cp "$target/debug/trussium-operator" "$target/debug/trussium-operator-next.tmp"
mv "$target/debug/trussium-operator-next.tmp" "$target/debug/trussium-operator-next"
cargo build --quiet -p trussium-operator --bin trussium-operator
trap - EXIT
if cmp -s "$target/debug/trussium-operator" "$target/debug/trussium-operator-next"; then
  echo "next-operator.sh: the plain operator was not put back" >&2
  exit 1
fi
echo "$target/debug/trussium-operator-next"
