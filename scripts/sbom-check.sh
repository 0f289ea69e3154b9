#!/usr/bin/env bash
# Checks an SBOM (CycloneDX JSON) against Cargo.lock and the build: every
# crate cargo compiles into <package>'s binary for <target> (its normal
# dependencies for that platform; not build scripts, build dependencies or
# proc macros, which run on the build machine) must be listed as required at
# the version Cargo.lock pins, and no listed crate may have a version that
# Cargo.lock lacks. Each mismatch is one line naming the crate; exit 1.
#
#   scripts/sbom-check.sh dist/trussium-operator_0.1.0_linux_arm64.cdx.json trussium-operator aarch64-unknown-linux-musl
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
usage="usage: scripts/sbom-check.sh <sbom.cdx.json> <package> <target>"
sbom=${1:?$usage}
package=${2:?$usage}
target=${3:?$usage}

# "<name> <version>" lines. cargo tree prints "name vX.Y.Z", a path for
# workspace crates and "(*)" for repeats: both cut off.
compiled=$(cargo tree --locked --quiet -p "$package" --target "$target" \
  --edges normal,no-proc-macro --prefix none --format '{p}' |
  sed -e 's/ (.*//' -e 's/ v/ /' | sort -u)
locked=$(awk -F'"' '/^name = / { name = $2 } /^version = / { print name, $2 }' Cargo.lock | sort -u)
listed=$(jq -r '(.metadata.component, .components[]?) | select(.scope != "excluded")
  | "\(.name) \(.version)"' "$sbom" | sort -u)
everything=$(jq -r '(.metadata.component, .components[]?) | "\(.name) \(.version)"' "$sbom" | sort -u)
[ -n "$compiled" ] || { echo "sbom-check: cargo tree found nothing for $package on $target" >&2; exit 1; }

status=0
# (comm: the lines of its first input missing from its second; both sorted.)
while read -r name version; do
  [ -n "$name" ] || continue
  if grep -qxF "$name $version" <<<"$everything"; then
    listed_as="lists it as excluded (used only to build)"
  else
    other=$(awk -v n="$name" '$1 == n { print $2 }' <<<"$everything" | paste -sd, -)
    listed_as=${other:+lists version $other}
    listed_as=${listed_as:-does not list it}
  fi
  echo "sbom-check: $sbom: crate $name $version (Cargo.lock) is compiled into $package for $target, but the SBOM $listed_as" >&2
  status=1
done < <(comm -23 <(echo "$compiled") <(echo "$listed"))
while read -r name version; do
  [ -n "$name" ] || continue
  echo "sbom-check: $sbom: crate $name $version is not in Cargo.lock" >&2
  status=1
done < <(comm -23 <(echo "$everything") <(echo "$locked"))
[ "$status" -eq 0 ] && echo "sbom-check: $sbom lists the $(wc -l <<<"$compiled") crates compiled into $package for $target" >&2
exit "$status"
