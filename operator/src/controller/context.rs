//! What every reconcile shares, built once at start-up.

use kube::Client;

use super::publish::Reporter;
use crate::config::OperatorConfig;

pub struct Context {
    pub client: Client,
    pub config: OperatorConfig,
    /// Who signs the Events.
    pub reporter: Reporter,
}
