//! What a report starts from, and what it writes.
//!
//! The status is the operator's memory (the last successful image, the
//! upgrade in flight, when a rollout began) and the base of its Events'
//! names. Anyone with the right to write the status subresource (or a bug)
//! can put anything there that the API server accepts. So a report starts
//! from the status this operator last wrote, or found right and left as it
//! was (its *own* status, remembered by the shell), not from the stored one:
//! - stored and own agree: the stored status is the basis, as always;
//! - they differ: someone else changed the status. The own status is the
//!   basis: the projection and the Event diff read it, so a forgery neither
//!   announces an upgrade that never happened nor hides a real transition,
//!   and the status is written again (a *repair*) even when what the
//!   operator observes has not changed; the repair itself announces nothing;
//! - no own status (the process just started, or took over the lead): the
//!   stored status is the basis, with what cannot be right taken out
//!   ([`sanitized`]): conditions of types the operator does not report,
//!   times in the future, a `reportSequence` out of range.
//!
//! A write replaces the whole status ([`replacement`]): a JSON merge patch
//! with every field the operator does not set now as `null`, and the whole
//! list of conditions. A server-side apply would leave alone any field that
//! another manager set and the operator does not (a forged condition).

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;
use trussium_api::{TrussiumRuntimeStatus, condition_type};

use super::semantically_equal;

/// A `reportSequence` at or past this was not written by this operator: one
/// status write a millisecond would take 285 years to get there, and every
/// later write still fits an `i64` (and a JSON number read as a double).
pub const SEQUENCE_LIMIT: i64 = 1 << 53;

/// What one report starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct Basis<'a> {
    /// The previous status: what the projection keeps and the Events are
    /// diffed against.
    pub previous: Option<Cow<'a, TrussiumRuntimeStatus>>,
    /// The stored status is not what `previous` says: write it again, also
    /// when nothing observed changed.
    pub repair: bool,
}

impl Basis<'_> {
    pub fn previous(&self) -> Option<&TrussiumRuntimeStatus> {
        self.previous.as_deref()
    }
}

/// The basis of a report on a runtime whose stored status is `stored`
/// (`unreadable` when part of it could not be read) and whose own status is
/// `own`. `revision` is the stored object's resourceVersion: a forged
/// sequence starts again from there, past every sequence this runtime's
/// statuses can have held (each of its writes moved the revision too).
pub fn basis<'a>(
    stored: Option<&'a TrussiumRuntimeStatus>,
    own: Option<&'a TrussiumRuntimeStatus>,
    unreadable: bool,
    now: Timestamp,
    revision: Option<u64>,
) -> Basis<'a> {
    match (stored, own) {
        (Some(stored), Some(own)) if !unreadable && same_as_written(stored, own) => Basis {
            previous: Some(Cow::Borrowed(stored)),
            repair: false,
        },
        (_, Some(own)) => Basis {
            previous: Some(Cow::Borrowed(own)),
            repair: true,
        },
        (None, None) => Basis {
            previous: None,
            repair: false,
        },
        (Some(stored), None) => {
            let clean = sanitized(stored, now, revision);
            let repair = unreadable || clean != *stored;
            Basis {
                previous: Some(if clean == *stored {
                    Cow::Borrowed(stored)
                } else {
                    Cow::Owned(clean)
                }),
                repair,
            }
        }
    }
}

/// Whether `stored` is exactly what the operator wrote as `own` (to the
/// second, conditions in any order), its sequence included.
pub fn same_as_written(stored: &TrussiumRuntimeStatus, own: &TrussiumRuntimeStatus) -> bool {
    stored.report_sequence == own.report_sequence && semantically_equal(stored, own)
}

/// `stored` without what this operator can never have written: conditions
/// of other types (and a second one of a type), times after `now`, a
/// sequence out of range (then the stored revision).
pub fn sanitized(
    stored: &TrussiumRuntimeStatus,
    now: Timestamp,
    revision: Option<u64>,
) -> TrussiumRuntimeStatus {
    let mut clean = stored.clone();
    let mut seen = Vec::new();
    clean.conditions.retain(|c| {
        let keep = condition_type::WRITTEN.contains(&c.type_.as_str()) && !seen.contains(&c.type_);
        seen.push(c.type_.clone());
        keep
    });
    let now = super::conditions::timestamp(now);
    for c in &mut clean.conditions {
        if c.last_transition_time.0 > now.0 {
            c.last_transition_time = Time(now.0);
        }
    }
    if let Some(sequence) = clean.report_sequence
        && !(0..SEQUENCE_LIMIT).contains(&sequence)
    {
        let revision = revision.and_then(|r| i64::try_from(r).ok());
        clean.report_sequence = Some(revision.filter(|r| *r < SEQUENCE_LIMIT).unwrap_or(0));
    }
    clean
}

/// The sequence after `previous`'s: one more. One out of range (a report
/// starts from a [`sanitized`] one, so only a caller that skipped that) is
/// not added to: the count starts again.
pub fn next_sequence(previous: Option<&TrussiumRuntimeStatus>) -> i64 {
    match previous.and_then(|s| s.report_sequence) {
        Some(sequence) if (0..SEQUENCE_LIMIT).contains(&sequence) => sequence + 1,
        _ => 1,
    }
}

/// The body of a JSON merge patch that replaces the stored status by
/// `status`: every field `status` leaves out is `null` (removed, whoever set
/// it), and lists are replaced whole.
pub fn replacement(status: &TrussiumRuntimeStatus) -> Value {
    let mut body =
        serde_json::to_value(status).unwrap_or_else(|_| Value::Object(Default::default()));
    if let (Value::Object(body), Value::Object(every)) = (&mut body, every_field()) {
        for key in every.keys() {
            body.entry(key.clone()).or_insert(Value::Null);
        }
    }
    body
}

/// A status with every field set, as JSON: its keys are every field there is.
fn every_field() -> Value {
    // Without `..`: a new field must appear here, or it would never be
    // removed by a write that no longer sets it.
    let every = TrussiumRuntimeStatus {
        observed_generation: Some(0),
        desired_replicas: Some(0),
        ready_replicas: Some(0),
        available_replicas: Some(0),
        desired_image: Some(String::new()),
        current_image: Some(String::new()),
        last_successful_image: Some(String::new()),
        endpoint: Some(String::new()),
        observed_template_hash: Some(String::new()),
        restarted_at: Some(String::new()),
        conditions: Vec::new(),
        report_sequence: Some(0),
    };
    let mut every = serde_json::to_value(every).unwrap_or(Value::Null);
    // An empty list is left out when serialized; it is a field all the same.
    if let Value::Object(fields) = &mut every {
        fields.insert("conditions".to_string(), Value::Array(Vec::new()));
    }
    every
}
