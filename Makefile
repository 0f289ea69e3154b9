# Trussium Operator — developer entry points. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

CLUSTER_DIR := $(CURDIR)/.cluster
export KUBECONFIG ?= $(CLUSTER_DIR)/admin.kubeconfig
OPERATOR_ARGS ?=
N ?= 5
# The test cluster's Kubernetes: a supported minor (kubernetes-versions.txt),
# e.g. make cluster-up KUBERNETES_VERSION=1.34. Default: the newest.
# Only from the command line: an environment's KUBERNETES_VERSION (CI images
# set one) is not ours.
ifeq ($(origin KUBERNETES_VERSION),command line)
export TRUSSIUM_KUBERNETES_VERSION := $(KUBERNETES_VERSION)
endif

.PHONY: help
help: ## Show the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build the operator and the plugin
	cargo build --workspace --bins

.PHONY: generate
generate: ## Regenerate crds/, completions/, the chart's copies and values table, deploy/'s alerts and dashboard, the plugin's install manifests, the manual's reference pages and man pages
	UPDATE_GENERATED=1 cargo test -p trussium-api --test crd
	UPDATE_GENERATED=1 cargo test -p kubectl-trussium --test completions
	UPDATE_GENERATED=1 cargo test -p trussium-e2e --test chart -- --include-ignored surfaces:: readme::
	@# The install manifests are `kubectl kustomize deploy/`: the control plane's kubectl.
	tests/cluster/build.sh >/dev/null
	UPDATE_GENERATED=1 cargo test -p trussium-e2e --test cluster the_embedded_install_manifests -- --include-ignored
	UPDATE_GENERATED=1 cargo test -p trussium-docs --test generated

.PHONY: docs
docs: ## Build the manual (docs/) into target/docs and check its links and names
	scripts/docs.sh

.PHONY: crds
crds: generate ## Alias of generate

