//! The events.k8s.io/v1 Event objects that announce status transitions.
//!
//! Each transition becomes its own Event, under the deterministic name
//! [`crate::pure::events::announcement`] gives it. kube's `Recorder` is not used: it names
//! Events by time and folds repeats of a reason into a series whose note
//! stays the first one. Creating them is the controller's job
//! (`controller/publish.rs`).

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;

use crate::pure::events::Transition;

/// Who reports: the controller name and this process's instance.
#[derive(Clone, Debug)]
pub struct Reporter {
    pub controller: String,
    pub instance: String,
}

/// The Event named `name` for one transition of the object `regarding`.
pub fn event(
    name: &str,
    transition: &Transition,
    regarding: &ObjectReference,
    reporter: &Reporter,
    now: Timestamp,
) -> Event {
    Event {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: regarding.namespace.clone(),
            ..ObjectMeta::default()
        },
        event_time: Some(MicroTime(now)),
        type_: Some(transition.reason.event_type().as_str().into()),
        reason: Some(transition.reason.as_str().into()),
        action: Some(transition.reason.action().as_str().into()),
        note: Some(transition.note.clone()),
        regarding: Some(regarding.clone()),
        reporting_controller: Some(reporter.controller.clone()),
        reporting_instance: Some(reporter.instance.clone()),
        ..Event::default()
    }
}

/// How long an Event this controller published still counts as an earlier
/// attempt of the same report when its note differs: a note quotes live
/// figures (replicas updated), which move between an attempt whose status
/// write got no answer (or whose process was killed before it) and its
/// retry. Longer than a reconcile's deadline and its retries across an API
/// server restart or a failover; far shorter than the time a forged
/// `reportSequence` takes to make a name repeat.
const RETRY_HORIZON_SECONDS: i64 = 600;

/// Whether `existing`, found under the name of `wanted`, announces the
/// same transition of the same object: then it was published by an earlier
/// attempt of the same report. The name already says which runtime,
/// report sequence and reason; the note must agree too, unless it was
/// published within [`RETRY_HORIZON_SECONDS`] before. Anything else
/// holding the name (an Event of another transition under a name a forged
/// `reportSequence` made repeat, or someone else's) does not count as
/// published.
pub fn same_announcement(existing: &Event, wanted: &Event) -> bool {
    let uid = |e: &Event| e.regarding.as_ref().and_then(|r| r.uid.clone());
    uid(existing).is_some()
        && uid(existing) == uid(wanted)
        && existing.reason == wanted.reason
        && existing.reporting_controller == wanted.reporting_controller
        && (existing.note == wanted.note || an_earlier_attempt(existing, wanted))
}

/// Whether `existing` was published at most [`RETRY_HORIZON_SECONDS`]
/// before `wanted`. By any instance of the controller: the attempt whose
/// status write never happened may have been this process's, or that of
/// a replica killed or deposed before it wrote (the leader after a
/// failover, or the same pod after a `kill -9`, has another instance name).
fn an_earlier_attempt(existing: &Event, wanted: &Event) -> bool {
    let (Some(then), Some(now)) = (&existing.event_time, &wanted.event_time) else {
        return false;
    };
    let age = now.0.as_second() - then.0.as_second();
    (0..=RETRY_HORIZON_SECONDS).contains(&age)
}

