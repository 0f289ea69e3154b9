//! Shared by the `status_*` cluster tests: a namespace with its own operator,
//! runtimes, the exact status a settled step must show, the Events the
//! operator published about a runtime, and a recorder of every status a
//! runtime went through.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::panic::AssertUnwindSafe;

use futures::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Patch, PatchParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, ResourceExt};
use serde_json::{Value, json};
use tokio::time::Instant;
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus, condition_type};
use trussium_e2e::{
    Audit, AuditMark, OPERATOR_USER, Operator, TestNamespace, admin_kubeconfig_path, kubectl_path,
    require_cluster,
};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub type TestResult = Result<(), BoxError>;

pub const REPOSITORY: &str = "ghcr.io/trussiumhq/trussium";
pub const OLD_TAG: &str = "v1.22.0";
pub const NEW_TAG: &str = "v1.23.0";
pub const REPORTING_CONTROLLER: &str = "trussium-operator";
/// How long a step may take to settle (KWOK makes pods ready at once; the
/// rest is controllers and our operator on a busy two-core machine).
pub const SETTLE: Duration = Duration::from_secs(90);
/// How long Events may lag behind the status write that caused them.
pub const EVENTS_LAG: Duration = Duration::from_secs(20);
/// The bounded window of every "nothing more happens" check.
pub const QUIET: Duration = Duration::from_secs(5);

const POLL: Duration = Duration::from_millis(200);

/// `repository:tag` of our image.
pub fn image(tag: &str) -> String {
    format!("{REPOSITORY}:{tag}")
}

/// Everything a status test needs: its namespace, its operator, clients.
pub struct Fixture {
    pub ns: TestNamespace,
    pub operator: Operator,
    pub runtimes: Api<TrussiumRuntime>,
    pub events: Api<Event>,
    pub secrets: Api<Secret>,
    pub audit: Audit,
}

