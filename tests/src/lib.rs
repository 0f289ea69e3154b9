//! Support shared by the cluster tests: the local cluster (`make cluster-up`),
//! a namespace per test, clients acting as ServiceAccounts, the audit log, and
//! polling.
//!
//! Cluster tests are marked `#[ignore = "needs the local cluster (make test)"]`
//! and start with [`require_cluster`].

mod audit;
mod cluster;
mod crd;
mod deployment;
mod error;
mod namespace;
pub mod oci;
mod operator;
mod release;
mod token;
mod wait;

pub use audit::{
    AUDIT_LOG_ENV, Audit, AuditEvent, AuditMark, AuditObjectRef, AuditResponseStatus, AuditUser,
    WRITE_VERBS,
};
pub use cluster::{
    BIN_DIR_ENV, CLUSTER_DIR_ENV, KUBECONFIG_ENV, UNDER_MAKE_TEST_ENV, admin_client, admin_config,
    admin_kubeconfig, admin_kubeconfig_path, cluster_dir, control_plane_bin_dir, kubectl_path,
    repo_root, require_cluster,
};
pub use crd::install_crd;
pub use deployment::deployment_condition;
pub use error::Error;
pub use namespace::{TEST_NAMESPACE_LABEL, TestNamespace};
pub use operator::{
    OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT, OPERATOR_USER, Operator, install, operator_binary,
};
pub use release::{
    LockedCrate, RELEASE_DIST_ENV, VERSION, binary_kind, cargo_lock, crates_named_in,
    image_archive, release_dist,
};
pub use token::{
    client_as_service_account, kubeconfig_for_service_account, service_account_username,
};
pub use wait::{POLL_INTERVAL, holds_for, wait_for};

/// The image whose pods KWOK never makes ready (for failed-rollout tests).
pub const NEVER_READY_IMAGE: &str = "registry.invalid/trussium:never-ready";
