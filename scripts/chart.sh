#!/usr/bin/env bash
# make chart: lints the Helm chart and packages it as
# DIST_DIR/trussium-operator-<version>.tgz (default dist/), the same bytes for
# the same sources: Helm stamps every file with the time of packaging, so the
# archive is repacked with sorted names, no owners and every time set to
# SOURCE_DATE_EPOCH (default: the last commit's time). Prints its size and
# sha256. Helm comes from scripts/tool.sh (built once per machine).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dist=${DIST_DIR:-$root/dist}
chart=charts/trussium-operator
helm=$(scripts/tool.sh helm)
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

"$helm" lint --strict "$chart" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$helm" package "$chart" --destination "$work" >/dev/null
package=$(cd "$work" && ls trussium-operator-*.tgz)

# Repack what Helm packed, deterministically.
mkdir "$work/tree"
tar -xzmf "$work/$package" -C "$work/tree"
mkdir -p "$dist"
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
  --format=ustar -C "$work/tree" -cf - trussium-operator | gzip -n -9 >"$dist/$package"
# Helm reads it back.
"$helm" show chart "$dist/$package" >/dev/null

size=$(stat -c %s "$dist/$package")
sum=$(sha256sum "$dist/$package" | cut -d' ' -f1)
echo "chart: $dist/$package ($size bytes, sha256 $sum)"
