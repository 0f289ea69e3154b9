// Package gitops checks that GitOps tools read TrussiumRuntime status right:
// kstatus (sigs.k8s.io/cli-utils, what Flux and kpt use) and the Argo CD
// health check in deploy/argocd, run with gopher-lua as Argo CD runs it.
//
// The objects come from two places: the hand-written testdata of the Argo CD
// health check, and the live objects the Rust cluster tests dump into
// target/gitops-scenarios/ (one JSON file per scenario, with what
// `kubectl wait --for=condition=Ready` did at that moment). The test also
// generates the GitOps table of the manual (docs/src/gitops.md) from the
// live objects and fails when the page's copy is stale (UPDATE_GENERATED=1
// rewrites it).
package gitops
