//! Backing off from another writer: how soon the operator reverts drift on an
//! object it keeps reverting.
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
pub enum Verdict {
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
    pub fn drifted(&mut self, object: &Object, now: Instant) -> Verdict {
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
                return Verdict::Wait(due - now);
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
        Verdict::Revert { nth }
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
            Verdict::Revert { nth: 1 }
        );
        assert_eq!(backoff.held("ns", "x", t0), None);
        // Much later: a fresh start, at once again.
        assert_eq!(
            backoff.drifted(&deployment("x"), t0 + QUIET + S),
            Verdict::Revert { nth: 1 }
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
            if let Verdict::Revert { .. } = backoff.drifted(&x, now) {
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
            Verdict::Revert { nth: 7 }
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
        assert_eq!(backoff.drifted(&x, t0), Verdict::Revert { nth: 1 });
        assert_eq!(backoff.drifted(&x, t0), Verdict::Wait(S));
        assert_eq!(backoff.drifted(&y, t0), Verdict::Revert { nth: 1 });
        assert_eq!(backoff.drifted(&service, t0), Verdict::Revert { nth: 1 });
    }

    #[test]
    fn a_revert_exactly_quiet_after_the_last_starts_over() {
        let mut backoff = Backoff::default();
        let x = deployment("x");
        let t0 = Instant::now();
        backoff.drifted(&x, t0);
        assert_eq!(backoff.drifted(&x, t0 + S), Verdict::Revert { nth: 2 });
        assert_eq!(
            backoff.drifted(&x, t0 + S + QUIET),
            Verdict::Revert { nth: 1 }
        );
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
