#!/usr/bin/env bash
# Writes the SBOM of one binary of the workspace: CycloneDX 1.5 JSON, made by
# cargo-cyclonedx (pinned in tools/; built by scripts/tool.sh) from Cargo.lock
# for that target's platform, then checked against what cargo compiles into
# the binary (scripts/sbom-check.sh), so a stale or partial SBOM fails here.
#
#   scripts/sbom.sh trussium-operator aarch64-unknown-linux-musl OUT.cdx.json
#
# Reproducible (SOURCE_DATE_EPOCH, default 0): no serial number, a fixed
# timestamp, and the workspace's crates named by their path in the checkout,
# not on this machine, so the same sources give the same file anywhere.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
usage="usage: scripts/sbom.sh <package> <target> <out.cdx.json>"
package=${1:?$usage}
target=${2:?$usage}
out=${3:?$usage}

# shellcheck source=need.sh
source "$root/scripts/need.sh"
need jq jq
cyclonedx=$("$root/scripts/tool.sh" cargo-cyclonedx)
# cargo-cyclonedx writes one file next to every workspace member's
# Cargo.toml (at any depth, e.g. docs/tool); a name of this run's own, all
# removed on exit.
metadata=$(cargo metadata --format-version 1 --no-deps --locked)
mapfile -t member_dirs < <(jq -r '.packages[].manifest_path | sub("/Cargo.toml$"; "")' <<<"$metadata")
name=.sbom-$$-$target
remove_sboms() { local dir; for dir in "${member_dirs[@]}"; do rm -f -- "$dir/$name.json"; done; }
trap remove_sboms EXIT
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0} "$cyclonedx" cyclonedx --quiet --format json \
  --spec-version 1.5 --target "$target" --override-filename "$name"
manifest_dir=$(jq -r --arg p "$package" \
  '.packages[] | select(.name == $p) | .manifest_path | sub("/Cargo.toml$"; "")' <<<"$metadata")
mkdir -p "$(dirname "$out")"
# (cargo's package ids of path crates, "path+file:///<checkout>/api#…", are the bom-refs.)
jq --arg from "path+file://$root/" --arg to "path+file://./" \
  'walk(if type == "string" then split($from) | join($to) else . end)' \
  "$manifest_dir/$name.json" >"$out"
"$root/scripts/sbom-check.sh" "$out" "$package" "$target"
