//! Runtimes stalled by a refusal the API server will repeat (see
//! `failure`): "no retry until the spec changes". Every Deployment status
//! change and the resync reconcile the runtime; without this, each of them
//! would send the refused write again. While a stall is remembered for the
//! runtime's generation, the reconcile reports it without applying.
//!
//! Forgotten when the generation changes (the spec changed), when an apply
//! goes through, when the runtime goes, and after the resync interval: an
//! obstacle no watch shows (an admission policy, a foreign object) may have
//! been removed, and the resync's apply is how the operator notices.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::lock::lock;
use crate::pure::status::stalled::Stall;

/// A stall and what it holds for.
#[derive(Clone)]
struct Remembered {
    generation: Option<i64>,
    since: Instant,
    stall: Stall,
}

/// By namespace and name.
#[derive(Default)]
pub struct Stalls {
    runtimes: Mutex<HashMap<(String, String), Remembered>>,
}

impl Stalls {
    /// `namespace/name` at `generation` stalled now with `stall`.
    pub fn remember(&self, namespace: &str, name: &str, generation: Option<i64>, stall: &Stall) {
        self.remember_at(namespace, name, generation, stall, Instant::now());
    }

    /// The stall remembered for `namespace/name` at `generation`, if it is
    /// younger than `resync`; anything else remembered is forgotten.
    pub fn held(
        &self,
        namespace: &str,
        name: &str,
        generation: Option<i64>,
        resync: Duration,
    ) -> Option<Stall> {
        self.held_at(namespace, name, generation, resync, Instant::now())
    }

    /// Forgets `namespace/name` (applied, or gone).
    pub fn forget(&self, namespace: &str, name: &str) {
        let mut runtimes = lock(&self.runtimes);
        if !runtimes.is_empty() {
            runtimes.remove(&(namespace.to_string(), name.to_string()));
        }
    }

    fn remember_at(
        &self,
        namespace: &str,
        name: &str,
        generation: Option<i64>,
        stall: &Stall,
        now: Instant,
    ) {
        let remembered = Remembered {
            generation,
            since: now,
            stall: stall.clone(),
        };
        lock(&self.runtimes).insert((namespace.to_string(), name.to_string()), remembered);
    }

    fn held_at(
        &self,
        namespace: &str,
        name: &str,
        generation: Option<i64>,
        resync: Duration,
        now: Instant,
    ) -> Option<Stall> {
        let mut runtimes = lock(&self.runtimes);
        if runtimes.is_empty() {
            return None;
        }
        let key = (namespace.to_string(), name.to_string());
        let remembered = runtimes.get(&key)?;
        let holds = remembered.generation == generation
            && now.saturating_duration_since(remembered.since) < resync;
        if holds {
            Some(remembered.stall.clone())
        } else {
            runtimes.remove(&key);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESYNC: Duration = Duration::from_secs(300);

    fn stall(reason: &'static str) -> Stall {
        Stall {
            reason,
            message: format!("{reason}."),
        }
    }

    #[test]
    fn held_for_the_same_generation_until_the_resync() {
        let stalls = Stalls::default();
        let now = Instant::now();
        assert_eq!(stalls.held_at("ns", "a", Some(1), RESYNC, now), None);
        stalls.remember_at("ns", "a", Some(1), &stall("ApplyRefused"), now);
        for later in [
            Duration::ZERO,
            Duration::from_secs(10),
            RESYNC - Duration::from_millis(1),
        ] {
            assert_eq!(
                stalls.held_at("ns", "a", Some(1), RESYNC, now + later),
                Some(stall("ApplyRefused")),
                "{later:?}"
            );
        }
        // Others are not held.
        assert_eq!(stalls.held_at("ns", "b", Some(1), RESYNC, now), None);
        assert_eq!(stalls.held_at("other", "a", Some(1), RESYNC, now), None);
        // At the resync it is forgotten: the resync applies again.
        assert_eq!(
            stalls.held_at("ns", "a", Some(1), RESYNC, now + RESYNC),
            None
        );
        assert_eq!(stalls.held_at("ns", "a", Some(1), RESYNC, now), None);
    }

    #[test]
    fn a_new_generation_forgets_it() {
        let stalls = Stalls::default();
        let now = Instant::now();
        stalls.remember_at("ns", "a", Some(1), &stall("ApplyRefused"), now);
        assert_eq!(stalls.held_at("ns", "a", Some(2), RESYNC, now), None);
        // Not held again when the generation is seen once more.
        assert_eq!(stalls.held_at("ns", "a", Some(1), RESYNC, now), None);
    }

    #[test]
    fn forgotten_on_success_or_when_gone_and_replaced_by_a_newer_stall() {
        let stalls = Stalls::default();
        let now = Instant::now();
        stalls.remember_at("ns", "a", Some(1), &stall("ApplyRefused"), now);
        stalls.forget("ns", "a");
        assert_eq!(stalls.held_at("ns", "a", Some(1), RESYNC, now), None);
        stalls.remember_at("ns", "a", Some(1), &stall("ApplyRefused"), now);
        stalls.remember_at("ns", "a", Some(1), &stall("NetworkPolicyConflict"), now);
        assert_eq!(
            stalls.held_at("ns", "a", Some(1), RESYNC, now),
            Some(stall("NetworkPolicyConflict"))
        );
    }
}
