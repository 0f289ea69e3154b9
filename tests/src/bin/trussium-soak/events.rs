//! Every transition a runtime's stored statuses went through has its Event
//! exactly once.
//!
//! From the recorded statuses (see [`crate::history`]) each step from one
//! stored status to the next calls for the Events the operator's own diff
//! names (`announce`): each must exist under its deterministic name (none
//! missing). Any other Event about the runtime must be named from a status
//! the runtime really stored, as an attempt from that status names it (an
//! attempt whose status write was then lost or refused, say after a cut
//! connection or a kill: its Event told the truth when it was published,
//! and the soak counts it), and must not repeat the Event that recorded the
//! step into that status (announced twice).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::events::v1::Event;
use kube::api::ListParams;
use kube::{Api, Client, ResourceExt};
use trussium_operator::pure::events::announcement::{announce, event_name};
use trussium_operator::pure::events::{Reason, transitions};

use crate::history::History;
use trussium_e2e::BoxError;

/// An Event as the checks see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub name: String,
    pub reason: String,
    pub note: String,
}

/// What the Events of one runtime came to.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Every Event name seen.
    pub published: BTreeSet<String>,
    /// Events of attempts whose status write did not stay, described.
    pub unrecorded: Vec<String>,
    /// Status sequences the record misses (their steps are not checked).
    pub gaps: usize,
    pub violations: Vec<String>,
}

/// The Events about each runtime uid in `namespace`.
pub async fn list(
    admin: &Client,
    namespace: &str,
) -> Result<BTreeMap<String, Vec<Seen>>, BoxError> {
    let events = Api::<Event>::namespaced(admin.clone(), namespace)
        .list(&ListParams::default())
        .await?
        .items;
    let mut by_uid: BTreeMap<String, Vec<Seen>> = BTreeMap::new();
    for e in events {
        let Some(uid) = e.regarding.as_ref().and_then(|r| r.uid.clone()) else {
            continue;
        };
        by_uid.entry(uid).or_default().push(Seen {
            name: e.name_any(),
            reason: e.reason.clone().unwrap_or_default(),
            note: e.note.clone().unwrap_or_default(),
        });
    }
    Ok(by_uid)
}