/// Creates a namespace and an operator watching only it (with `args`), runs
/// `body`, prints the operator's log when it fails (error or panic), and
/// deletes the namespace.
pub async fn scenario<F, Fut>(prefix: &str, args: &[&str], body: F) -> TestResult
where
    F: FnOnce(Fixture) -> Fut,
    Fut: Future<Output = TestResult>,
{
    require_cluster();
    let ns = TestNamespace::create(prefix).await?;
    let name = ns.name.clone();
    let admin = ns.client.clone();
    let operator = match Operator::start(&admin, &name, args).await {
        Ok(operator) => operator,
        Err(err) => {
            ns.delete().await;
            return Err(err.into());
        }
    };
    let log = operator.log.clone();
    let fixture = Fixture {
        runtimes: ns.api(),
        events: ns.api(),
        secrets: ns.api(),
        audit: Audit::open()?,
        operator,
        ns: TestNamespace {
            name: name.clone(),
            client: admin.clone(),
        },
    };
    let outcome = AssertUnwindSafe(body(fixture)).catch_unwind().await;
    let failed = !matches!(outcome, Ok(Ok(())));
    if failed {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        eprintln!(
            "---- operator log ({}) ----\n{text}---- end ----",
            log.display()
        );
    }
    TestNamespace {
        name,
        client: admin,
    }
    .delete()
    .await;
    match outcome {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    }
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

impl Fixture {
    pub fn namespace(&self) -> &str {
        &self.ns.name
    }

    pub async fn create(&self, manifest: Value) -> Result<TrussiumRuntime, BoxError> {
        let rt: TrussiumRuntime = serde_json::from_value(manifest)?;
        Ok(self.runtimes.create(&PostParams::default(), &rt).await?)
    }

    pub async fn get(&self, name: &str) -> Result<TrussiumRuntime, BoxError> {
        Ok(self.runtimes.get(name).await?)
    }

    /// Merge-patches the runtime's spec; returns the new generation.
    pub async fn patch_spec(&self, name: &str, spec: Value) -> Result<i64, BoxError> {
        let rt = self
            .runtimes
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "spec": spec })),
            )
            .await?;
        Ok(rt.metadata.generation.unwrap_or_default())
    }

    pub async fn set_replicas(&self, name: &str, replicas: i32) -> Result<i64, BoxError> {
        self.patch_spec(name, json!({ "replicas": replicas })).await
    }

    /// Sets `spec.image` to `repository:tag` (`"registry.invalid/x:tag"` too).
    pub async fn set_image(&self, name: &str, reference: &str) -> Result<i64, BoxError> {
        let (repository, tag) = reference
            .rsplit_once(':')
            .ok_or_else(|| format!("{reference} has no tag"))?;
        self.patch_spec(
            name,
            json!({ "image": { "repository": repository, "tag": tag } }),
        )
        .await
    }

    pub async fn create_secret(&self, name: &str, value: &str) -> Result<(), BoxError> {
        let secret: Secret = serde_json::from_value(json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": { "name": name },
            "stringData": { "api-key": value },
        }))?;
        self.secrets.create(&PostParams::default(), &secret).await?;
        Ok(())
    }

    /// Waits until the runtime shows exactly `expect` (all six conditions,
    /// every observedGeneration equal to metadata.generation, every field)
    /// and returns it. On timeout the error lists what still differs.
    pub async fn settle(&self, name: &str, expect: &Expect) -> Result<TrussiumRuntime, BoxError> {
        let deadline = Instant::now() + SETTLE;
        loop {
            let rt = self.get(name).await?;
            let problems = expect.mismatches(&rt, self.namespace());
            if problems.is_empty() {
                return Ok(rt);
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "runtime {name} did not settle within {SETTLE:?} ({}):\n  {}\nstatus: {}",
                    expect.label,
                    problems.join("\n  "),
                    serde_json::to_string_pretty(&rt.status)?
                )
                .into());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Every events.k8s.io/v1 Event of the namespace about the object with
    /// `uid`, in creation order.
    pub async fn events_of(&self, uid: &str) -> Result<Vec<SeenEvent>, BoxError> {
        let mut seen: Vec<SeenEvent> = self
            .events
            .list(&Default::default())
            .await?
            .items
            .into_iter()
            .filter(|e| e.regarding.as_ref().and_then(|r| r.uid.as_deref()) == Some(uid))
            .map(SeenEvent::from)
            .collect();
        seen.sort_by_key(|e| e.resource_version);
        Ok(seen)
    }

    /// Waits until the Events about `rt` are exactly `expected` (type, reason,
    /// in order), checks what every one of them must carry, and returns them.
    pub async fn expect_events(
        &self,
        rt: &TrussiumRuntime,
        expected: &[(&str, &str)],
    ) -> Result<Vec<SeenEvent>, BoxError> {
        let uid = rt.uid().ok_or("runtime without uid")?;
        let deadline = Instant::now() + EVENTS_LAG;
        loop {
            let seen = self.events_of(&uid).await?;
            let pairs: Vec<(&str, &str)> = seen
                .iter()
                .map(|e| (e.type_.as_str(), e.reason.as_str()))
                .collect();
            if pairs == expected {
                for e in &seen {
                    e.check(rt)?;
                }
                return Ok(seen);
            }
            // More than expected, or something else in place: no wait helps.
            let prefix = pairs.len() <= expected.len() && expected[..pairs.len()] == pairs[..];
            if !prefix || Instant::now() >= deadline {
                return Err(format!(
                    "Events about {}: expected\n  {expected:?}\ngot\n  {}",
                    rt.name_any(),
                    seen.iter()
                        .map(|e| format!("{} {} — {}", e.type_, e.reason, e.note))
                        .collect::<Vec<_>>()
                        .join("\n  ")
                )
                .into());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Over [`QUIET`], the Events about `rt` stay exactly `expected`.
    pub async fn events_stay(
        &self,
        rt: &TrussiumRuntime,
        expected: &[(&str, &str)],
    ) -> Result<(), BoxError> {
        let uid = rt.uid().ok_or("runtime without uid")?;
        let until = Instant::now() + QUIET;
        while Instant::now() < until {
            let seen = self.events_of(&uid).await?;
            let pairs: Vec<(&str, &str)> = seen
                .iter()
                .map(|e| (e.type_.as_str(), e.reason.as_str()))
                .collect();
            if pairs != expected {
                return Err(format!(
                    "Events about {} changed during a quiet period: expected {expected:?}, got {pairs:?}",
                    rt.name_any()
                )
                .into());
            }
            tokio::time::sleep(POLL).await;
        }
        Ok(())
    }

    /// Writes by the operator since `mark` (after settling the audit log),
    /// as `verb resource name`.
    pub async fn operator_writes(&self, mark: &AuditMark) -> Result<Vec<String>, BoxError> {
        self.audit.settle().await?;
        Ok(self
            .audit
            .writes_by(OPERATOR_USER, mark)?
            .into_iter()
            .filter(|e| {
                e.object_ref.as_ref().and_then(|o| o.namespace.as_deref()) == Some(self.namespace())
            })
            .map(|e| {
                let name = e
                    .object_ref
                    .as_ref()
                    .and_then(|o| o.name.clone())
                    .unwrap_or_default();
                format!("{} {} {name}", e.verb, e.resource())
            })
            .collect())
    }

    /// How many times the operator read the Secret `name` since `mark`: each
    /// reconcile of a runtime that references it checks it exactly once, so
    /// this counts reconciles.
    pub fn secret_checks(&self, name: &str, mark: &AuditMark) -> Result<usize, BoxError> {
        Ok(self
            .audit
            .events_since(mark)?
            .iter()
            .filter(|e| {
                e.stage == "ResponseComplete"
                    && e.verb == "get"
                    && e.user.username == OPERATOR_USER
                    && e.object_ref.as_ref().is_some_and(|o| {
                        o.resource.as_deref() == Some("secrets")
                            && o.namespace.as_deref() == Some(self.namespace())
                            && o.name.as_deref() == Some(name)
                    })
            })
            .count())
    }

    /// Waits until the operator has reconciled a runtime referencing the
    /// Secret `name` at least `n` times since `mark`.
    pub async fn wait_for_reconciles(
        &self,
        secret: &str,
        mark: &AuditMark,
        n: usize,
    ) -> Result<(), BoxError> {
        let deadline = Instant::now() + SETTLE;
        loop {
            let seen = self.secret_checks(secret, mark)?;
            if seen >= n {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "the operator reconciled {seen} times (checked Secret {secret}) within {SETTLE:?}, expected {n}"
                )
                .into());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Runs the real kubectl as the admin in this namespace.
    pub async fn kubectl(&self, args: &[&str]) -> Result<std::process::Output, BoxError> {
        Ok(tokio::process::Command::new(kubectl_path())
            .env("KUBECONFIG", admin_kubeconfig_path())
            .arg("--namespace")
            .arg(self.namespace())
            .args(args)
            .output()
            .await?)
    }
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
    fn check(&self, rt: &TrussiumRuntime) -> Result<(), BoxError> {
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

/// `Err` with `message` unless `ok`.
pub fn ensure(ok: bool, message: impl Into<String>) -> TestResult {
    if ok {
        Ok(())
    } else {
        Err(message.into().into())
    }
}

impl Fixture {
    /// Waits (up to [`SETTLE`]) for a window of `window` in which the
    /// operator does not reconcile the runtime referencing Secret `secret`:
    /// the Deployment controller's last status updates have been seen.
    pub async fn wait_until_idle(&self, secret: &str, window: Duration) -> Result<(), BoxError> {
        let deadline = Instant::now() + SETTLE;
        loop {
            let mark = self.audit.mark();
            let until = Instant::now() + window;
            while Instant::now() < until {
                tokio::time::sleep(POLL).await;
            }
            self.audit.settle().await?;
            if self.secret_checks(secret, &mark)? == 0 {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!("the operator kept reconciling for {SETTLE:?}").into());
            }
        }
    }

    /// Over [`QUIET`] from `mark`: the operator neither reconciles (no check
    /// of Secret `secret`) nor writes anything in the namespace.
    pub async fn stays_idle(&self, secret: &str, mark: &AuditMark) -> TestResult {
        let until = Instant::now() + QUIET;
        while Instant::now() < until {
            tokio::time::sleep(POLL).await;
        }
        let writes = self.operator_writes(mark).await?;
        let checks = self.secret_checks(secret, mark)?;
        ensure(
            writes.is_empty() && checks == 0,
            format!(
                "expected no reconcile and no write, saw {checks} reconciles and writes {writes:?}"
            ),
        )
    }
}

/// Waits until the Events about the object with `uid` are exactly one of
/// `candidates` (type, reason, in order) and returns that one: for steps
/// whose Events may legitimately come in more than one order.
pub async fn wait_for_any_events(
    fx: &Fixture,
    uid: &str,
    candidates: &[Vec<(&'static str, &'static str)>],
) -> Result<Vec<(&'static str, &'static str)>, BoxError> {
    let deadline = Instant::now() + EVENTS_LAG;
    loop {
        let seen = fx.events_of(uid).await?;
        let pairs: Vec<(&str, &str)> = seen
            .iter()
            .map(|e| (e.type_.as_str(), e.reason.as_str()))
            .collect();
        if let Some(found) = candidates.iter().find(|c| **c == pairs) {
            return Ok(found.clone());
        }
        if Instant::now() >= deadline {
            return Err(format!("Events: expected one of {candidates:#?}\ngot {pairs:#?}").into());
        }
        tokio::time::sleep(POLL).await;
    }
}
