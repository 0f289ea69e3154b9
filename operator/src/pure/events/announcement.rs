//! What one report announces: the status to store and the Events of the
//! transition from the stored status, each under a deterministic name.
//!
//! Exactly once across crashes. The shell publishes the Events *before* it
//! writes the status, and counts `AlreadyExists` as published. An Event's
//! name is a pure function of the runtime's uid, the stored status's
//! `reportSequence` and the Event's reason:
//! - a crash before the status write leaves the stored status (and its
//!   sequence) as it was, so the retry diffs from the same stored status and
//!   names every Event it publishes again exactly as before: the API server
//!   answers `AlreadyExists` and nothing is repeated. What the retry computes
//!   may differ (`now` and the Deployment moved on): an Event of the first
//!   attempt that the retry no longer calls for stays published, and it told
//!   the truth when it was published;
//! - a crash after the status write loses nothing: every Event was
//!   published first;
//! - every status write increments the sequence, so a later transition with
//!   the same reason gets a new name, also when the status returns to a
//!   value it held before (a flapping reference check). The uid tells apart
//!   a runtime deleted and created again under the same name.
//!
//! One diff yields at most one Event per reason (see [`crate::pure::events`]), so
//! the reason identifies the transition within a report.

use trussium_api::TrussiumRuntimeStatus;

use crate::pure::events::{Reason, Transition, transitions};
use crate::pure::status::basis::{Basis, next_sequence};
use crate::pure::status::semantically_equal;

/// The most a name may be (a DNS subdomain).
const MAX_NAME: usize = 253;
/// `.` and 16 hex digits.
const SUFFIX: usize = 17;

/// What to publish and store.
#[derive(Clone, Debug, PartialEq)]
pub struct Announcement {
    /// Each Event's name and its transition, in emission order.
    pub events: Vec<(String, Transition)>,
    /// The status to write, its `reportSequence` one past the stored one.
    pub status: TrussiumRuntimeStatus,
}

impl Announcement {
    /// Says in the `RuntimeResumed` Event, if there is one, how many objects
    /// the resuming reconcile changed. Only its note: the name, and so what
    /// a retry publishes, stays as it was.
    pub fn with_resume_changes(mut self, changed: Option<usize>) -> Announcement {
        for (_, t) in &mut self.events {
            if t.reason == Reason::RuntimeResumed {
                t.note = crate::pure::events::diff::resumed_note(changed);
            }
        }
        self
    }
}

/// The announcement for replacing `stored` by `projected`, or `None` when
/// nothing changed (no write, no Event).
pub fn announce(
    name: &str,
    uid: &str,
    stored: Option<&TrussiumRuntimeStatus>,
    projected: TrussiumRuntimeStatus,
) -> Option<Announcement> {
    if stored.is_some_and(|stored| semantically_equal(stored, &projected)) {
        return None;
    }
    let sequence = stored.and_then(|s| s.report_sequence).unwrap_or(0);
    let events = transitions(stored, &projected)
        .into_iter()
        .map(|t| (event_name(name, uid, sequence, t.reason), t))
        .collect();
    let status = TrussiumRuntimeStatus {
        report_sequence: Some(next_sequence(stored)),
        ..projected
    };
    Some(Announcement { events, status })
}

/// The announcement of a report that starts from `basis` (see
/// [`crate::pure::status::basis`]): the Events follow from its previous status,
/// never from a stored one it overrides, and a stored status to repair is
/// written even when nothing observed changed, without an Event.
pub fn announce_from(
    name: &str,
    uid: &str,
    basis: &Basis,
    projected: TrussiumRuntimeStatus,
) -> Option<Announcement> {
    let previous = basis.previous();
    let unchanged = previous.is_some_and(|p| semantically_equal(p, &projected));
    if basis.repair && unchanged {
        return Some(Announcement {
            events: Vec::new(),
            status: TrussiumRuntimeStatus {
                report_sequence: Some(next_sequence(previous)),
                ..projected
            },
        });
    }
    announce(name, uid, previous, projected)
}