/// Checks the Events about runtime `uid` against its recorded statuses.
pub fn check(uid: &str, history: &History, events: &[Seen]) -> Verdict {
    let who = format!("runtime {}/{}", history.namespace, history.name);
    let mut verdict = Verdict {
        gaps: history.gaps(),
        published: events.iter().map(|e| e.name.clone()).collect(),
        ..Verdict::default()
    };
    let statuses = &history.statuses;
    // The Events each recorded step calls for, by name: (sequence, reason).
    let mut expected: BTreeMap<String, (i64, Reason)> = BTreeMap::new();
    for (sequence, stored) in statuses {
        let Some(Some(next)) = statuses.get(&(sequence + 1)) else {
            continue;
        };
        let Some(announcement) = announce(&history.name, uid, stored.as_ref(), next.clone()) else {
            continue;
        };
        for (name, transition) in announcement.events {
            expected.insert(name, (*sequence, transition.reason));
        }
    }
    for (name, (sequence, reason)) in &expected {
        if !verdict.published.contains(name) {
            verdict.violations.push(format!(
                "{who}: the {reason} Event of the step from status #{sequence} to #{} is missing ({name})",
                sequence + 1
            ));
        }
    }
    let last = statuses.keys().next_back().copied().unwrap_or(0);
    for event in events.iter().filter(|e| !expected.contains_key(&e.name)) {
        let reason = Reason::ALL.into_iter().find(|r| r.as_str() == event.reason);
        let from = reason.and_then(|reason| {
            (0..=last).find(|s| event_name(&history.name, uid, *s, reason) == event.name)
        });
        let Some(from) = from else {
            verdict.violations.push(format!(
                "{who}: Event {} ({}) is named from no status the runtime stored: \"{}\"",
                event.name, event.reason, event.note
            ));
            continue;
        };
        let into = statuses
            .get(&(from - 1))
            .zip(statuses.get(&from))
            .and_then(|(before, at)| Some(transitions(before.as_ref(), at.as_ref()?)));
        if into
            .iter()
            .flatten()
            .any(|t| t.reason.as_str() == event.reason && t.note == event.note)
        {
            verdict.violations.push(format!(
                "{who}: {} announced twice: Event {} repeats the step into status #{from}: \"{}\"",
                event.reason, event.name, event.note
            ));
            continue;
        }
        verdict.unrecorded.push(format!(
            "{who}: {} from status #{from}: \"{}\"",
            event.reason, event.note
        ));
    }
    verdict
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
    use trussium_api::TrussiumRuntimeStatus;

    use super::*;

    const UID: &str = "u-1";

    fn status(sequence: i64, ready: &str, reason: &str) -> TrussiumRuntimeStatus {
        TrussiumRuntimeStatus {
            report_sequence: Some(sequence),
            conditions: vec![Condition {
                type_: "Ready".into(),
                status: ready.into(),
                reason: reason.into(),
                message: "m".into(),
                observed_generation: Some(1),
                last_transition_time: Time(k8s_openapi::jiff::Timestamp::UNIX_EPOCH),
            }],
            ..TrussiumRuntimeStatus::default()
        }
    }

    fn history() -> History {
        History {
            namespace: "ns".into(),
            name: "rt".into(),
            statuses: BTreeMap::from([
                (0, None),
                (1, Some(status(1, "False", "RuntimeNotReady"))),
                (2, Some(status(2, "True", "RuntimeReady"))),
            ]),
        }
    }

    /// The Events the operator publishes for `history`, as it names them.
    fn published(history: &History) -> Vec<Seen> {
        let s = &history.statuses;
        let mut seen = Vec::new();
        for k in 0..2 {
            let next = s.get(&(k + 1)).cloned().flatten().unwrap_or_default();
            let stored = s.get(&k).cloned().flatten();
            for (name, t) in announce("rt", UID, stored.as_ref(), next)
                .map(|a| a.events)
                .unwrap_or_default()
            {
                seen.push(Seen {
                    name,
                    reason: t.reason.as_str().into(),
                    note: t.note,
                });
            }
        }
        seen
    }

    #[test]
    fn the_story_told_once_passes() {
        let h = history();
        let events = published(&h);
        assert!(!events.is_empty());
        let verdict = check(UID, &h, &events);
        assert_eq!(verdict.violations, Vec::<String>::new());
        assert!(verdict.unrecorded.is_empty());
        assert_eq!(verdict.gaps, 0);
    }

    #[test]
    fn a_missing_event_is_named() {
        let h = history();
        let mut events = published(&h);
        let lost = events.pop().map(|e| e.reason).unwrap_or_default();
        let verdict = check(UID, &h, &events);
        assert_eq!(verdict.violations.len(), 1, "{:?}", verdict.violations);
        assert!(verdict.violations[0].contains(&lost));
        assert!(verdict.violations[0].contains("runtime ns/rt"));
    }

    #[test]
    fn the_same_step_announced_again_from_the_next_status_is_twice() {
        let h = history();
        let mut events = published(&h);
        // What an operator that lost track of the stored status would do:
        // announce Ready again, from status #2, which already records it.
        let again = events.iter().find(|e| e.reason == "RuntimeReady").cloned();
        let Some(again) = again else {
            panic!("no RuntimeReady in {events:?}");
        };
        events.push(Seen {
            name: event_name("rt", UID, 2, Reason::RuntimeReady),
            ..again
        });
        let verdict = check(UID, &h, &events);
        assert_eq!(verdict.violations.len(), 1, "{:?}", verdict.violations);
        assert!(verdict.violations[0].contains("announced twice"));
    }

    #[test]
    fn an_attempt_whose_write_did_not_stay_is_counted_and_a_stray_name_is_not() {
        let h = history();
        let mut events = published(&h);
        events.push(Seen {
            name: event_name("rt", UID, 2, Reason::RuntimeDegraded),
            reason: "RuntimeDegraded".into(),
            note: "the rollout failed".into(),
        });
        let verdict = check(UID, &h, &events);
        assert!(verdict.violations.is_empty(), "{:?}", verdict.violations);
        assert_eq!(verdict.unrecorded.len(), 1);
        events.push(Seen {
            name: "rt.0123456789abcdef".into(),
            reason: "RuntimeReady".into(),
            note: "n".into(),
        });
        let verdict = check(UID, &h, &events);
        assert_eq!(verdict.violations.len(), 1, "{:?}", verdict.violations);
        assert!(verdict.violations[0].contains("named from no status"));
    }
}
