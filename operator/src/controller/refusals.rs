//! Whether a 403 on applying is worth reporting yet.
//!
//! The API server's authorizer serves RBAC from an informer, and for a moment
//! after it starts it refuses everything. A runtime must not turn Degraded,
//! with a Warning, because the API server restarted: a refusal is reported
//! when the retry ([`super::RETRY`] later) is refused too. A real missing
//! permission is then reported one retry late.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a first refusal is remembered: longer than the retry, so the
/// second refusal finds it.
const REMEMBERED: Duration = Duration::from_secs(60);

/// The runtimes whose last apply was refused once, by namespace and name.
#[derive(Default)]
pub struct Refusals {
    first: Mutex<HashMap<(String, String), Instant>>,
}

impl Refusals {
    /// Records a refusal of `namespace/name` now; `true` when it is the first
    /// lately (retry before reporting it).
    pub fn first(&self, namespace: &str, name: &str) -> bool {
        self.first_at(namespace, name, Instant::now())
    }

    /// Forgets `namespace/name` (its apply went through).
    pub fn clear(&self, namespace: &str, name: &str) {
        let mut first = super::lock(&self.first);
        if !first.is_empty() {
            first.remove(&(namespace.to_string(), name.to_string()));
        }
    }

    fn first_at(&self, namespace: &str, name: &str, now: Instant) -> bool {
        let mut first = super::lock(&self.first);
        first.retain(|_, at| now.saturating_duration_since(*at) < REMEMBERED);
        let key = (namespace.to_string(), name.to_string());
        if first.contains_key(&key) {
            return false;
        }
        first.insert(key, now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_reported_when_the_retry_is_refused_too() {
        let refusals = Refusals::default();
        let now = Instant::now();
        assert!(refusals.first_at("ns", "a", now));
        assert!(!refusals.first_at("ns", "a", now + Duration::from_secs(10)));
        // Others are counted on their own.
        assert!(refusals.first_at("ns", "b", now));
        assert!(refusals.first_at("other", "a", now));
    }

    #[test]
    fn a_refusal_long_ago_or_cleared_counts_as_first_again() {
        let refusals = Refusals::default();
        let now = Instant::now();
        assert!(refusals.first_at("ns", "a", now));
        assert!(refusals.first_at("ns", "a", now + REMEMBERED));
        refusals.clear("ns", "a");
        assert!(refusals.first_at("ns", "a", now + REMEMBERED));
    }
}
