//! The events.k8s.io/v1 Event objects that announce status transitions.
//!
//! Each transition becomes its own Event, under the deterministic name
//! [`crate::announcement`] gives it. kube's `Recorder` is not used: it names
//! Events by time and folds repeats of a reason into a series whose note
//! stays the first one. Creating them is the controller's job
//! (`controller/publish.rs`).

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;

use crate::events::Transition;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Reason;

    #[test]
    fn event_carries_the_name_the_transition_and_the_reference() {
        let transition = Transition {
            reason: Reason::RuntimeDegraded,
            note: "deadline exceeded".into(),
        };
        let regarding = ObjectReference {
            api_version: Some("runtime.trussium.io/v1alpha1".into()),
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
