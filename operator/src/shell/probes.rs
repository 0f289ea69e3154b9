//! What `/healthz` and `/readyz` answer: alive while the process serves;
//! ready once the watch caches have synced and the API server answers, for
//! the leader and for a standby alike (a standby is ready to take over).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Default)]
struct Inner {
    synced: AtomicBool,
    /// The last request to the API server got an HTTP answer.
    api_unreachable: AtomicBool,
}

/// Shared readiness state; cheap to clone.
#[derive(Clone, Default)]
pub struct ProbeState {
    inner: Arc<Inner>,
}

impl ProbeState {
    pub fn set_synced(&self) {
        self.inner.synced.store(true, Ordering::Release);
    }

    pub fn set_api_reachable(&self, reachable: bool) {
        self.inner
            .api_unreachable
            .store(!reachable, Ordering::Release);
    }

    /// `Ok` when ready, otherwise why not.
    pub fn readiness(&self) -> Result<(), &'static str> {
        readiness(
            self.inner.synced.load(Ordering::Acquire),
            !self.inner.api_unreachable.load(Ordering::Acquire),
        )
    }
}

/// Ready means: caches synced and the API server reachable.
pub fn readiness(synced: bool, api_reachable: bool) -> Result<(), &'static str> {
    match (synced, api_reachable) {
        (_, false) => Err("the API server does not answer"),
        (false, true) => Err("the watch caches have not synced yet"),
        (true, true) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_only_when_synced_and_reachable() {
        assert_eq!(readiness(true, true), Ok(()));
        assert!(readiness(false, true).is_err());
        assert!(readiness(true, false).is_err());
        assert!(readiness(false, false).is_err());
    }

    #[test]
    fn shared_state_moves_with_the_signals() {
        let health = ProbeState::default();
        assert!(health.readiness().is_err());
        health.set_synced();
        assert_eq!(health.readiness(), Ok(()));
        health.set_api_reachable(false);
        assert!(health.readiness().is_err());
        health.set_api_reachable(true);
        assert_eq!(health.readiness(), Ok(()));
    }
}
