#!/usr/bin/env bash
# make test: builds what is missing, then runs the whole workspace test suite
# (unit tests and the #[ignore]d cluster tests) against a fresh local cluster,
# and stops the cluster afterwards, also on failure. Prints each phase's time.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/kubernetes-versions.sh
source "$here/../scripts/kubernetes-versions.sh"
# The whole suite runs on the newest supported Kubernetes (or on the minor
# make test KUBERNETES_VERSION=... names), the core subset
# (tests/core-subset.txt) on the oldest. Never on a stale cluster's.
full_version=${TRUSSIUM_KUBERNETES_VERSION:-$(kubernetes_newest)}
kubernetes_check "$full_version"
core_version=$(kubernetes_oldest)
export TRUSSIUM_KUBERNETES_VERSION=$full_version
# shellcheck source=cluster/env.sh
source "$here/cluster/env.sh"
cd "$TRUSSIUM_ROOT"
# shellcheck source=../scripts/need.sh
source "$here/../scripts/need.sh"
need_for_checks

# Cluster tests fail (never skip) when the cluster is unreachable.
export TRUSSIUM_CLUSTER=1
# Cluster tests mostly wait on controllers: run more of them at once than cores.
export RUST_TEST_THREADS=${RUST_TEST_THREADS:-4}

logs_copy=$TRUSSIUM_ROOT/target/cluster-logs

# One make test at a time per checkout: each replaces the cluster.
# shellcheck source=../scripts/lock.sh
source "$here/../scripts/lock.sh"
wait_for_lock 9 "$TRUSSIUM_ROOT/target/make-test.lock" \
  echo "make test: another make test runs in this checkout; waiting for it"

phase_names=()
phase_times=()
current=""
current_started=$EPOCHREALTIME
cluster_started=false
suite_started=$EPOCHREALTIME

since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# phase <name> [--cold <cost>] <command...>: runs a step and records its
# duration. --cold says roughly what the step costs on a fresh machine (a
# cold cache), so that a long first run says what it is waiting for.
phase() {
  current=$1
  current_started=$EPOCHREALTIME
  shift
  if [ "${1:-}" = --cold ]; then
    echo "==> $current (on a fresh machine: $2)"
    shift 2
  else
    echo "==> $current"
  fi
  "$@"
  phase_names+=("$current")
  phase_times+=("$(since "$current_started")")
}

