//! Cluster tests of operators that watch the whole cluster: the operator
//! image run as a container, the cluster-wide install mode, and `kubectl
//! trussium install` (the CRD, the ClusterRole, trussium-system).
//!
//! A test binary of its own: cargo runs test binaries one after another, so
//! these operators never meet the per-namespace operators of the `cluster`
//! tests (they would reconcile those tests' runtimes too). Within this
//! binary, [`one_at_a_time`] keeps them apart from each other.

mod cluster_wide_secrets;
mod container;
mod docs;
mod install;
mod migration;
mod upgrade;

/// Serializes the tests of this binary: one cluster-wide operator at a time.
pub async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}
