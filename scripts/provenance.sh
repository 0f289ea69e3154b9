#!/usr/bin/env bash
# scripts/provenance.sh DIST: prints the SLSA v1 provenance predicate
# (https://slsa.dev/spec/v1.0/provenance) of the release in DIST, which
# scripts/sign.sh attests for the image index (`cosign attest --type
# slsaprovenance1`): how it was built (make release at this commit, the tag,
# the cargo profile, the toolchains), from what (the commit and Cargo.lock;
# the image is FROM scratch), by whom (the release workflow's run, or this machine).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dist=${1:?usage: scripts/provenance.sh DIST}
repository=https://github.com/trussiumhq/trussium-operator
commit=$(git rev-parse HEAD)
dirty=false
[ -z "$(git status --porcelain --untracked-files=no)" ] || dirty=true
ref=${RELEASE_TAG:+refs/tags/$RELEASE_TAG}
ref=${ref:-$(git symbolic-ref -q HEAD || echo HEAD)}
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)

if [ -n "${GITHUB_ACTIONS:-}" ]; then
  builder="https://github.com/${GITHUB_WORKFLOW_REF:?}"
  invocation="${GITHUB_SERVER_URL:?}/${GITHUB_REPOSITORY:?}/actions/runs/${GITHUB_RUN_ID:?}/attempts/${GITHUB_RUN_ATTEMPT:-1}"
else
  # A build on someone's machine says so; it is not the project's builder.
  builder="urn:trussium:make-release:local"
  invocation="urn:trussium:make-release:local:$(hostname):$now"
fi

sha256() { sha256sum "$1" | cut -d' ' -f1; }
jq -n \
  --arg repository "$repository" --arg commit "$commit" --arg ref "$ref" \
  --argjson dirty "$dirty" --arg tag "${RELEASE_TAG:-}" --arg profile "${PROFILE:-release}" \
  --arg version "$(basename "$(ls "$dist"/trussium-operator_*.oci.tar)" .oci.tar | sed 's/^trussium-operator_//')" \
  --arg cargo_lock "$(sha256 Cargo.lock)" \
  --arg rustc "$(rustc -V)" --arg go "$(go version 2>/dev/null || echo none)" \
  --arg builder "$builder" --arg invocation "$invocation" --arg now "$now" \
  '{
    buildDefinition: {
      buildType: ($repository + "/blob/main/docs/src/development/releasing.md#provenance"),
      externalParameters: {
        source: {uri: ("git+" + $repository), ref: $ref},
        tag: (if $tag == "" then null else $tag end),
        version: $version,
        profile: $profile
      },
      internalParameters: {rustc: $rustc, go: $go, dirtyWorkingTree: $dirty},
      resolvedDependencies: [
        {uri: ("git+" + $repository + "@" + $ref), digest: {gitCommit: $commit}},
        {name: "Cargo.lock", digest: {sha256: $cargo_lock}}
      ]
    },
    runDetails: {
      builder: {id: $builder},
      metadata: {invocationId: $invocation, finishedOn: $now}
    }
  }'
