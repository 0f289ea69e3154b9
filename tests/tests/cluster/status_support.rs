//! Shared by the `status_*` cluster tests (their harness is
//! [`crate::harness`]): runtimes, the exact status a settled step must show,
//! the Events the operator published about a runtime, and a recorder of
//! every status a runtime went through.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::events::v1::Event;
use kube::ResourceExt;
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::{Value, json};
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus, condition_type};

pub use crate::harness::{BoxError, Harness, TestResult, ensure, run};

pub const REPOSITORY: &str = "ghcr.io/trussiumhq/trussium";
pub const OLD_TAG: &str = "v1.22.0";
pub const NEW_TAG: &str = "v1.23.0";
pub const REPORTING_CONTROLLER: &str = "trussium-operator";
/// The bounded window of every "nothing more happens" check.
pub use crate::harness::EVENTS_QUIET as QUIET;

/// `repository:tag` of our image.
pub fn image(tag: &str) -> String {
    format!("{REPOSITORY}:{tag}")
}

/// A runtime named `name` running `REPOSITORY:tag` with `replicas`, and,
/// when given, a credentials Secret reference.
pub fn runtime(name: &str, tag: &str, replicas: i32, credentials: Option<&str>) -> Value {
    let mut provider = json!({
        "type": "openai",
        "model": "gpt-5",
    });
    if let Some(secret) = credentials {
        provider["credentialsSecretRef"] = json!({"name": secret, "key": "api-key"});
    }
    json!({
        "apiVersion": "runtime.trussium.io/v1alpha1",
        "kind": "TrussiumRuntime",
        "metadata": { "name": name },
        "spec": {
            "image": { "repository": REPOSITORY, "tag": tag },
            "replicas": replicas,
            "provider": provider,
        }
    })
}

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
    pub fn check(&self, rt: &TrussiumRuntime) -> Result<(), BoxError> {
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

/// The exact status a settled step shows.
#[derive(Clone, Debug)]
pub struct Expect {
    /// Names the step in failure messages.
    pub label: &'static str,
    /// (type, status, reason) for each of the six condition types.
    pub conditions: [(&'static str, &'static str, &'static str); 6],
    pub desired_replicas: i32,
    pub ready_replicas: Option<i32>,
    pub available_replicas: Option<i32>,
    pub desired_image: String,
    pub current_image: Option<String>,
    pub last_successful_image: Option<String>,
}

/// The six conditions of a runtime with valid configuration, in the order
/// they are reported.
pub fn conditions(
    progressing: (&'static str, &'static str),
    available: (&'static str, &'static str),
    ready: (&'static str, &'static str),
    degraded: (&'static str, &'static str),
    upgrading: (&'static str, &'static str),
) -> [(&'static str, &'static str, &'static str); 6] {
    [
        (
            condition_type::CONFIGURATION_VALID,
            "True",
            "ReferencesResolved",
        ),
        (condition_type::PROGRESSING, progressing.0, progressing.1),
        (condition_type::AVAILABLE, available.0, available.1),
        (condition_type::READY, ready.0, ready.1),
        (condition_type::DEGRADED, degraded.0, degraded.1),
        (condition_type::UPGRADING, upgrading.0, upgrading.1),
    ]
}

impl Expect {
    /// A runtime running `replicas` (>= 1) of `image`, rollout complete,
    /// with `upgrading` as its Upgrading condition.
    pub fn ready(
        label: &'static str,
        replicas: i32,
        image: &str,
        upgrading: (&'static str, &'static str),
    ) -> Expect {
        Expect {
            label,
            conditions: conditions(
                ("False", "ReconciliationComplete"),
                ("True", "RuntimeAvailable"),
                ("True", "RuntimeReady"),
                ("False", "AsExpected"),
                upgrading,
            ),
            desired_replicas: replicas,
            ready_replicas: Some(replicas),
            available_replicas: Some(replicas),
            desired_image: image.to_string(),
            current_image: Some(image.to_string()),
            last_successful_image: Some(image.to_string()),
        }
    }

    /// A runtime intentionally scaled to zero.
    pub fn scaled_to_zero(label: &'static str, image: &str) -> Expect {
        Expect {
            label,
            conditions: conditions(
                ("False", "ScaledToZero"),
                ("False", "ScaledToZero"),
                ("True", "ScaledToZero"),
                ("False", "AsExpected"),
                ("False", "NoUpgrade"),
            ),
            desired_replicas: 0,
            ready_replicas: Some(0),
            available_replicas: Some(0),
            desired_image: image.to_string(),
            current_image: Some(image.to_string()),
            last_successful_image: Some(image.to_string()),
        }
    }

    /// Everything in which `rt` differs from this expectation.
    pub fn mismatches(&self, rt: &TrussiumRuntime, namespace: &str) -> Vec<String> {
        let mut problems = Vec::new();
        let generation = rt.metadata.generation;
        let Some(status) = rt.status.as_ref() else {
            return vec!["no status".into()];
        };
        let mut field = |name: &str, want: String, got: String| {
            if want != got {
                problems.push(format!("{name}: want {want}, got {got}"));
            }
        };
        field(
            "observedGeneration",
            format!("{generation:?}"),
            format!("{:?}", status.observed_generation),
        );
        field(
            "desiredReplicas",
            format!("{:?}", Some(self.desired_replicas)),
            format!("{:?}", status.desired_replicas),
        );
        field(
            "readyReplicas",
            format!("{:?}", self.ready_replicas),
            format!("{:?}", status.ready_replicas),
        );
        field(
            "availableReplicas",
            format!("{:?}", self.available_replicas),
            format!("{:?}", status.available_replicas),
        );
        field(
            "desiredImage",
            format!("{:?}", Some(&self.desired_image)),
            format!("{:?}", status.desired_image),
        );
        field(
            "currentImage",
            format!("{:?}", self.current_image),
            format!("{:?}", status.current_image),
        );
        field(
            "lastSuccessfulImage",
            format!("{:?}", self.last_successful_image),
            format!("{:?}", status.last_successful_image),
        );
        field(
            "endpoint",
            format!(
                "{:?}",
                Some(format!(
                    "http://{}.{namespace}.svc.cluster.local:{}",
                    rt.name_any(),
                    rt.spec.service.port
                ))
            ),
            format!("{:?}", status.endpoint),
        );
        problems.extend(condition_mismatches(status, &self.conditions, generation));
        problems
    }
}

/// Exactly seven conditions, one per type: the six as expected, and
/// `Stalled` as the kstatus convention derives it from them; each observing
/// `generation` and saying something.
pub fn condition_mismatches(
    status: &TrussiumRuntimeStatus,
    expected: &[(&str, &str, &str); 6],
    generation: Option<i64>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let stalled = expected_stalled(expected);
    let expected: Vec<(&str, &str, &str)> = expected
        .iter()
        .copied()
        .chain([(condition_type::STALLED, stalled.0, stalled.1)])
        .collect();
    if status.conditions.len() != 7 {
        problems.push(format!(
            "{} conditions instead of 7: {:?}",
            status.conditions.len(),
            status
                .conditions
                .iter()
                .map(|c| c.type_.as_str())
                .collect::<Vec<_>>()
        ));
    }
    for (type_, want_status, want_reason) in &expected {
        match status.condition(type_) {
            None => problems.push(format!("condition {type_} missing")),
            Some(c) => {
                if (c.status.as_str(), c.reason.as_str()) != (*want_status, *want_reason) {
                    problems.push(format!(
                        "{type_}: want {want_status}/{want_reason}, got {}/{} ({})",
                        c.status, c.reason, c.message
                    ));
                }
                if c.observed_generation != generation {
                    problems.push(format!(
                        "{type_}.observedGeneration: want {generation:?}, got {:?}",
                        c.observed_generation
                    ));
                }
                if c.message.is_empty() {
                    problems.push(format!("{type_} has no message"));
                }
            }
        }
    }
    problems
}

/// Stalled (kstatus: Failed) is True exactly for a failed rollout or a
/// missing Secret, with that cause's reason; `Retrying` while the operator
/// retries a failure; `AsExpected` otherwise.
fn expected_stalled(conditions: &[(&str, &str, &str); 6]) -> (&'static str, &'static str) {
    let of = |t: &str| {
        conditions
            .iter()
            .find(|(type_, _, _)| *type_ == t)
            .map(|(_, status, reason)| (*status, *reason))
            .unwrap_or_default()
    };
    match (
        of(condition_type::CONFIGURATION_VALID),
        of(condition_type::DEGRADED),
    ) {
        (("False", "SecretNotFound"), _) => ("True", "SecretNotFound"),
        (("False", _), _) | (_, ("True", "ReconciliationFailed")) => ("False", "Retrying"),
        (_, ("True", "ProgressDeadlineExceeded")) => ("True", "ProgressDeadlineExceeded"),
        _ => ("False", "AsExpected"),
    }
}

/// `(Upgrading status/reason, lastSuccessfulImage, desiredImage)` of one
/// stored status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpgradeStep {
    pub upgrading: String,
    pub last_successful_image: Option<String>,
    pub desired_image: Option<String>,
}

/// Every status version of one runtime, as a watch delivers them.
pub struct StatusRecorder {
    seen: Arc<Mutex<Vec<TrussiumRuntimeStatus>>>,
    task: tokio::task::JoinHandle<()>,
}

impl StatusRecorder {
    /// Starts watching runtime `name` and waits until the watch delivered
    /// the current state.
    pub async fn start(runtimes: &Api<TrussiumRuntime>, name: &str) -> Result<Self, BoxError> {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
        let mut stream = watcher(runtimes.clone(), config).applied_objects().boxed();
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move {
            let mut ready = Some(ready_tx);
            while let Some(item) = stream.next().await {
                if let Ok(rt) = item {
                    if let Ok(mut seen) = sink.lock() {
                        let status = rt.status.unwrap_or_default();
                        if seen.last() != Some(&status) {
                            seen.push(status);
                        }
                    }
                    if let Some(tx) = ready.take() {
                        let _ = tx.send(());
                    }
                }
            }
        });
        tokio::time::timeout(Duration::from_secs(30), ready_rx)
            .await
            .map_err(|_| "the status watch delivered nothing within 30 s")?
            .map_err(|_| "the status watch ended")?;
        Ok(StatusRecorder { seen, task })
    }

    /// Every distinct status seen so far, oldest first.
    pub fn statuses(&self) -> Vec<TrussiumRuntimeStatus> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The upgrade view of every status seen, consecutive repeats folded.
    pub fn upgrade_steps(&self) -> Vec<UpgradeStep> {
        let mut steps: Vec<UpgradeStep> = Vec::new();
        for status in self.statuses() {
            let step = UpgradeStep {
                upgrading: status
                    .condition(condition_type::UPGRADING)
                    .map(|c| format!("{}/{}", c.status, c.reason))
                    .unwrap_or_default(),
                last_successful_image: status.last_successful_image.clone(),
                desired_image: status.desired_image.clone(),
            };
            if steps.last() != Some(&step) {
                steps.push(step);
            }
        }
        steps
    }

    /// The `status/reason` sequence of condition `type_`, repeats folded.
    pub fn condition_sequence(&self, type_: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for status in self.statuses() {
            let now = status
                .condition(type_)
                .map(|c| format!("{}/{}", c.status, c.reason))
                .unwrap_or_default();
            if out.last() != Some(&now) {
                out.push(now);
            }
        }
        out
    }
}

impl Drop for StatusRecorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}
