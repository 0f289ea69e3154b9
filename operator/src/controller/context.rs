//! What every reconcile shares, built once at start-up.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use kube::Client;

use super::cache::Caches;
use super::pacing::StatusWrites;
use super::publish::Reporter;
use crate::backoff::Backoff;
use crate::config::OperatorConfig;
use crate::metrics::Metrics;

pub struct Context {
    pub client: Client,
    pub config: OperatorConfig,
    /// Who signs the Events.
    pub reporter: Reporter,
    /// Counts the Events published.
    pub metrics: Metrics,
    /// What the watches know: every reconcile decides from it.
    pub caches: Caches,
    /// How often a converged runtime is reconciled again without a trigger.
    pub resync: Duration,
    /// When a watch last failed (see [`Context::watches_troubled`]).
    pub watch_failed_at: Mutex<Option<Instant>>,
    /// When each runtime's status was last written (progress waits).
    pub status_writes: StatusWrites,
    /// Recent drift reverts, to back off from another writer.
    pub backoff: Mutex<Backoff>,
}

/// How long after a watch failure the watches are not trusted.
const WATCH_DISTRUST: Duration = Duration::from_secs(600);

impl Context {
    pub fn new(
        client: Client,
        config: OperatorConfig,
        reporter: Reporter,
        metrics: Metrics,
        caches: Caches,
        resync: Duration,
    ) -> Self {
        Context {
            client,
            config,
            reporter,
            metrics,
            caches,
            resync,
            watch_failed_at: Mutex::new(None),
            status_writes: StatusWrites::default(),
            backoff: Mutex::new(Backoff::default()),
        }
    }

    /// Records that a watch failed (the API server went away, refused us,
    /// or expired our resourceVersion).
    pub fn watch_failed(&self) {
        if let Ok(mut at) = self.watch_failed_at.lock() {
            *at = Some(Instant::now());
        }
    }

    /// Whether a watch failed recently: after an API server restart the
    /// watches may take minutes to deliver changes again (refused while its
    /// authorizer warms up, then resumed from an expired resourceVersion),
    /// so a runtime still converging must be looked at again rather than
    /// wait for the watch or the resync.
    pub fn watches_troubled(&self) -> bool {
        self.watch_failed_at
            .lock()
            .ok()
            .and_then(|at| *at)
            .is_some_and(|at| at.elapsed() < WATCH_DISTRUST)
    }
}