/// `wanted` to be named by the API server after its own name's prefix (the
/// runtime's name and a dot): the last resort when every name it could have
/// is held by something else.
pub fn generated(wanted: &Event) -> Event {
    let name = wanted.metadata.name.as_deref().unwrap_or_default();
    let prefix = name.rsplit_once('.').map_or(name, |(prefix, _)| prefix);
    let mut event = wanted.clone();
    event.metadata.name = None;
    event.metadata.generate_name = Some(format!("{prefix}."));
    event
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pure::events::Reason;

    fn sample(note: &str, uid: &str) -> Event {
        let transition = Transition {
            reason: Reason::RuntimeReady,
            note: note.into(),
        };
        let regarding = ObjectReference {
            name: Some("x".into()),
            uid: Some(uid.into()),
            ..ObjectReference::default()
        };
        let reporter = Reporter {
            controller: "trussium-operator".into(),
            instance: "pod-1".into(),
        };
        event(
            "x.0123456789abcdef",
            &transition,
            &regarding,
            &reporter,
            Timestamp::UNIX_EPOCH,
        )
    }

    #[test]
    fn only_the_same_transition_of_the_same_object_counts_as_published() {
        let wanted = sample("ready", "u-1");
        // Published by an earlier attempt, by another instance, at another time.
        let mut earlier = wanted.clone();
        earlier.reporting_instance = Some("pod-0".into());
        earlier.event_time = None;
        assert!(same_announcement(&earlier, &wanted));
        // Another transition, another object, another reporter, no object.
        // (Another note without a time: retries are the next test.)
        let mut another = sample("another", "u-1");
        another.reporting_instance = Some("pod-0".into());
        another.event_time = None;
        assert!(!same_announcement(&another, &wanted));
        assert!(!same_announcement(&sample("ready", "u-2"), &wanted));
        let mut reason = wanted.clone();
        reason.reason = Some("RuntimeDegraded".into());
        assert!(!same_announcement(&reason, &wanted));
        let mut foreign = wanted.clone();
        foreign.reporting_controller = Some("someone".into());
        assert!(!same_announcement(&foreign, &wanted));
        let mut nothing = wanted.clone();
        nothing.regarding = None;
        assert!(!same_announcement(&nothing, &nothing.clone()));
    }

    /// An attempt whose status write got no answer (or whose process was
    /// killed before it) published its Event; the retry, a moment later and
    /// perhaps by another instance, quotes other live figures in its note.
    #[test]
    fn a_retry_may_quote_other_figures() {
        let at = |note: &str, instance: &str, second: i64| {
            let mut e = sample(note, "u-1");
            e.reporting_instance = Some(instance.into());
            e.event_time = Timestamp::from_second(second).ok().map(MicroTime);
            e
        };
        let wanted = at("0 of 1 replicas updated", "pod-0", 1_000_100);
        assert!(same_announcement(
            &at("1 of 1 replicas updated", "pod-0", 1_000_000),
            &wanted
        ));
        assert!(same_announcement(
            &at("other", "pod-0", 1_000_100 - 600),
            &wanted
        ));
        // By the instance before a kill -9 or a failover.
        assert!(same_announcement(
            &at("1 of 1 replicas updated", "pod-1", 1_000_000),
            &wanted
        ));
        // Too long ago, or no time: the note must agree.
        assert!(!same_announcement(
            &at("other", "pod-0", 1_000_100 - 601),
            &wanted
        ));
        let mut timeless = at("other", "pod-0", 1_000_000);
        timeless.event_time = None;
        assert!(!same_announcement(&timeless, &wanted));
        // Published after the attempt that wants it: not an earlier one.
        assert!(!same_announcement(
            &at("other", "pod-0", 1_000_200),
            &wanted
        ));
        // Another reason or runtime never, however recent.
        assert!(!same_announcement(
            &at("other", "pod-0", 1_000_100),
            &sample("x", "u-2")
        ));
    }

    #[test]
    fn a_generated_name_keeps_the_runtime_name() {
        let e = generated(&sample("ready", "u-1"));
        assert_eq!(e.metadata.name, None);
        assert_eq!(e.metadata.generate_name.as_deref(), Some("x."));
    }

    #[test]
    fn event_carries_the_name_the_transition_and_the_reference() {
        let transition = Transition {
            reason: Reason::RuntimeDegraded,
            note: "deadline exceeded".into(),
        };
        let regarding = ObjectReference {
            api_version: Some("runtime.trussium.io/v1beta1".into()),
            kind: Some("TrussiumRuntime".into()),
            name: Some("private-ai".into()),
            namespace: Some("ai".into()),
            uid: Some("u-1".into()),
            ..ObjectReference::default()
        };
        let reporter = Reporter {
            controller: "trussium-operator".into(),
            instance: "pod-1".into(),
        };
        let now = Timestamp::from_second(1_800_000_000).unwrap_or(Timestamp::UNIX_EPOCH);
        let e = event("private-ai.0123", &transition, &regarding, &reporter, now);
        assert_eq!(e.metadata.name.as_deref(), Some("private-ai.0123"));
        assert_eq!(e.metadata.namespace.as_deref(), Some("ai"));
        assert_eq!(e.event_time, Some(MicroTime(now)));
        assert_eq!(e.type_.as_deref(), Some("Warning"));
        assert_eq!(e.reason.as_deref(), Some("RuntimeDegraded"));
        assert_eq!(e.action.as_deref(), Some("Rollout"));
        assert_eq!(e.note.as_deref(), Some("deadline exceeded"));
        assert_eq!(e.regarding.as_ref(), Some(&regarding));
        assert_eq!(e.reporting_controller.as_deref(), Some("trussium-operator"));
        assert_eq!(e.reporting_instance.as_deref(), Some("pod-1"));
        assert!(e.series.is_none());
    }
}