/// `<runtime name>.<16 hex digits>`: the digits hash the uid, the stored
/// status's sequence and the reason. Readable (`kubectl get events` shows the
/// runtime's name) and at most 253 characters.
pub fn event_name(name: &str, uid: &str, sequence: i64, reason: Reason) -> String {
    let mut hash = Fnv1a::new();
    for part in [uid, &sequence.to_string(), reason.as_str()] {
        hash.write(part.as_bytes());
        // A separator no part contains: ("ab","c") and ("a","bc") differ.
        hash.write(&[0]);
    }
    // Names are ASCII (a DNS subdomain), so any byte is a boundary; a name
    // that is short enough has no such prefix and stays whole.
    let prefix = name.get(..MAX_NAME - SUFFIX).unwrap_or(name);
    let prefix = prefix.trim_end_matches(['.', '-']);
    format!("{prefix}.{:016x}", hash.finish())
}

/// The name of the `ChangeReverted` Event of one object's field in one
/// [`crate::pure::reverted::QUIET`] window: `<runtime name>.<16 hex digits>` of
/// the uid, the object, the field and the window. Two replicas, or a
/// restarted operator, name the same revert the same within a window.
pub fn revert_event_name(
    name: &str,
    uid: &str,
    kind: &str,
    object: &str,
    path: &str,
    window: u64,
) -> String {
    let mut hash = Fnv1a::new();
    for part in [uid, kind, object, path, &window.to_string()] {
        hash.write(part.as_bytes());
        hash.write(&[0]);
    }
    let prefix = name.get(..MAX_NAME - SUFFIX).unwrap_or(name);
    let prefix = prefix.trim_end_matches(['.', '-']);
    format!("{prefix}.{:016x}", hash.finish())
}

/// The name to publish under when `name` is held by an Event that is not
/// this one (see [`crate::pure::events::object::same_announcement`]): `name`'s
/// prefix and a hash of its digits and the Event's note. As deterministic
/// as `name`: a retry that finds the same holder names the Event the same.
pub fn alternative_name(name: &str, note: &str) -> String {
    let (prefix, digits) = name.rsplit_once('.').unwrap_or((name, ""));
    let mut hash = Fnv1a::new();
    for part in [digits, note] {
        hash.write(part.as_bytes());
        hash.write(&[0]);
    }
    format!("{prefix}.{:016x}", hash.finish())
}

