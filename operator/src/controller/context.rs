//! What every reconcile shares, built once at start-up.

use kube::Client;
use kube::runtime::events::Recorder;

use crate::config::OperatorConfig;

pub struct Context {
    pub client: Client,
    pub config: OperatorConfig,
    /// One recorder for the process, so repeated Events form a series.
    pub recorder: Recorder,
}
