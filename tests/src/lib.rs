//! What the tests share (the `cluster`, `cluster_wide` and
//! `control_plane_faults` test binaries and the benchmark): the local
//! cluster (`make cluster-up`), a namespace per test, operators run as their
//! ServiceAccount (one per namespace, [`with_operator`], or replicas as
//! production runs them, [`Replica`]), the audit log, kubectl and the plugin
//! through it, the runtimes tests create, what they read back, waiting, and
//! the release bundle with its OCI image layout.
//!
//! One module per concept; everything is re-exported at the crate root
//! (`use trussium_e2e::{with_operator, wait_for, ...}`). What only one area
//! of tests asserts stays in that area's `support.rs` (`tests/cluster/<area>/`).
//!
//! Cluster tests are marked `#[ignore = "needs the local cluster (make test)"]`
//! and start with [`require_cluster`].

mod audit;
mod cluster;
mod crd;
mod deployed;
mod deployment;
mod endpoints;
mod error;
mod etcd;
mod events;
mod harness;
mod kubectl;
mod lease;
pub mod manifests;
pub mod metrics;
mod namespace;
pub mod oci;
mod operator;
mod permissions;
mod plugin;
mod registry;
mod relay;
mod release;
mod replica;
mod runtimes;
mod scrape;
mod status;
mod tap;
mod token;
mod wait;

pub use audit::{
    AUDIT_LOG_ENV, Audit, AuditEvent, AuditMark, AuditObjectRef, AuditResponseStatus, AuditUser,
    WRITE_VERBS, describe_requests,
};
pub use cluster::{
    BIN_DIR_ENV, CLUSTER_DIR_ENV, KUBECONFIG_ENV, UNDER_MAKE_TEST_ENV, admin_client, admin_config,
    admin_kubeconfig, admin_kubeconfig_path, cluster_dir, control_plane_bin_dir, e2e_dir,
    repo_root, require_cluster,
};
pub use crd::install_crd;
pub use deployed::DeployedOperator;
pub use deployment::deployment_condition;
pub use endpoints::{ANY_LOOPBACK_PORT, Endpoint, LoggedEndpoints, serving};
pub use error::{BoxError, Error, TestResult, ensure};
pub use etcd::stored_api_version;
pub use events::{
    REPORTING_CONTROLLER, SeenEvent, check_first_rollout_events, describe_events,
    events_by_runtime, pairs,
};
pub use harness::{Harness, Mark, with_operator, with_operator_behind_relay};
pub use kubectl::{
    KUBECTL_REQUEST_TIMEOUT, Kubectl, discovery_cache_dir, kubectl, kubectl_ok, kubectl_path,
    kustomize,
};
pub use lease::{lease_holder, lease_spec, wait_for_holder};
pub use metrics::{metric, reconciles};
pub use namespace::{TEST_NAMESPACE_LABEL, TestNamespace};
pub use operator::{
    OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT, OPERATOR_USER, Operator, install, operator_binary,
};
pub use permissions::{create_service_account, grant, may, rule};
pub use plugin::{
    PluginOutput, ensure_contains, ensure_exit, kubectl_trussium, kubectl_trussium_as, path_with,
    plugin, plugin_dir, plugin_in, run_to_end, target_debug_dir,
};
pub use registry::Registry;
pub use relay::{Relay, api_server_address};
pub use release::{
    LockedCrate, RELEASE_DIST_ENV, VERSION, binary_kind, cargo_lock, crates_named_in,
    image_archive, release_dist, release_key,
};
pub use replica::{Identity, LEADER_ELECTION_ROLE, Memory, Replica, install_leader_election_rbac};
pub use runtimes::{
    CRASH_LOOP_IMAGE, MARKED_REPOSITORY, NEVER_READY_IMAGE, NEW_TAG, NOT_READY_IMAGE, OLD_TAG,
    OOM_KILLED_IMAGE, REPOSITORY, image, merge, minimal, openai_runtime, sample, secret,
};
pub use scrape::{HttpResponse, http_get, http_request};
pub use status::{all_ready, condition, condition_summary, is_ready};
pub use tap::{Tap, Tapped};
pub use token::{
    client_as_service_account, kubeconfig_for_service_account, service_account_username,
};
pub use wait::{
    CONVERGE, EVENTS_LAG, POLL_INTERVAL, PROMPT, QUIET_AFTER_SETTLING, QUIET_IN_STEADY_STATE,
    holds_for, wait_for,
};
