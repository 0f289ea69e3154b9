//! What the controller remembers of each runtime between reconciles: one
//! record per runtime, keyed by namespace and name, under one lock,
//! forgotten in one place when the runtime goes ([`Memory::forget`]) and
//! dropped when nothing in it counts any more. What each part means and how
//! it ages is decided by the module named beside it; here it is only kept.
//! A stall and an unsure status write do not age: they stay until the
//! runtime's next reconcile settles them, or it goes.
//!
//! (Kept elsewhere, on purpose: drift backoff and reverted-change notices
//! are per owned object; namespaces being deleted are by uid, across
//! runtimes; rollout turns are a queue across runtimes.)

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::grace::{self, Run};
use super::lock::lock;
use super::pacing;
use super::stalls::{self, Held};
use crate::pure::backoff::{self, Failures};
use crate::pure::status::stalled::Stall;

/// How often records are looked through for parts that no longer count
/// (their runtimes went while no reconcile saw them go).
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// What is remembered of one runtime.
#[derive(Clone, Debug, Default)]
struct Remembered {
    /// When this process last wrote its status (`pacing`).
    status_written: Option<Instant>,
    /// Its last status write had no answer (`unsure`).
    unsure: bool,
    /// The current run of refusals and server failures on applying (`grace`).
    refusals: Option<Run>,
    /// The refusal it is stalled at (`stalls`).
    stall: Option<Held>,
    /// Its reconciles failing in a row (`backoff::failed`).
    failures: Option<Failures>,
}

impl Remembered {
    /// Drops the parts that no longer count at `now`.
    fn age(&mut self, now: Instant) {
        self.status_written = self.status_written.filter(|at| !pacing::expired(*at, now));
        self.refusals = self.refusals.filter(|run| !run.expired(now));
        self.failures = self.failures.filter(|f| !f.expired(now));
    }

    fn is_empty(&self) -> bool {
        self.status_written.is_none()
            && !self.unsure
            && self.refusals.is_none()
            && self.stall.is_none()
            && self.failures.is_none()
    }
}

#[derive(Default)]
struct Records {
    by_runtime: HashMap<(String, String), Remembered>,
    swept: Option<Instant>,
}

/// Every runtime's record.
#[derive(Default)]
pub struct Memory {
    records: Mutex<Records>,
}

impl Memory {
    /// Reads or changes the record of `namespace/name` at `now`; a record
    /// left empty is dropped.
    fn with<R>(
        &self,
        namespace: &str,
        name: &str,
        now: Instant,
        change: impl FnOnce(&mut Remembered) -> R,
    ) -> R {
        let mut records = lock(&self.records);
        if records
            .swept
            .is_none_or(|at| now.saturating_duration_since(at) >= SWEEP_EVERY)
        {
            records.by_runtime.retain(|_, r| {
                r.age(now);
                !r.is_empty()
            });
            records.swept = Some(now);
        }
        let key = (namespace.to_string(), name.to_string());
        let mut remembered = records.by_runtime.remove(&key).unwrap_or_default();
        let result = change(&mut remembered);
        if !remembered.is_empty() {
            records.by_runtime.insert(key, remembered);
        }
        result
    }

    /// `namespace/name` is gone: everything about it.
    pub fn forget(&self, namespace: &str, name: &str) {
        lock(&self.records)
            .by_runtime
            .remove(&(namespace.to_string(), name.to_string()));
    }

    /// How long a status write of `namespace/name` that only updates
    /// progress must still wait (`pacing`).
    pub fn progress_due_in(&self, namespace: &str, name: &str) -> Option<Duration> {
        let now = Instant::now();
        self.with(namespace, name, now, |r| {
            pacing::progress_due_in(r.status_written, now)
        })
    }

    /// The status of `namespace/name` was written now, and is known.
    pub fn status_written(&self, namespace: &str, name: &str) {
        let now = Instant::now();
        self.with(namespace, name, now, |r| {
            r.status_written = Some(now);
            r.unsure = false;
        });
    }

    /// Whether the last status write of `namespace/name` had no answer
    /// (`unsure`).
    pub fn status_unsure(&self, namespace: &str, name: &str) -> bool {
        self.with(namespace, name, Instant::now(), |r| r.unsure)
    }

    /// The last status write of `namespace/name` may or may not have been
    /// made (`unsure`), or, with `false`, its stored status is known again.
    pub fn set_status_unsure(&self, namespace: &str, name: &str, unsure: bool) {
        self.with(namespace, name, Instant::now(), |r| r.unsure = unsure);
    }

    /// An apply of `namespace/name` was refused or failed in a way that may
    /// pass; whether that has lasted long enough to report (`grace`).
    pub fn refusal_lasted(&self, namespace: &str, name: &str) -> bool {
        let now = Instant::now();
        self.with(namespace, name, now, |r| {
            grace::lasted(&mut r.refusals, now)
        })
    }

    /// Everything of `namespace/name` was applied: no run of refusals, no
    /// stall.
    pub fn applied(&self, namespace: &str, name: &str) {
        self.with(namespace, name, Instant::now(), |r| {
            r.refusals = None;
            r.stall = None;
        });
    }

    /// `namespace/name` at `generation` is stalled with `stall` (`stalls`):
    /// a refusal that will repeat, so the run of passing ones is over.
    pub fn stalled(&self, namespace: &str, name: &str, generation: Option<i64>, stall: &Stall) {
        let now = Instant::now();
        self.with(namespace, name, now, |r| {
            r.refusals = None;
            r.stall = Some(Held::new(generation, stall, now));
        });
    }