/// 64-bit FNV-1a: stable across builds and platforms (std's hashers are
/// not), and enough to keep the names of one runtime's Events apart.
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
    use k8s_openapi::jiff::Timestamp;
    use trussium_api::condition_type;

    use super::*;

    const UID: &str = "0b5c6f3e-2f7a-4a57-9d59-1c1f2b0e7a11";

    fn condition(type_: &str, status: &str, reason: &str, second: i64) -> Condition {
        Condition {
            type_: type_.into(),
            status: status.into(),
            reason: reason.into(),
            message: format!("{type_} {status} {reason}"),
            observed_generation: Some(1),
            last_transition_time: Time(
                Timestamp::from_second(second).unwrap_or(Timestamp::UNIX_EPOCH),
            ),
        }
    }

    /// A status with every condition as given (`Ready` etc. `True`/`False`).
    fn status(
        progressing: bool,
        ready: bool,
        degraded: bool,
        second: i64,
    ) -> TrussiumRuntimeStatus {
        let s = |b: bool| if b { "True" } else { "False" };
        TrussiumRuntimeStatus {
            observed_generation: Some(1),
            desired_image: Some("r:a".into()),
            conditions: vec![
                condition(
                    condition_type::CONFIGURATION_VALID,
                    "True",
                    "ReferencesResolved",
                    0,
                ),
                condition(
                    condition_type::PROGRESSING,
                    s(progressing),
                    if progressing {
                        "DeploymentProgressing"
                    } else {
                        "ReconciliationComplete"
                    },
                    second,
                ),
                condition(
                    condition_type::READY,
                    s(ready),
                    if ready {
                        "RuntimeReady"
                    } else {
                        "RuntimeNotReady"
                    },
                    second,
                ),
                condition(
                    condition_type::DEGRADED,
                    s(degraded),
                    if degraded {
                        "ProgressDeadlineExceeded"
                    } else {
                        "AsExpected"
                    },
                    second,
                ),
            ],
            ..TrussiumRuntimeStatus::default()
        }
    }

    fn with_sequence(mut s: TrussiumRuntimeStatus, n: i64) -> TrussiumRuntimeStatus {
        s.report_sequence = Some(n);
        s
    }

    #[test]
    fn names_are_a_pure_function_of_uid_sequence_and_reason() {
        let a = event_name("x", UID, 3, Reason::RuntimeReady);
        assert_eq!(a, event_name("x", UID, 3, Reason::RuntimeReady));
        assert!(a.starts_with("x."), "{a}");
        assert_eq!(a.len(), "x.".len() + 16);
        // Pinned: a name must not change between operator versions, or an
        // upgrade of the operator in the middle of a report repeats Events.
        assert_eq!(
            a,
            format!("x.{:016x}", {
                let mut h = Fnv1a::new();
                for part in [UID, "3", "RuntimeReady"] {
                    h.write(part.as_bytes());
                    h.write(&[0]);
                }
                h.finish()
            })
        );
    }

    /// The name of every reason's Event, pinned: a name that changed with a
    /// new version of the operator would announce again what the previous
    /// version announced already.
    #[test]
    fn every_reason_names_its_event_as_before() {
        let pinned = [
            ("ConfigurationInvalid", "x.7f68d2bbac7b6619"),
            ("ReconciliationFailed", "x.83e159e36fbab502"),
            ("RuntimeUpgradeStarted", "x.63298d30bc99aef9"),
            ("RuntimeProgressing", "x.68a68a1c75f4c2e9"),
            ("RuntimeDegraded", "x.2213ba9aad2d51f0"),
            ("RuntimeUpgradeFailed", "x.729467edd901ea21"),
            ("RuntimeRecovered", "x.c2d1bb0c4462e565"),
            ("RuntimeReady", "x.ae85b09a969782db"),
            ("RuntimeScaledToZero", "x.366beb37c988a5b1"),
            ("RuntimeUpgradeCompleted", "x.39089f22f80cbe6d"),
            ("SuspendValueIgnored", "x.a1eae28fea49f961"),
            ("RuntimeSuspended", "x.ecfbb34f8750e10d"),
            ("RuntimeResumed", "x.e037047cdd57bc01"),
            ("RuntimeRestartRequested", "x.d0506c6398bd3829"),
            ("ChangeReverted", "x.3d5f0d61bfd4c323"),
        ];
        assert_eq!(pinned.len(), Reason::ALL.len(), "every reason pinned");
        for reason in Reason::ALL {
            let name = event_name("x", UID, 3, reason);
            let pin = pinned.iter().find(|(text, _)| *text == reason.as_str());
            assert_eq!(pin.map(|(_, name)| *name), Some(name.as_str()), "{reason}");
        }
    }

    #[test]
    fn names_differ_in_every_input() {
        let uids = [UID, "another-uid"];
        let mut names = BTreeSet::new();
        let mut count = 0;
        for uid in uids {
            for sequence in 0..200 {
                for reason in Reason::ALL {
                    names.insert(event_name("x", uid, sequence, reason));
                    count += 1;
                }
            }
        }
        assert_eq!(names.len(), count);
    }

    #[test]
    fn the_alternative_name_follows_the_name_and_the_note() {
        let name = event_name("x", UID, 3, Reason::RuntimeReady);
        let a = alternative_name(&name, "ready");
        assert_eq!(
            a,
            alternative_name(&name, "ready"),
            "a retry names it the same"
        );
        assert_ne!(a, name);
        assert_ne!(a, alternative_name(&name, "another note"));
        assert_ne!(
            a,
            alternative_name(&event_name("x", UID, 4, Reason::RuntimeReady), "ready")
        );
        assert!(a.starts_with("x."), "{a}");
        assert_eq!(a.len(), name.len());
        let long = event_name(&"a".repeat(300), UID, 0, Reason::RuntimeReady);
        assert_eq!(alternative_name(&long, "n").len(), MAX_NAME);
    }

    #[test]
    fn long_names_are_cut_to_a_valid_subdomain() {
        let long = format!("{}-{}", "a".repeat(240), "b".repeat(12));
        let name = event_name(&long, UID, 0, Reason::RuntimeReady);
        // As much of the runtime's name as fits.
        assert_eq!(name.len(), MAX_NAME);
        assert!(name.starts_with(&long[..MAX_NAME - SUFFIX]), "{name}");
        let dotted = format!("{}.{}", "a".repeat(235), "b".repeat(17));
        let name = event_name(&dotted, UID, 0, Reason::RuntimeReady);
        assert!(name.len() <= MAX_NAME);
        assert!(!name.contains(".."), "{name}");
        let exact = "c".repeat(MAX_NAME - SUFFIX);
        assert_eq!(
            event_name(&exact, UID, 0, Reason::RuntimeReady).len(),
            MAX_NAME
        );
    }

    #[test]
    fn nothing_changed_announces_nothing() {
        let s = with_sequence(status(false, true, false, 10), 4);
        assert_eq!(announce("x", UID, Some(&s), s.clone()), None);
        // The sequence alone is no change either.
        let mut other = s.clone();
        other.report_sequence = Some(9);
        assert_eq!(announce("x", UID, Some(&s), other), None);
    }

    #[test]
    fn a_write_moves_the_sequence_and_names_events_after_the_stored_one() {
        let stored = with_sequence(status(true, false, false, 10), 4);
        let new = status(false, true, false, 20);
        let a = announce("x", UID, Some(&stored), new.clone())
            .unwrap_or_else(|| panic!("expected a change"));
        assert_eq!(a.status.report_sequence, Some(5));
        assert_eq!(
            a.status,
            TrussiumRuntimeStatus {
                report_sequence: Some(5),
                ..new
            }
        );
        let names: Vec<_> = a
            .events
            .iter()
            .map(|(n, t)| (n.clone(), t.reason))
            .collect();
        assert_eq!(
            names,
            [(
                event_name("x", UID, 4, Reason::RuntimeReady),
                Reason::RuntimeReady
            )]
        );
    }

    #[test]
    fn a_first_report_starts_the_sequence() {
        let a = announce("x", UID, None, status(true, false, false, 1))
            .unwrap_or_else(|| panic!("expected a change"));
        assert_eq!(a.status.report_sequence, Some(1));
        assert!(
            a.events
                .iter()
                .all(|(n, t)| *n == event_name("x", UID, 0, t.reason))
        );
    }

    /// Every pair of statuses out of a set of shapes: a retry from the same
    /// stored status (after a crash between publish and status write) names
    /// each Event it calls for again exactly as the first attempt did, even
    /// when the world moved on; and Events of consecutive reports never
    /// share a name.
    #[test]
    fn retries_reuse_names_and_later_reports_never_do() {
        let mut shapes = Vec::new();
        for progressing in [false, true] {
            for ready in [false, true] {
                for degraded in [false, true] {
                    for second in [10, 20] {
                        shapes.push(status(progressing, ready, degraded, second));
                    }
                }
            }
        }
        for (i, stored) in shapes.iter().enumerate() {
            let stored = with_sequence(stored.clone(), i as i64);
            for first in &shapes {
                let Some(a) = announce("x", UID, Some(&stored), first.clone()) else {
                    continue;
                };
                for retry in &shapes {
                    let Some(b) = announce("x", UID, Some(&stored), retry.clone()) else {
                        continue;
                    };
                    for (name, t) in &b.events {
                        if let Some((first_name, _)) =
                            a.events.iter().find(|(_, u)| u.reason == t.reason)
                        {
                            assert_eq!(name, first_name);
                        }
                    }
                    assert_eq!(a.status.report_sequence, b.status.report_sequence);
                }
                // The next report, from what the first one stored.
                for next in &shapes {
                    let Some(c) = announce("x", UID, Some(&a.status), next.clone()) else {
                        continue;
                    };
                    for (name, _) in &c.events {
                        assert!(
                            a.events.iter().all(|(n, _)| n != name),
                            "a later report reused {name}"
                        );
                    }
                }
            }
        }
    }

    /// A status that comes back to exactly what it was (same conditions,
    /// same times) still names the next Events afresh.
    #[test]
    fn a_status_that_returns_to_an_earlier_value_gets_new_names() {
        let invalid = |reason: &str, sequence| {
            let mut s = status(false, false, false, 10);
            s.conditions[0] = condition(condition_type::CONFIGURATION_VALID, "False", reason, 5);
            with_sequence(s, sequence)
        };
        let first = invalid("SecretNotFound", 1);
        let a = announce("x", UID, Some(&first), invalid("ReferenceCheckFailed", 0))
            .unwrap_or_else(|| panic!("expected a change"));
        let b = announce("x", UID, Some(&a.status), invalid("SecretNotFound", 0))
            .unwrap_or_else(|| panic!("expected a change"));
        let c = announce(
            "x",
            UID,
            Some(&b.status),
            invalid("ReferenceCheckFailed", 0),
        )
        .unwrap_or_else(|| panic!("expected a change"));
        assert_eq!(a.events.len(), 1);
        assert_eq!(c.events.len(), 1);
        assert_ne!(a.events[0].0, c.events[0].0);
        assert_eq!(c.status.report_sequence, Some(4));
    }
}
