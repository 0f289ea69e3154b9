//! Backing off: how soon the operator reverts drift on an object it keeps
//! reverting ([`Backoff`]), and how soon it retries a runtime whose
//! reconcile keeps failing in a way that may pass ([`failed`]).
//!
//! A drift reverted once (a `kubectl edit`) is reverted at once. When the
//! same object drifts again soon after, someone keeps changing it (another
//! controller, a script in a loop): each further revert waits twice as long
//! as the one before, from 1 s up to [`MOST`], so the fight costs the API
//! server a few writes a minute at most instead of one per change. Drift
//! after [`QUIET`] without any is a fresh start.
//!
//! Pure: the shell passes the clock in.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The wait before the second revert in a row; doubled for each further one.
pub const FIRST: Duration = Duration::from_secs(1);
/// The longest wait between two reverts of one object.
pub const MOST: Duration = Duration::from_secs(300);
/// A revert this long after the previous one starts over.
pub const QUIET: Duration = Duration::from_secs(600);

/// An owned object: kind, namespace, name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Object {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

/// What to do about drift found now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Revert it now (the `nth` revert in a row, from 1).
    Revert { nth: u32 },
    /// Leave it for this long, then look again.
    Wait(Duration),
}

#[derive(Clone, Copy, Debug)]
struct Reverts {
    in_a_row: u32,
    last: Instant,
    /// When the drift seen last, and left alone, may be reverted.
    held_until: Option<Instant>,
}

/// Recent reverts of every object that drifted.
#[derive(Debug, Default)]
pub struct Backoff {
    objects: HashMap<Object, Reverts>,
}

impl Backoff {
    /// Drift found on `object` at `now`: revert it (and count the revert) or
    /// wait.
    pub fn drifted(&mut self, object: &Object, now: Instant) -> Decision {
        self.objects
            .retain(|_, r| now.saturating_duration_since(r.last) < QUIET);
        let previous = self.objects.get(object).copied();
        let in_a_row = previous.map_or(0, |r| r.in_a_row);
        if let Some(previous) = previous {
            let due = previous.last + wait_after(in_a_row);
            if now < due {
                self.objects.insert(
                    object.clone(),
                    Reverts {
                        held_until: Some(due),
                        ..previous
                    },
                );
                return Decision::Wait(due - now);
            }
        }
        let nth = in_a_row.saturating_add(1);
        self.objects.insert(
            object.clone(),
            Reverts {
                in_a_row: nth,
                last: now,
                held_until: None,
            },
        );
        Decision::Revert { nth }
    }

    /// How long until the earliest drift left alone on an object of
    /// `namespace/name` (a runtime's objects share its name) may be
    /// reverted; `None` when none waits.
    pub fn held(&self, namespace: &str, name: &str, now: Instant) -> Option<Duration> {
        self.objects
            .iter()
            .filter(|(o, _)| o.namespace == namespace && o.name == name)
            .filter_map(|(_, r)| r.held_until)
            .map(|until| until.saturating_duration_since(now))
            .min()
    }
}

/// The wait after `in_a_row` reverts: none after none, then 1 s, 2 s, 4 s,
/// … up to [`MOST`].
pub fn wait_after(in_a_row: u32) -> Duration {
    match in_a_row {
        0 => Duration::ZERO,
        n => FIRST
            .checked_mul(1_u32.checked_shl(n - 1).unwrap_or(u32::MAX))
            .map_or(MOST, |wait| wait.min(MOST)),
    }
}

/// The wait before the first retry of a failing runtime; doubled for each
/// further failure in a row. Ten seconds: a restarting API server answers
/// again within that (see `controller::refusals`, whose grace the first
/// retry confirms).
pub const RETRY_FIRST: Duration = Duration::from_secs(10);
/// The longest wait between two retries: the resync's, so a runtime that
/// keeps failing costs no more than one that converged (10, 20, 40, 80,
/// 160, then every 300 s).
pub const RETRY_MOST: Duration = Duration::from_secs(300);
/// At most this share of a wait is added to it, differing by runtime, so
/// that runtimes that failed together (an API server outage) do not retry
/// in step.
const JITTER_PERCENT: u32 = 10;

/// A runtime's reconciles failing in a row, and when the retry is due (kept
/// in the runtime's record by the shell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failures {
    in_a_row: u32,
    /// When the retry is due.
    due: Instant,
}