.PHONY: lint
lint: ## cargo fmt --check, clippy -D warnings, helm lint --strict, actionlint over .github/workflows
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	"$$(scripts/tool.sh helm)" lint --strict charts/trussium-operator
	"$$(scripts/tool.sh actionlint)" .github/workflows/*.yml

.PHONY: control-plane
control-plane: ## Build (or reuse) the cached control-plane binaries (KUBERNETES_VERSION=1.34: that minor)
	tests/cluster/build.sh

.PHONY: cluster-up
cluster-up: ## Start the local control plane (idempotent; KUBERNETES_VERSION=1.34: that minor, default the newest)
	tests/cluster/up.sh

.PHONY: cluster-down
cluster-down: ## Stop the local control plane and remove .cluster/
	tests/cluster/down.sh

.PHONY: install
install: ## Apply crds/ and the deploy/ RBAC; write .cluster/operator.kubeconfig
	scripts/install.sh

.PHONY: run
run: ## Run the operator in the foreground as its ServiceAccount (OPERATOR_ARGS=...)
	cargo build -p trussium-operator
	KUBECONFIG=$(CLUSTER_DIR)/operator.kubeconfig target/debug/trussium-operator $(OPERATOR_ARGS)

.PHONY: demo
demo: ## Local cluster + operator + sample runtime, then `kubectl trussium status`
	scripts/demo.sh

.PHONY: test
test: ## The whole test suite on a fresh local cluster of the newest Kubernetes, then its core on the oldest
	tests/run.sh

# What is mutated and which tests run: .cargo/mutants.toml. In place: no copy
# of the tree and no second target dir, but the sources are mutated while it
# runs (Ctrl-C puts them back), so edit elsewhere meanwhile.
MUTANTS_ARGS ?=
.PHONY: mutants
mutants: ## Mutation testing of the pure core, niced (for people, not CI: hours; MUTANTS_ARGS=--in-diff=FILE for a change)
	@mkdir -p target/mutants
	tool=$$(scripts/tool.sh cargo-mutants) && \
	  nice -n 19 "$$tool" mutants --in-place --output target/mutants $(MUTANTS_ARGS)

.PHONY: test-repeat
test-repeat: ## make test N times in a row (N=5) on fresh clusters; stops at the first failure
	@mkdir -p target; for i in $$(seq $(N)); do \
	  started=$$(date +%s); \
	  if tests/run.sh >target/test-repeat-$$i.log 2>&1; then \
	    echo "test-repeat: run $$i/$(N) passed in $$(( $$(date +%s) - started ))s"; \
	  else \
	    echo "test-repeat: run $$i/$(N) FAILED after $$(( $$(date +%s) - started ))s; log: target/test-repeat-$$i.log" >&2; \
	    grep -E '^test .* FAILED|^failures:|panicked' target/test-repeat-$$i.log | head -20 >&2; \
	    exit 1; \
	  fi; \
	done

.PHONY: bench
bench: ## The benchmarks: plugin, storage migration at 1000, the operator's at 100, 1000 and 3000 runtimes (BENCH_RUNTIMES=...), against the running local cluster
	$(MAKE) bench-plugin
	$(MAKE) bench-migrate
	$(MAKE) bench-operator BENCH_RUNTIMES="$(or $(BENCH_RUNTIMES),100 1000 3000)"

.PHONY: bench-migrate
bench-migrate: ## kubectl trussium migrate of 1000 runtimes stored as v1alpha1 (BENCH_MIGRATE_RUNTIMES=...): writes, seconds, peak RSS
	scripts/bench-migrate.sh

.PHONY: bench-plugin
bench-plugin: ## kubectl trussium status vs kubectl get, for 1 and 1000 runtimes
	scripts/bench.sh

DURATION ?= 30m
.PHONY: soak
soak: ## Two replicas (release) under a seeded churn with failovers, against the running local cluster (DURATION=30m, SOAK_SEED=)
	@cargo build --quiet --release --bin trussium-operator --bin trussium-soak
	@SOAK_DURATION=$(DURATION) TRUSSIUM_OPERATOR_BIN=$(CURDIR)/target/release/trussium-operator \
		target/release/trussium-soak

.PHONY: bench-operator
bench-operator: ## Operator against kubectl apply: time to Ready, requests, idle, RSS, latency, concurrency (BENCH_RUNTIMES="100")
	cargo build --release -p trussium-operator -p kubectl-trussium
	source tests/cluster/env.sh && TRUSSIUM_OPERATOR_BIN=$(CURDIR)/target/release/trussium-operator \
		BENCH_RUNTIMES="$(or $(BENCH_RUNTIMES),100)" cargo bench -p trussium-e2e --bench operator

.PHONY: image
image: ## The operator image for linux/amd64 and linux/arm64 (one index, SBOMs attached) into dist/oci; prints sizes and digest
	scripts/image.sh

.PHONY: chart
chart: ## The Helm chart package, dist/trussium-operator-<version>.tgz (same bytes for the same sources)
	scripts/chart.sh

RELEASE_BASE_URL ?=
RELEASE_TAG ?=
.PHONY: release
release: ## dist/: plugin for 5 platforms (with man pages), image index, SBOMs, chart, krew manifest, crds.yaml, install.yaml, SHA256SUMS; signed with COSIGN_KEY=
	RELEASE_BASE_URL=$(RELEASE_BASE_URL) RELEASE_TAG=$(RELEASE_TAG) scripts/release.sh

KEY ?=
.PHONY: verify
verify: ## Check a release's signatures and provenance offline: KEY=cosign.pub (DIST_DIR=dist/, or IMAGE=repo@sha256:... where it is published; EXPECT_TAG=v...)
	KEY=$(KEY) IMAGE=$(IMAGE) EXPECT_TAG=$(EXPECT_TAG) scripts/verify.sh

.PHONY: push
push: ## Push make image's index (with SBOMs) to IMAGE=registry.example/team/trussium-operator[:tag]; prints the reference by digest to install
	IMAGE=$(IMAGE) scripts/push.sh

.PHONY: publish
publish: ## Push make release's image index (with SBOMs) and chart to OCI registries (IMAGE_REPOSITORY=..., CHART_REPOSITORY=...)
	scripts/publish.sh

.PHONY: krew
krew: release ## Alias of release (the krew manifest is dist/trussium.yaml)
