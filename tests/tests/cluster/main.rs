//! Cluster tests: real behaviour against the local control plane
//! (`make test`, or `make cluster-up` then
//! `cargo test -p trussium-e2e --test cluster -- --include-ignored [filter]`).
//!
//! One test binary, so that every test can run in parallel with every other
//! (each has its own namespace, and its own operator where it needs one);
//! cargo runs separate test binaries one after another.

mod api_support;
mod operator_support;
mod plugin_support;
mod status_support;

mod api_kubectl;
mod api_validation;
mod control_plane;
mod faults;
mod hostile;
mod namespace_deletion;
mod operator_autoscaling;
mod operator_cache;
mod operator_deadlines;
mod operator_drift;
mod operator_image;
mod operator_leader;
mod operator_network_policy;
mod operator_probes;
mod operator_requests;
mod operator_resources;
mod operator_secrets;
mod operator_security;
mod operator_single_namespace;
mod plugin;
mod plugin_history;
mod plugin_install;
mod plugin_krew;
mod plugin_operator;
mod plugin_release;
mod pod_security;
mod soak_bad_input;
mod status_degraded;
mod status_events;
mod status_gitops;
mod status_lifecycle;
mod status_upgrade;
