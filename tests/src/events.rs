//! The Events the operator publishes about runtimes, as the tests read them.

use std::collections::BTreeMap;

use k8s_openapi::api::events::v1::Event;
use kube::api::ListParams;
use kube::{Api, ResourceExt};
use trussium_api::TrussiumRuntime;

use crate::{BoxError, TestResult, ensure};

/// The `reportingController` of every Event of the operator.
pub const REPORTING_CONTROLLER: &str = "trussium-operator";

/// One Event, the fields the tests look at.
#[derive(Clone, Debug)]
pub struct SeenEvent {
    pub type_: String,
    pub reason: String,
    pub action: String,
    pub note: String,
    pub reporting_controller: String,
    pub regarding_kind: String,
    pub regarding_name: String,
    pub resource_version: u64,
}

impl From<Event> for SeenEvent {
    fn from(e: Event) -> Self {
        let regarding = e.regarding.unwrap_or_default();
        SeenEvent {
            type_: e.type_.unwrap_or_default(),
            reason: e.reason.unwrap_or_default(),
            action: e.action.unwrap_or_default(),
            note: e.note.unwrap_or_default(),
            reporting_controller: e.reporting_controller.unwrap_or_default(),
            regarding_kind: regarding.kind.unwrap_or_default(),
            regarding_name: regarding.name.unwrap_or_default(),
            resource_version: e
                .metadata
                .resource_version
                .and_then(|v| v.parse().ok())
                .unwrap_or_default(),
        }
    }
}

impl SeenEvent {
    /// What every Event about a runtime carries.
    pub fn check(&self, rt: &TrussiumRuntime) -> TestResult {
        let problems: Vec<&str> = [
            (
                self.reporting_controller == REPORTING_CONTROLLER,
                "reportingController is not trussium-operator",
            ),
            (
                self.regarding_kind == "TrussiumRuntime",
                "regarding is not a TrussiumRuntime",
            ),
            (
                self.regarding_name == rt.name_any(),
                "regarding names another runtime",
            ),
            (
                !self.action.is_empty() && self.action.chars().all(|c| c.is_ascii_alphabetic()),
                "action is not an UpperCamelCase word",
            ),
            (!self.note.is_empty(), "note is empty"),
            (self.note.len() <= 1024, "note is longer than 1 KiB"),
        ]
        .into_iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, problem)| problem)
        .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "Event {} {}: {}",
                self.type_,
                self.reason,
                problems.join(", ")
            )
            .into())
        }
    }
}

/// `(type, reason)` of each Event, for comparisons.
pub fn pairs(events: &[SeenEvent]) -> Vec<(&str, &str)> {
    events
        .iter()
        .map(|e| (e.type_.as_str(), e.reason.as_str()))
        .collect()
}

/// One line per Event, for messages.
pub fn describe_events(events: &[SeenEvent]) -> String {
    events
        .iter()
        .map(|e| format!("{} {} — {}", e.type_, e.reason, e.note))
        .collect::<Vec<_>>()
        .join("\n  ")
}

/// `(type, reason)` of the Events `events` lists, by the uid of the object
/// they are about, in order.
pub async fn events_by_runtime(
    events: &Api<Event>,
) -> Result<BTreeMap<String, Vec<(String, String)>>, BoxError> {
    let mut events: Vec<_> = events.list(&ListParams::default()).await?.items;
    events.sort_by_key(|e| {
        e.metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or_default()
    });
    let mut by_uid: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for e in events {
        let Some(uid) = e.regarding.as_ref().and_then(|r| r.uid.clone()) else {
            continue;
        };
        by_uid.entry(uid).or_default().push((
            e.type_.clone().unwrap_or_default(),
            e.reason.clone().unwrap_or_default(),
        ));
    }
    Ok(by_uid)
}

/// Each runtime's Events are those of one first rollout, each said once:
/// `RuntimeProgressing` then `RuntimeReady`, or only `RuntimeReady` when the
/// operator first reported after the Deployment had rolled out (it was
/// down meanwhile: a fast rollout skips the progressing state).
pub fn check_first_rollout_events(
    runtimes: &[TrussiumRuntime],
    events: &BTreeMap<String, Vec<(String, String)>>,
) -> TestResult {
    let both = [("Normal", "RuntimeProgressing"), ("Normal", "RuntimeReady")];
    let mut wrong = Vec::new();
    for rt in runtimes {
        let uid = rt.uid().unwrap_or_default();
        let seen: Vec<(&str, &str)> = events
            .get(&uid)
            .map(|v| v.iter().map(|(t, r)| (t.as_str(), r.as_str())).collect())
            .unwrap_or_default();
        if seen != both && seen != both[1..] {
            wrong.push(format!("{}: {seen:?}", rt.name_any()));
        }
    }
    ensure(
        wrong.is_empty(),
        format!(
            "{} runtimes have other Events than one first rollout's:\n  {}",
            wrong.len(),
            wrong.join("\n  ")
        ),
    )
}