# Cluster logs and the audit log outlive .cluster/ (which down.sh removes).
keep_cluster_logs() {
  rm -rf "$logs_copy" && mkdir -p "$logs_copy"
  cp -r "$TRUSSIUM_CLUSTER_DIR/logs/." "$logs_copy/" 2>/dev/null || true
  cp "$TRUSSIUM_CLUSTER_DIR/audit.log" "$logs_copy/" 2>/dev/null || true
  local log
  for log in "$logs_copy"/*.log; do
    [ -f "$log" ] || continue
    echo "---- last lines of $(basename "$log") ----"
    tail -n 15 "$log" | cut -c1-400
  done
  echo "---- cluster logs kept in $logs_copy ----"
}

# The oldest's control plane builds beside the light phases after the suite
# (the GitOps and PromQL checks, the soak), niced, on the CPU they leave: on
# a cold machine that is most of its 5 minutes. In its own session, so that a
# failed make test stops the whole build.
core_build_pid=""
core_build_log=$TRUSSIUM_ROOT/target/control-plane-$core_version.log
start_core_build() {
  mkdir -p "$(dirname "$core_build_log")"
  TRUSSIUM_KUBERNETES_VERSION=$core_version setsid nice -n 19 "$here/cluster/build.sh" \
    >"$core_build_log" 2>&1 </dev/null 9>&- &
  core_build_pid=$!
}
wait_core_build() {
  # Cleared only once it ended: an interrupt while waiting must still stop it.
  wait "$core_build_pid" || { cat "$core_build_log" >&2; return 1; }
  core_build_pid=""
}

finish() {
  local rc=$?
  trap - EXIT INT TERM
  [ -z "$core_build_pid" ] || kill -- "-$core_build_pid" 2>/dev/null || true
  if [ "$rc" -ne 0 ] && [ -n "$current" ]; then
    echo "make test: phase '$current' failed (exit $rc)" >&2
    phase_names+=("$current (failed)")
    phase_times+=("$(since "$current_started")")
  fi
  if $cluster_started; then
    [ "$rc" -eq 0 ] || keep_cluster_logs
    local started=$EPOCHREALTIME
    "$here/cluster/down.sh" || rc=1
    phase_names+=("cluster down")
    phase_times+=("$(since "$started")")
  fi
  echo "==> phase times"
  local i
  for i in "${!phase_names[@]}"; do
    printf '  %-22s %8ss\n' "${phase_names[$i]}" "${phase_times[$i]}"
  done
  printf '  %-22s %8ss\n' total "$(since "$suite_started")"
  if [ "$rc" -eq 0 ]; then
    echo "make test: PASSED"
  else
    echo "make test: FAILED" >&2
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

phase "control plane $full_version" --cold "about 7 to 12 minutes, once per machine" "$here/cluster/build.sh"
# krew and its manifest checker, for the krew tests (they call it too; built
# here first so that a cold build is a phase of its own).
phase "krew" --cold "about 2 minutes, once per machine" "$here/krew/build.sh"
# Helm and promtool for the chart and alert tests (built once per machine;
# the tests find them in TRUSSIUM_TOOL_<NAME>).
use_tool() { local path; path=$("$TRUSSIUM_ROOT/scripts/tool.sh" "$2"); export "$1=$path"; }
phase "helm" --cold "about 2 minutes, once per machine" use_tool TRUSSIUM_TOOL_HELM helm
phase "promtool" --cold "about 2 minutes, once per machine" use_tool TRUSSIUM_TOOL_PROMTOOL promtool
phase "workspace build" --cold "about 4 minutes" cargo test --workspace --no-run
# Cluster tests may run the binaries (operator, plugin).
phase "binaries build" cargo build --workspace --bins
# "The next release" for the test of rollout turns: this operator with one
# more pod template default (a feature build, about 40 s).
phase "next operator build" "$TRUSSIUM_ROOT/scripts/next-operator.sh"
# The manual: built with mdBook and checked (links, anchors, names).
phase "docs" --cold "mdBook is built once per machine, about 2 minutes" "$TRUSSIUM_ROOT/scripts/docs.sh"
# The release's tools: the SBOM generator, oras (make publish), a local
# registry to publish to and cosign (make release signs, make verify checks) (cached per machine by version; a phase of their own
# so that a cold build shows its cost).
release_tools() { local t; for t in cargo-cyclonedx oras registry cosign; do scripts/tool.sh "$t" >/dev/null; done; }
phase "release tools" --cold "about 2 minutes, once per machine" release_tools
# The release bundle as make release writes it (the plugin for five
# platforms, the operator image index for two, SBOMs, the chart), cheaply
# (dev without debuginfo), into a target dir cached outside the checkout. The
# release, image and container tests read this one bundle.
phase "cross tools" --cold "about a minute, once per machine" scripts/cross-tools.sh --qemu
export TRUSSIUM_RELEASE_DIST=$TRUSSIUM_ROOT/target/e2e/release-dist
# Signed, as a release is, with a throw-away key made for this run; the
# tests verify with its public half (tests/src/release.rs: release_key).
release_key_dir=$TRUSSIUM_ROOT/target/e2e/signing
phase "signing key (throw-away)" scripts/throwaway-key.sh "$release_key_dir"
phase "release bundle" --cold "about 8 minutes, cached per machine" env PROFILE=cross-check DIST_DIR="$TRUSSIUM_RELEASE_DIST" \
  COSIGN_KEY="$release_key_dir/cosign.key" COSIGN_PASSWORD="" scripts/release.sh
# The previous release's operator, for the upgrade test (built from its
# commit once per machine, cached by it).
use_previous_operator() { TRUSSIUM_PREVIOUS_OPERATOR=$("$TRUSSIUM_ROOT/scripts/previous-operator.sh"); export TRUSSIUM_PREVIOUS_OPERATOR; }
phase "previous operator" --cold "about 4 minutes, once per machine" use_previous_operator
# A fresh cluster: stop one left running (make cluster-up) first.
phase "cluster down (stale)" "$here/cluster/down.sh"
cluster_started=true
# (The cluster's daemons must not inherit the lock.)
phase "cluster up" "$here/cluster/up.sh" 9>&-
# The cluster tests dump the live runtime of each status scenario here for the
# GitOps checks; stale dumps from an earlier run must not count.
export TRUSSIUM_GITOPS_SNAPSHOTS=$TRUSSIUM_ROOT/target/gitops-scenarios
rm -rf "$TRUSSIUM_GITOPS_SNAPSHOTS"
# The chart's install test writes a scrape of the operator here for the
# PromQL check of the alerts and the dashboard; a stale one must not count.
export TRUSSIUM_METRICS_SNAPSHOT=$TRUSSIUM_ROOT/target/e2e/metrics/operator.prom
rm -f "$TRUSSIUM_METRICS_SNAPSHOT"
# Every test binary runs even after a failure, for the full picture.
phase "tests" --cold "about 5 minutes" cargo test --workspace --no-fail-fast -- --include-ignored
# kstatus (cli-utils) and the Argo CD health check (gopher-lua) on those dumps
# and on deploy/argocd's testdata; checks the manual's GitOps table.
[ "$core_version" = "$full_version" ] || start_core_build
gitops_tests() { (cd "$here/gitops" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go test -count=1 ./...); }
phase "gitops tests" gitops_tests
# Every query of the alerts and the dashboard parsed by Prometheus's parser,
# each metric it names checked against that scrape. Built with promtool's
# flags (scripts/tool.sh), so that the packages both use are compiled once.
promql_tests() {
  (cd "$here/promql" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=mod -trimpath" go test -count=1 ./...)
}
phase "promql tests" promql_tests
# The soak, alone on the cluster: two replicas under three minutes of churn
# with a fixed seed (SOAK_SEED= replays another). The dev build: three
# minutes prove the invariants as well, and a release build would add
# minutes to every cold run; make soak runs the release build, longer.
phase "soak (3 min)" env SOAK_DURATION=3m SOAK_SEED=${SOAK_SEED:-23} \
  TRUSSIUM_OPERATOR_BIN="$TRUSSIUM_ROOT/target/debug/trussium-operator" \
  "$TRUSSIUM_ROOT/target/debug/trussium-soak"

# core_subset: the tests tests/core-subset.txt names, one cargo test per test
# binary; every binary runs even after a failure.
core_subset() {
  local binaries binary filters rc=0
  binaries=$(awk '!/^#/ && NF { print $1 }' "$here/core-subset.txt" | awk '!seen[$0]++')
  for binary in $binaries; do
    mapfile -t filters < <(awk -v b="$binary" '!/^#/ && $1 == b { print $2 }' "$here/core-subset.txt")
    # --workspace: the features (and so the binaries) the suite was built with.
    cargo test --workspace --test "$binary" -- --include-ignored "${filters[@]}" || rc=1
  done
  return "$rc"
}

# The core again on the oldest supported Kubernetes, on a fresh cluster of
# its own (same ports: the newest's goes down first).
if [ "$core_version" != "$full_version" ]; then
  phase "control plane $core_version" --cold "what is left of 5 minutes, built beside the soak" wait_core_build
  phase "cluster down ($full_version)" "$here/cluster/down.sh"
  export TRUSSIUM_KUBERNETES_VERSION=$core_version
  # shellcheck source=cluster/env.sh
  source "$here/cluster/env.sh"
  export TRUSSIUM_GITOPS_SNAPSHOTS=$TRUSSIUM_ROOT/target/gitops-scenarios-$core_version
  phase "cluster up ($core_version)" "$here/cluster/up.sh" 9>&-
  phase "core on $core_version" --cold "about 5 minutes" core_subset
fi
current=""