    /// The stall `namespace/name` at `generation` is held at, younger than
    /// `resync` (`stalls`).
    pub fn stall_held(
        &self,
        namespace: &str,
        name: &str,
        generation: Option<i64>,
        resync: Duration,
    ) -> Option<Stall> {
        let now = Instant::now();
        self.with(namespace, name, now, |r| {
            stalls::held(&mut r.stall, generation, resync, now)
        })
    }

    /// A reconcile of `namespace/name` failed: how long until the retry
    /// (`backoff::failed`).
    pub fn reconcile_failed(&self, namespace: &str, name: &str) -> Duration {
        let now = Instant::now();
        self.with(namespace, name, now, |r| {
            backoff::failed(&mut r.failures, namespace, name, now)
        })
    }

    /// A reconcile of `namespace/name` went through: the next failure is a
    /// first.
    pub fn reconcile_succeeded(&self, namespace: &str, name: &str) {
        self.with(namespace, name, Instant::now(), |r| r.failures = None);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.records).by_runtime.len()
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
    fn each_runtime_has_its_own_record() {
        let memory = Memory::default();
        memory.set_status_unsure("ns", "a", true);
        memory.stalled("ns", "a", Some(1), &stall("ApplyRefused"));
        assert!(memory.reconcile_failed("ns", "a") > Duration::ZERO);
        assert!(!memory.refusal_lasted("ns", "a"));
        assert!(memory.status_unsure("ns", "a"));
        for (namespace, name) in [("ns", "b"), ("other", "a")] {
            assert!(!memory.status_unsure(namespace, name));
            assert_eq!(memory.stall_held(namespace, name, Some(1), RESYNC), None);
            assert_eq!(memory.progress_due_in(namespace, name), None);
        }
        assert_eq!(memory.len(), 1);
    }

    #[test]
    fn a_runtime_gone_is_forgotten_in_one_place() {
        let memory = Memory::default();
        memory.status_written("ns", "a");
        memory.set_status_unsure("ns", "a", true);
        memory.stalled("ns", "a", Some(1), &stall("ApplyRefused"));
        memory.reconcile_failed("ns", "a");
        memory.refusal_lasted("ns", "a");
        memory.forget("ns", "a");
        assert_eq!(memory.len(), 0);
        assert!(!memory.status_unsure("ns", "a"));
        assert_eq!(memory.stall_held("ns", "a", Some(1), RESYNC), None);
        assert_eq!(memory.progress_due_in("ns", "a"), None);
    }

    #[test]
    fn a_record_with_nothing_left_is_dropped() {
        let memory = Memory::default();
        // Reading creates nothing.
        assert!(!memory.status_unsure("ns", "a"));
        assert_eq!(memory.stall_held("ns", "a", Some(1), RESYNC), None);
        assert_eq!(memory.len(), 0);
        memory.set_status_unsure("ns", "a", true);
        assert_eq!(memory.len(), 1);
        memory.set_status_unsure("ns", "a", false);
        assert_eq!(memory.len(), 0);
        memory.stalled("ns", "a", Some(1), &stall("ApplyRefused"));
        // A new generation forgets the stall, and with it the record.
        assert_eq!(memory.stall_held("ns", "a", Some(2), RESYNC), None);
        assert_eq!(memory.len(), 0);
        memory.reconcile_failed("ns", "a");
        memory.reconcile_succeeded("ns", "a");
        assert_eq!(memory.len(), 0);
    }

    #[test]
    fn an_apply_ends_the_refusals_and_the_stall_and_a_newer_stall_replaces_one() {
        let memory = Memory::default();
        memory.refusal_lasted("ns", "a");
        memory.stalled("ns", "a", Some(1), &stall("ApplyRefused"));
        memory.applied("ns", "a");
        assert_eq!(memory.stall_held("ns", "a", Some(1), RESYNC), None);
        assert_eq!(memory.len(), 0);
        memory.stalled("ns", "a", Some(1), &stall("ApplyRefused"));
        memory.stalled("ns", "a", Some(1), &stall("NetworkPolicyConflict"));
        assert_eq!(
            memory.stall_held("ns", "a", Some(1), RESYNC),
            Some(stall("NetworkPolicyConflict"))
        );
    }

    #[test]
    fn a_written_status_is_known_and_paces_the_next_progress() {
        let memory = Memory::default();
        memory.set_status_unsure("ns", "a", true);
        memory.status_written("ns", "a");
        assert!(!memory.status_unsure("ns", "a"));
        assert!(memory.progress_due_in("ns", "a").is_some());
    }

    #[test]
    fn the_sweep_drops_what_has_aged_and_keeps_the_rest() {
        let memory = Memory::default();
        let t0 = Instant::now();
        memory.with("ns", "written", t0, |r| r.status_written = Some(t0));
        memory.with("ns", "refused", t0, |r| {
            grace::lasted(&mut r.refusals, t0);
        });
        memory.with("ns", "unsure", t0, |r| r.unsure = true);
        memory.with("ns", "stalled", t0, |r| {
            r.stall = Some(Held::new(Some(1), &stall("ApplyRefused"), t0));
        });
        assert_eq!(memory.len(), 4);
        // Long after: the write no longer paces, the run of refusals is
        // over; being unsure and a stall (until its resync) still count.
        let later = t0 + Duration::from_secs(3600);
        memory.with("ns", "other", later, |_| ());
        assert_eq!(memory.len(), 2);
        assert!(memory.status_unsure("ns", "unsure"));
    }
}