impl Failures {
    /// A retry long overdue was never made (the runtime went away and came
    /// back, say): its count no longer holds.
    pub fn expired(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.due) >= QUIET
    }
}

/// A reconcile of `namespace/name`, whose failures so far are `failures`,
/// failed at `now`: how long until the retry. A failure before the retry is
/// due (a reconcile something else triggered) keeps the retry where it is,
/// so extra triggers do not speed the backing off up. A success is
/// `*failures = None`: the next failure starts over.
pub fn failed(
    failures: &mut Option<Failures>,
    namespace: &str,
    name: &str,
    now: Instant,
) -> Duration {
    let previous = failures.filter(|f| !f.expired(now));
    if let Some(previous) = previous.filter(|p| now < p.due) {
        return previous.due - now;
    }
    let in_a_row = previous.map_or(0, |p| p.in_a_row).saturating_add(1);
    let wait = retry_after(in_a_row, namespace, name);
    *failures = Some(Failures {
        in_a_row,
        due: now + wait,
    });
    wait
}

/// The wait after the `in_a_row`-th failure in a row (from 1) of
/// `namespace/name`: [`RETRY_FIRST`] doubled up to [`RETRY_MOST`], plus up
/// to [`JITTER_PERCENT`] of it (never less, so the first retry still comes
/// after the grace of `controller::refusals`).
pub fn retry_after(in_a_row: u32, namespace: &str, name: &str) -> Duration {
    use std::hash::{Hash, Hasher};
    let base = RETRY_FIRST
        .checked_mul(
            1_u32
                .checked_shl(in_a_row.saturating_sub(1))
                .unwrap_or(u32::MAX),
        )
        .map_or(RETRY_MOST, |wait| wait.min(RETRY_MOST));
    // A fixed-key hash: the same runtime gets the same share every time.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (namespace, name, in_a_row).hash(&mut hasher);
    let percent = u32::try_from(hasher.finish() % u64::from(JITTER_PERCENT + 1)).unwrap_or(0);
    base + base * percent / 100
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(name: &str) -> Object {
        Object {
            kind: "Deployment".into(),
            namespace: "ns".into(),
            name: name.into(),
        }
    }

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn waits_double_up_to_the_most() {
        let waits: Vec<u64> = (0..12).map(|n| wait_after(n).as_secs()).collect();
        assert_eq!(waits, [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
        assert_eq!(wait_after(u32::MAX), MOST);
        assert_eq!(wait_after(40), MOST);
    }

    #[test]
    fn a_one_off_edit_is_reverted_at_once() {
        let mut backoff = Backoff::default();
        let t0 = Instant::now();
        assert_eq!(
            backoff.drifted(&deployment("x"), t0),
            Decision::Revert { nth: 1 }
        );
        assert_eq!(backoff.held("ns", "x", t0), None);
        // Much later: a fresh start, at once again.
        assert_eq!(
            backoff.drifted(&deployment("x"), t0 + QUIET + S),
            Decision::Revert { nth: 1 }
        );
    }

    #[test]
    fn a_writer_that_keeps_changing_it_is_reverted_less_and_less_often() {
        let mut backoff = Backoff::default();
        let x = deployment("x");
        let t0 = Instant::now();
        // The other writer changes it every 200 ms for a minute; the
        // operator looks each time.
        let mut reverts = Vec::new();
        for tick in 0..300_u32 {
            let now = t0 + Duration::from_millis(200) * tick;
            if let Decision::Revert { .. } = backoff.drifted(&x, now) {
                reverts.push((now - t0).as_secs_f64());
            }
        }
        assert_eq!(reverts, [0.0, 1.0, 3.0, 7.0, 15.0, 31.0]);
        // Held back now: the shell looks again when it is due.
        let now = t0 + Duration::from_secs(60);
        assert_eq!(backoff.held("ns", "x", now), Some(Duration::from_secs(3)));
        assert_eq!(backoff.held("ns", "other", now), None);
        assert_eq!(
            backoff.drifted(&x, t0 + Duration::from_secs(63)),
            Decision::Revert { nth: 7 }
        );
        assert_eq!(backoff.held("ns", "x", t0 + Duration::from_secs(63)), None);
    }

    #[test]
    fn objects_back_off_apart() {
        let mut backoff = Backoff::default();
        let t0 = Instant::now();
        let (x, y) = (deployment("x"), deployment("y"));
        let service = Object {
            kind: "Service".into(),
            ..deployment("x")
        };
        assert_eq!(backoff.drifted(&x, t0), Decision::Revert { nth: 1 });
        assert_eq!(backoff.drifted(&x, t0), Decision::Wait(S));
        assert_eq!(backoff.drifted(&y, t0), Decision::Revert { nth: 1 });
        assert_eq!(backoff.drifted(&service, t0), Decision::Revert { nth: 1 });
    }

    #[test]
    fn a_revert_exactly_quiet_after_the_last_starts_over() {
        let mut backoff = Backoff::default();
        let x = deployment("x");
        let t0 = Instant::now();
        backoff.drifted(&x, t0);
        assert_eq!(backoff.drifted(&x, t0 + S), Decision::Revert { nth: 2 });
        assert_eq!(
            backoff.drifted(&x, t0 + S + QUIET),
            Decision::Revert { nth: 1 }
        );
    }

    #[test]
    fn retries_double_from_ten_seconds_to_five_minutes_with_a_little_jitter() {
        let bases = [10, 20, 40, 80, 160, 300, 300, 300];
        for (in_a_row, base) in (1..).zip(bases) {
            for name in ["a", "b", "c", "runtime-with-a-long-name"] {
                let wait = retry_after(in_a_row, "ns", name).as_secs_f64();
                let base = f64::from(base);
                assert!(
                    (base..=base * 1.1).contains(&wait),
                    "{in_a_row} {name}: {wait}"
                );
            }
        }
        assert!(retry_after(u32::MAX, "ns", "a") <= RETRY_MOST + RETRY_MOST / 10);
        assert!(retry_after(0, "ns", "a") >= RETRY_FIRST);
        // Runtimes that failed together spread out.
        let waits: std::collections::BTreeSet<Duration> = (0..20)
            .map(|i| retry_after(3, "ns", &format!("rt-{i}")))
            .collect();
        assert!(waits.len() > 3, "{waits:?}");
    }

    #[test]
    fn a_runtime_that_keeps_failing_is_retried_less_and_less_often() {
        let mut failures = None;
        let t0 = Instant::now();
        let mut now = t0;
        let mut at = Vec::new();
        for _ in 0..8 {
            let wait = failed(&mut failures, "ns", "x", now);
            // Something else triggers a reconcile before the retry: it
            // fails too, and the retry stays where it was.
            let early = failed(&mut failures, "ns", "x", now + wait / 2);
            assert_eq!(early, wait - wait / 2);
            now += wait;
            at.push((now - t0).as_secs());
        }
        // Ten seconds, then twice as long each time, five minutes at most.
        let gaps: Vec<u64> = at
            .iter()
            .zip(std::iter::once(&0).chain(&at))
            .map(|(b, a)| b - a)
            .collect();
        for (gap, base) in gaps.iter().zip([10, 20, 40, 80, 160, 300, 300, 300]) {
            assert!((base..=base + base / 10).contains(gap), "{gaps:?}");
        }
        // Another runtime's first failure is a first.
        assert_eq!(failed(&mut None, "ns", "y", now), retry_after(1, "ns", "y"));
    }

    #[test]
    fn a_success_starts_over_and_so_does_a_long_silence() {
        let mut failures = None;
        let t0 = Instant::now();
        let first = failed(&mut failures, "ns", "x", t0);
        let second = failed(&mut failures, "ns", "x", t0 + first);
        assert!(second > first);
        // A success.
        failures = None;
        assert_eq!(failed(&mut failures, "ns", "x", t0 + first), first);
        let later = t0 + first + first + QUIET;
        assert!(failures.is_some_and(|f| f.expired(later)));
        assert_eq!(failed(&mut failures, "ns", "x", later), first);
        assert!(failures.is_some_and(|f| !f.expired(later)));
    }

    #[test]
    fn forgets_objects_quiet_for_long() {
        let mut backoff = Backoff::default();
        let t0 = Instant::now();
        for i in 0..100 {
            backoff.drifted(&deployment(&format!("rt-{i}")), t0);
        }
        backoff.drifted(&deployment("last"), t0 + QUIET + S);
        assert_eq!(backoff.objects.len(), 1);
    }
}
