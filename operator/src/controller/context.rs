//! What every reconcile shares, built once at start-up.

use kube::Client;

use super::publish::Reporter;
use crate::config::OperatorConfig;
use crate::metrics::Metrics;

pub struct Context {
    pub client: Client,
    pub config: OperatorConfig,
    /// Who signs the Events.
    pub reporter: Reporter,
    /// Counts the Events published.
    pub metrics: Metrics,
}
