//! Publishing Events (events.k8s.io/v1).
//!
//! Each transition becomes its own Event. kube's `Recorder` folds repeats of
//! a reason within six minutes into a series whose note stays the first one,
//! which would show a second upgrade with the first upgrade's images; our
//! Events are rare (transitions only), so no series is needed.

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::PostParams;
use kube::{Api, Client};

use crate::events::{EventType, Transition};

/// Who reports: the controller name and this process's instance.
#[derive(Clone, Debug)]
pub struct Reporter {
    pub controller: String,
    pub instance: String,
}

/// The Events for the transitions of one status change, in order. Each is
/// named for its own instant (`now`, then a nanosecond later for the next):
/// transitions of one report share a clock reading, and a shared name would
/// make the API server refuse all but the first as `AlreadyExists`.
pub fn events(
    transitions: &[Transition],
    regarding: &ObjectReference,
    reporter: &Reporter,
    now: Timestamp,
) -> Vec<Event> {
    transitions
        .iter()
        .zip(0_i64..)
        .map(|(transition, n)| {
            let at = now
                .checked_add(SignedDuration::from_nanos(n))
                .unwrap_or(now);
            event(transition, regarding, reporter, at)
        })
        .collect()
}

/// The Event for one transition of the object `regarding`.
pub fn event(
    transition: &Transition,
    regarding: &ObjectReference,
    reporter: &Reporter,
    now: Timestamp,
) -> Event {
    let name = regarding.name.clone().unwrap_or_default();
    Event {
        metadata: ObjectMeta {
            // Unique per occurrence, as client-go names them.
            name: Some(format!("{name}.{:x}", now.as_nanosecond())),
            namespace: regarding.namespace.clone(),
            ..ObjectMeta::default()
        },
        event_time: Some(MicroTime(now)),
        type_: Some(
            match transition.type_ {
                EventType::Normal => "Normal",
                EventType::Warning => "Warning",
            }
            .into(),
        ),
        reason: Some(transition.reason.into()),
        action: Some(transition.action.into()),
        note: Some(transition.note.clone()),
        regarding: Some(regarding.clone()),
        reporting_controller: Some(reporter.controller.clone()),
        reporting_instance: Some(reporter.instance.clone()),
        ..Event::default()
    }
}

/// Creates the Event in the namespace of the object it is about.
pub async fn publish(client: &Client, event: &Event) -> Result<(), kube::Error> {
    let namespace = event.metadata.namespace.as_deref().unwrap_or("default");
    Api::<Event>::namespaced(client.clone(), namespace)
        .create(&PostParams::default(), event)
        .await
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_carries_the_transition_and_the_reference() {
        let transition = Transition {
            type_: EventType::Warning,
            reason: "RuntimeDegraded",
            action: "Rollout",
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
        let e = event(&transition, &regarding, &reporter, now);
        assert_eq!(e.metadata.namespace.as_deref(), Some("ai"));
        assert!(
            e.metadata
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with("private-ai."))
        );
        assert_eq!(e.type_.as_deref(), Some("Warning"));
        assert_eq!(e.reason.as_deref(), Some("RuntimeDegraded"));
        assert_eq!(e.action.as_deref(), Some("Rollout"));
        assert_eq!(e.note.as_deref(), Some("deadline exceeded"));
        assert_eq!(e.regarding.as_ref(), Some(&regarding));
        assert_eq!(e.reporting_controller.as_deref(), Some("trussium-operator"));
        assert_eq!(e.reporting_instance.as_deref(), Some("pod-1"));
        assert!(e.series.is_none());
    }

    #[test]
    fn transitions_of_one_report_get_their_own_names() {
        let t = |reason| Transition {
            type_: EventType::Normal,
            reason,
            action: "Rollout",
            note: String::new(),
        };
        let transitions = [
            t("RuntimeProgressing"),
            t("RuntimeRecovered"),
            t("RuntimeReady"),
        ];
        let r = ObjectReference {
            name: Some("x".into()),
            namespace: Some("ns".into()),
            ..ObjectReference::default()
        };
        let rep = Reporter {
            controller: "c".into(),
            instance: "i".into(),
        };
        let now = Timestamp::from_second(1_800_000_000).unwrap_or(Timestamp::UNIX_EPOCH);
        let all = events(&transitions, &r, &rep, now);
        let reasons: Vec<_> = all.iter().filter_map(|e| e.reason.as_deref()).collect();
        assert_eq!(
            reasons,
            ["RuntimeProgressing", "RuntimeRecovered", "RuntimeReady"]
        );
        let names: std::collections::BTreeSet<_> =
            all.iter().filter_map(|e| e.metadata.name.clone()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert_eq!(all[0].event_time, Some(MicroTime(now)));
    }

    #[test]
    fn names_differ_per_occurrence() {
        let t = Transition {
            type_: EventType::Normal,
            reason: "RuntimeReady",
            action: "Rollout",
            note: String::new(),
        };
        let r = ObjectReference {
            name: Some("x".into()),
            ..ObjectReference::default()
        };
        let rep = Reporter {
            controller: "c".into(),
            instance: "i".into(),
        };
        let a = event(&t, &r, &rep, Timestamp::UNIX_EPOCH);
        let b = event(
            &t,
            &r,
            &rep,
            Timestamp::UNIX_EPOCH + k8s_openapi::jiff::SignedDuration::from_nanos(1),
        );
        assert_ne!(a.metadata.name, b.metadata.name);
    }
}
