#!/usr/bin/env bash
# make publish: pushes what `make release` wrote to DIST_DIR to OCI registries:
#   - the operator's image index (both platform images, their SBOM
#     referrers, and the index's signature and provenance when signed) from
#     trussium-operator_<version>.oci.tar to
#     IMAGE_REPOSITORY:v<version>, with oras (tools/oras) `cp -r`;
#   - the Helm chart, trussium-operator-<version>.tgz, to CHART_REPOSITORY,
#     with `helm push` (tools/helm).
# Credentials come from the Docker config (`docker login`, or the release
# workflow's login step). Prints the index digest; under GitHub Actions the
# step outputs `image` (the repository) and `image-digest` name what the
# workflow verifies where it is published.
#
# Environment:
#   IMAGE_REPOSITORY  default ghcr.io/trussiumhq/trussium-operator
#   CHART_REPOSITORY  default oci://ghcr.io/trussiumhq/charts
#   DIST_DIR          default dist/
#   PLAIN_HTTP        1: the registries speak plain HTTP (a local test registry)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dist=${DIST_DIR:-$root/dist}
image_repository=${IMAGE_REPOSITORY:-ghcr.io/trussiumhq/trussium-operator}
chart_repository=${CHART_REPOSITORY:-oci://ghcr.io/trussiumhq/charts}
pkgid=$(cargo pkgid -p trussium-operator)
version=${pkgid##*[#@]}
tag=v$version
archive=$dist/trussium-operator_$version.oci.tar

# shellcheck source=need.sh
source "$root/scripts/need.sh"
need jq jq
chart=$dist/trussium-operator-$version.tgz
for file in "$archive" "$chart"; do
  [ -f "$file" ] || { echo "publish: $file is missing; run make release first" >&2; exit 1; }
done
digest=$(tar -xOf "$archive" index.json | jq -r --arg tag "$tag" \
  '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"] == $tag) | .digest')
[ -n "$digest" ] || { echo "publish: $archive has no index tagged $tag" >&2; exit 1; }

plain_oras=() plain_helm=()
if [ "${PLAIN_HTTP:-}" = 1 ]; then
  plain_oras=(--to-plain-http)
  plain_helm=(--plain-http)
fi
docker_config=${DOCKER_CONFIG:-$HOME/.docker}/config.json

oras=$("$root/scripts/tool.sh" oras)
"$oras" cp --recursive "${plain_oras[@]}" --from-oci-layout "$archive:$tag" "$image_repository:$tag" >&2

helm=$("$root/scripts/tool.sh" helm)
registry_config=()
[ -f "$docker_config" ] && registry_config=(--registry-config "$docker_config")
"$helm" push "${plain_helm[@]}" "${registry_config[@]}" "$chart" "$chart_repository" >&2

echo "published $image_repository:$tag@$digest"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'image=%s\nimage-digest=%s\n' "$image_repository" "$digest" >>"$GITHUB_OUTPUT"
fi
