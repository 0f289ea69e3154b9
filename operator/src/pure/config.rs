//! Operator settings that shape what it builds and reports.

/// Settings from the command line (see `main.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorConfig {
    /// `progressDeadlineSeconds` of every managed Deployment.
    pub progress_deadline_seconds: i32,
    /// Cluster DNS domain used in `status.endpoint`.
    pub cluster_domain: String,
}

impl Default for OperatorConfig {
    fn default() -> Self {
        OperatorConfig {
            progress_deadline_seconds: 600,
            cluster_domain: "cluster.local".into(),
        }
    }
}
