//! Shared by the `status` cluster tests (their harness is
//! [`trussium_e2e::Harness`]): the exact status a settled step must show and
//! the wait for it, a recorder of every status a runtime went through, and
//! the snapshots of each scenario for the GitOps checks.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use kube::ResourceExt;
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::json;
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus, condition_type};
use trussium_e2e::{BoxError, CONVERGE, Harness, TestResult, ensure, repo_root, wait_for};

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

/// Waits until runtime `name` shows exactly `expect` (all conditions, every
/// observedGeneration equal to metadata.generation, every field) and
/// returns it. On timeout the error lists what still differs.
pub async fn settle(h: &Harness, name: &str, expect: &Expect) -> Result<TrussiumRuntime, BoxError> {
    let mut last = String::new();
    let result = wait_for(
        &format!("runtime {name} to settle ({})", expect.label),
        CONVERGE,
        async || {
            let rt = h.get(name).await?;
            let problems = expect.mismatches(&rt, h.namespace());
            if problems.is_empty() {
                return Ok(Some(rt));
            }
            last = format!(
                "{}\nstatus: {}",
                problems.join("\n  "),
                serde_json::to_string_pretty(&rt.status)?
            );
            Ok(None)
        },
    )
    .await;
    result.map_err(|e| format!("{e}:\n  {last}").into())
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
                // A failed reconcile is retried (`Retrying`) or, when it will
                // not pass by itself, stalls with its cause's reason: the
                // tests that cause one say which.
                let stall = *type_ == condition_type::STALLED
                    && *want_reason == "Retrying"
                    && c.status == "True"
                    && STALL_REASONS.contains(&c.reason.as_str());
                if !stall && (c.status.as_str(), c.reason.as_str()) != (*want_status, *want_reason)
                {
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

/// The reasons of a reconcile failure that stalls (see `condition_mismatches`).
const STALL_REASONS: [&str; 4] = [
    "ApplyRefused",
    "NameConflict",
    "NetworkPolicyRefused",
    "NetworkPolicyConflict",
];

/// Stalled (kstatus: Failed) is True exactly for a failed rollout or a
/// missing Secret, with that cause's reason; `Retrying` while the operator
/// retries a failure (or one of [`STALL_REASONS`]); `AsExpected` otherwise.
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

/// Where the snapshots go: `target/gitops-scenarios/<scenario>.json`.
pub fn snapshot_dir() -> PathBuf {
    std::env::var_os("TRUSSIUM_GITOPS_SNAPSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target").join("gitops-scenarios"))
}

/// Dumps runtime `name` as the API server stores it now, with whether
/// `kubectl wait --for=condition=Ready --timeout=0s` (check once) finds the
/// condition met on that same version of the object.
pub async fn snapshot(fx: &Harness, name: &str, scenario: &str, test: &str) -> TestResult {
    for _ in 0..20 {
        let before = fx.get(name).await?;
        let waited = fx
            .kubectl(&[
                "wait",
                "--for=condition=Ready",
                &format!("trussiumruntime/{name}"),
                "--timeout=0s",
            ])
            .await?;
        let after = fx.get(name).await?;
        if before.metadata.resource_version != after.metadata.resource_version {
            continue;
        }
        let met = waited.success;
        let stderr = waited.stderr.as_str();
        // With --timeout=0s kubectl checks once: "condition not met".
        ensure(
            met || stderr.contains("condition not met") || stderr.contains("timed out"),
            format!("kubectl wait failed otherwise: {stderr}"),
        )?;
        let dir = snapshot_dir();
        std::fs::create_dir_all(&dir)?;
        let doc = json!({
            "scenario": scenario,
            "test": test,
            "kubectlWaitMet": met,
            "object": after,
        });
        std::fs::write(
            dir.join(format!("{scenario}.json")),
            serde_json::to_vec_pretty(&doc)?,
        )?;
        return Ok(());
    }
    Err(format!("runtime {name} kept changing while taking the {scenario} snapshot").into())
}
