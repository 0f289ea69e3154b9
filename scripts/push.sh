#!/usr/bin/env bash
# make push IMAGE=registry.example/team/trussium-operator[:tag]: pushes the
# operator's image index that `make image` (or `make release`) wrote, with
# both platform images and their SBOM referrers, to IMAGE with oras
# (tools/oras, built once per machine), and prints the reference by digest to
# install: `kubectl trussium install --image <that>`, the chart's
# image.repository and image.digest, or a kustomize `images:` entry.
# Credentials are the registry's usual ones, from the Docker config
# (`docker login`, `oras login`, `podman login --authfile ~/.docker/config.json`).
#
# Environment:
#   IMAGE         where to push; without a tag, v<version>
#   IMAGE_LAYOUT  the OCI layout to push from (a directory or a .oci.tar);
#                 default dist/oci (make image), else make release's archive
#   PLAIN_HTTP    1: the registry speaks plain HTTP (a local test registry)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
image=${IMAGE:-}
if [ -z "$image" ]; then
  echo "push: name the image: make push IMAGE=registry.example/team/trussium-operator:tag" >&2
  exit 2
fi
pkgid=$(cargo pkgid -p trussium-operator)
version=${pkgid##*[#@]}
tag=v$version
layout=${IMAGE_LAYOUT:-}
if [ -z "$layout" ]; then
  if [ -d dist/oci ]; then
    layout=dist/oci
  elif [ -f "dist/trussium-operator_$version.oci.tar" ]; then
    layout=dist/trussium-operator_$version.oci.tar
  else
    echo "push: no image to push in dist/: run make image first" >&2
    exit 1
  fi
fi

# shellcheck source=need.sh
source "$root/scripts/need.sh"
need jq jq
if [ -d "$layout" ]; then
  index_json=$(cat "$layout/index.json")
else
  index_json=$(tar -xOf "$layout" index.json)
fi
digest=$(jq -r --arg tag "$tag" \
  '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"] == $tag) | .digest' <<<"$index_json")
[ -n "$digest" ] || { echo "push: $layout has no index tagged $tag" >&2; exit 1; }

# A tag is what follows the last ':' after the last '/' (a port is not one).
repository=$image
last=${image##*/}
if [[ $last == *:* ]]; then
  repository=${image%:*}
else
  image=$image:$tag
fi

plain=()
[ "${PLAIN_HTTP:-}" = 1 ] && plain=(--to-plain-http)
oras=$("$root/scripts/tool.sh" oras)
"$oras" cp --recursive "${plain[@]}" --from-oci-layout "$layout:$tag" "$image" >&2
echo "pushed $image"
echo "$repository@$digest"
