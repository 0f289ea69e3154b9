//! Turning a verdict into a `metav1.Condition`, with the bookkeeping every
//! condition shares: stable reason, bounded message, per-condition
//! `observedGeneration`, and a `lastTransitionTime` that only moves when the
//! status flips.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use trussium_api::ConditionStatus;

/// Longest condition message we write. The API allows 32 KiB; a status that
/// people read with `kubectl describe` should say it in far less.
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// What one condition says, before the bookkeeping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub status: bool,
    /// One of `trussium_api::reason`.
    pub reason: &'static str,
    pub message: String,
}

impl Verdict {
    pub fn yes(reason: &'static str, message: impl Into<String>) -> Verdict {
        Verdict {
            status: true,
            reason,
            message: message.into(),
        }
    }

    pub fn no(reason: &'static str, message: impl Into<String>) -> Verdict {
        Verdict {
            status: false,
            reason,
            message: message.into(),
        }
    }
}

/// Builds the condition `type_` from its verdict. The previous condition of
/// the same type keeps its `lastTransitionTime` when its status is unchanged,
/// even if reason or message changed; otherwise the transition is `now`.
pub fn build(
    previous: &[Condition],
    type_: &str,
    verdict: Verdict,
    generation: Option<i64>,
    now: &Time,
) -> Condition {
    let status = ConditionStatus::from(verdict.status).as_str();
    let last_transition_time = previous
        .iter()
        .find(|c| c.type_ == type_ && c.status == status)
        .map(|c| c.last_transition_time.clone())
        .unwrap_or_else(|| now.clone());
    Condition {
        type_: type_.to_string(),
        status: status.to_string(),
        reason: verdict.reason.to_string(),
        message: truncated(&verdict.message, MAX_MESSAGE_BYTES),
        observed_generation: generation,
        last_transition_time,
    }
}

/// `now` as a condition timestamp, truncated to whole seconds: that is all
/// `metav1.Time` keeps on the wire, so a status we write compares equal to the
/// same status read back.
pub fn timestamp(now: Timestamp) -> Time {
    // Whole seconds of a valid Timestamp are a valid Timestamp.
    Time(Timestamp::from_second(now.as_second()).unwrap_or(now))
}

/// `text` cut to at most `max_bytes` bytes on a character boundary, with an
/// ellipsis when something was cut.
pub fn truncated(text: &str, max_bytes: usize) -> String {
    const ELLIPSIS: &str = "…";
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let mut end = max_bytes.saturating_sub(ELLIPSIS.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{ELLIPSIS}", &text[..end])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn at(second: i64) -> Time {
        Time(Timestamp::from_second(second).unwrap())
    }

    #[test]
    fn keeps_the_time_while_status_is_unchanged() {
        let old = build(
            &[],
            "Ready",
            Verdict::no("RuntimeNotReady", "a"),
            Some(1),
            &at(10),
        );
        let new = build(
            &[old],
            "Ready",
            Verdict::no("DeploymentFailed", "b"),
            Some(2),
            &at(20),
        );
        assert_eq!(new.last_transition_time, at(10));
        assert_eq!(new.reason, "DeploymentFailed");
        assert_eq!(new.message, "b");
        assert_eq!(new.observed_generation, Some(2));
    }

    #[test]
    fn moves_the_time_on_a_flip_and_for_a_new_condition() {
        let old = build(
            &[],
            "Ready",
            Verdict::no("RuntimeNotReady", "a"),
            Some(1),
            &at(10),
        );
        assert_eq!(old.last_transition_time, at(10));
        let new = build(
            std::slice::from_ref(&old),
            "Ready",
            Verdict::yes("RuntimeReady", "b"),
            Some(1),
            &at(20),
        );
        assert_eq!(new.last_transition_time, at(20));
        assert_eq!(new.status, "True");
        let other = build(
            &[old],
            "Available",
            Verdict::no("RuntimeUnavailable", "c"),
            Some(1),
            &at(30),
        );
        assert_eq!(other.last_transition_time, at(30));
    }

    #[test]
    fn timestamp_drops_subseconds() {
        let now = Timestamp::new(1_700_000_000, 999_999_999).unwrap();
        assert_eq!(timestamp(now), at(1_700_000_000));
    }

    #[test]
    fn truncation_respects_char_boundaries() {
        assert_eq!(truncated("short", 10), "short");
        let cut = truncated(&"é".repeat(600), 1024);
        assert!(cut.len() <= 1024);
        assert!(cut.ends_with('…'));
        let long = build(
            &[],
            "Ready",
            Verdict::no("RuntimeNotReady", "x".repeat(5000)),
            None,
            &at(0),
        );
        assert!(long.message.len() <= MAX_MESSAGE_BYTES);
    }
}
