//! Shared by the `operator_*` cluster tests: a namespace with its own operator
//! (running as the operator's ServiceAccount, watching only that namespace),
//! runtimes from the samples, Secrets, waiting on status, bounded
//! observation windows, the operator's writes from the audit log, and a
//! recorder of every `spec.replicas` a Deployment passes through.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{FutureExt, StreamExt};
use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, OwnerReference};
use kube::api::{Patch, PatchParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Resource};
use serde_json::{Value, json};
use tokio::time::Instant;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    Audit, AuditEvent, AuditMark, OPERATOR_USER, Operator, TestNamespace, repo_root,
    require_cluster, wait_for,
};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub type TestResult = Result<(), BoxError>;

/// Long enough for a rollout on KWOK (pods ready in about a second) with
/// several tests and their operators sharing two cores.
pub const CONVERGE: Duration = Duration::from_secs(90);
/// What "promptly" means: a watch reacted. The operator's periodic resync is
/// five minutes, its retry after an error fifteen seconds.
pub const PROMPT: Duration = Duration::from_secs(10);
/// A bounded window in which something must *not* happen.
pub const QUIET: Duration = Duration::from_secs(10);
/// The operator's progress deadline in these tests.
pub const PROGRESS_DEADLINE_ARG: &str = "--progress-deadline-seconds=10";

/// The labels every owned object (and every runtime pod) carries.
pub fn operator_labels(runtime: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("app.kubernetes.io/name".into(), "trussium".into()),
        ("app.kubernetes.io/instance".into(), runtime.into()),
        (
            "app.kubernetes.io/managed-by".into(),
            "trussium-operator".into(),
        ),
        ("app.kubernetes.io/component".into(), "runtime".into()),
    ])
}

/// The selector of a runtime's pods.
pub fn selector_labels(runtime: &str) -> Value {
    json!({
        "app.kubernetes.io/name": "trussium",
        "app.kubernetes.io/instance": runtime,
    })
}

/// One test's world: its namespace, its operator and the audit log.
pub struct Harness {
    pub ns: TestNamespace,
    pub operator: Operator,
    pub audit: Audit,
}

/// Runs `body` in a fresh namespace with its own operator; afterwards stops
/// the operator and deletes the namespace. When the body fails (error or
/// panic) the operator's log is printed first.
pub async fn run<F>(prefix: &str, operator_args: &[&str], body: F) -> TestResult
where
    F: AsyncFnOnce(&mut Harness) -> TestResult,
{
    require_cluster();
    let ns = TestNamespace::create(prefix).await?;
    let audit = Audit::open()?;
    let operator = match Operator::start(&ns.client, &ns.name, operator_args).await {
        Ok(operator) => operator,
        Err(err) => {
            ns.delete().await;
            return Err(err.into());
        }
    };
    let mut harness = Harness {
        ns,
        operator,
        audit,
    };
    let outcome = AssertUnwindSafe(body(&mut harness)).catch_unwind().await;
    if !matches!(outcome, Ok(Ok(()))) {
        eprintln!(
            "---- operator log of namespace {} ({}) ----\n{}---- end of operator log ----",
            harness.ns.name,
            harness.operator.log.display(),
            harness.operator.log_text()
        );
    }
    harness.operator.stop().await;
    harness.ns.delete().await;
    match outcome {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// A sample from `deploy/samples/` as JSON.
pub fn sample(name: &str) -> Result<Value, BoxError> {
    let path = repo_root()
        .join("deploy/samples")
        .join(format!("{name}.yaml"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(serde_yaml::from_str(&text)?)
}

/// The minimal sample renamed to `name`, with changes merged into its spec
/// (a JSON merge: objects merge, everything else replaces).
pub fn minimal(name: &str, spec_changes: Value) -> Result<Value, BoxError> {
    let mut rt = sample("minimal")?;
    rt["metadata"]["name"] = json!(name);
    merge(&mut rt["spec"], spec_changes);
    Ok(rt)
}

/// JSON merge patch semantics, in place.
pub fn merge(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                if value.is_null() {
                    target.remove(&key);
                } else {
                    merge(target.entry(key).or_insert(Value::Null), value);
                }
            }
        }
        (target, patch) => *target = patch,
    }
}

/// The field of `value` at a JSON pointer, or null.
pub fn at<'a>(value: &'a Value, pointer: &str) -> &'a Value {
    value.pointer(pointer).unwrap_or(&Value::Null)
}

/// An object as JSON.
pub fn json_of<T: serde::Serialize>(object: &T) -> Result<Value, BoxError> {
    Ok(serde_json::to_value(object)?)
}

/// A condition of a runtime's status.
pub fn condition<'a>(rt: &'a TrussiumRuntime, type_: &str) -> Option<&'a Condition> {
    rt.status.as_ref()?.condition(type_)
}

/// `status/reason` of a condition, e.g. `True/RuntimeReady`.
pub fn condition_summary(rt: &TrussiumRuntime, type_: &str) -> String {
    condition(rt, type_).map_or_else(
        || "absent".to_string(),
        |c| format!("{}/{}", c.status, c.reason),
    )
}

/// Every owned object's single owner reference: this runtime, as its
/// controller, without `blockOwnerDeletion` (which would need the finalizers
/// permission the operator does not have).
pub fn assert_owned_by(meta: &ObjectMeta, rt: &TrussiumRuntime, what: &str) {
    let expected = OwnerReference {
        api_version: "runtime.trussium.io/v1alpha1".into(),
        kind: "TrussiumRuntime".into(),
        name: rt.metadata.name.clone().unwrap_or_default(),
        uid: rt.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: None,
    };
    assert_eq!(
        meta.owner_references.as_deref(),
        Some(&[expected][..]),
        "owner references of {what}"
    );
}

/// The operator's labels, exactly.
pub fn assert_operator_labels(meta: &ObjectMeta, runtime: &str, what: &str) {
    assert_eq!(
        meta.labels.as_ref(),
        Some(&operator_labels(runtime)),
        "labels of {what}"
    );
}

impl Harness {
    pub fn namespace(&self) -> &str {
        &self.ns.name
    }

    pub fn api<K>(&self) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        <K as Resource>::DynamicType: Default,
    {
        self.ns.api()
    }

    pub fn runtimes(&self) -> Api<TrussiumRuntime> {
        self.api()
    }

    /// Creates a runtime from its JSON manifest, as the admin.
    pub async fn create_runtime(&self, manifest: Value) -> Result<TrussiumRuntime, BoxError> {
        let rt: TrussiumRuntime = serde_json::from_value(manifest)?;
        Ok(self.runtimes().create(&PostParams::default(), &rt).await?)
    }

    /// Merges `spec_changes` into the runtime's spec (JSON merge patch).
    pub async fn patch_spec(
        &self,
        name: &str,
        spec_changes: Value,
    ) -> Result<TrussiumRuntime, BoxError> {
        Ok(self
            .runtimes()
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "spec": spec_changes })),
            )
            .await?)
    }

    /// Creates an Opaque Secret with one key.
    pub async fn create_secret(&self, name: &str, key: &str, value: &str) -> TestResult {
        self.create_secret_with(name, key, value, BTreeMap::new())
            .await
    }

    /// Creates an Opaque Secret with one key and the given annotations.
    pub async fn create_secret_with(
        &self,
        name: &str,
        key: &str,
        value: &str,
        annotations: BTreeMap<String, String>,
    ) -> TestResult {
        let secret = Secret {
            metadata: ObjectMeta {
                name: Some(name.into()),
                annotations: (!annotations.is_empty()).then_some(annotations),
                ..ObjectMeta::default()
            },
            data: Some(BTreeMap::from([(
                key.to_string(),
                ByteString(value.as_bytes().to_vec()),
            )])),
            type_: Some("Opaque".into()),
            ..Secret::default()
        };
        self.api::<Secret>()
            .create(&PostParams::default(), &secret)
            .await?;
        Ok(())
    }

    /// Replaces the value of one key of a Secret (a rotation).
    pub async fn rotate_secret(&self, name: &str, key: &str, value: &str) -> TestResult {
        let encoded = ByteString(value.as_bytes().to_vec());
        self.api::<Secret>()
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "data": { key: encoded } })),
            )
            .await?;
        Ok(())
    }

    /// Waits until the runtime reports `type_` with `status` (and `reason`,
    /// when given) for its current generation.
    pub async fn wait_condition(
        &self,
        name: &str,
        type_: &str,
        status: &str,
        reason: Option<&str>,
        timeout: Duration,
    ) -> Result<TrussiumRuntime, BoxError> {
        let runtimes = self.runtimes();
        let want = match reason {
            Some(reason) => format!("{status}/{reason}"),
            None => status.to_string(),
        };
        let mut last = String::new();
        let result = wait_for(
            &format!("runtime {name} to report {type_}={want}"),
            timeout,
            async || {
                let rt = runtimes.get(name).await?;
                last = condition_summary(&rt, type_);
                let current = rt.status.as_ref().and_then(|s| s.observed_generation)
                    == rt.metadata.generation;
                let matches = condition(&rt, type_).is_some_and(|c| {
                    c.status == status
                        && reason.is_none_or(|r| c.reason == r)
                        && c.observed_generation == rt.metadata.generation
                });
                Ok((current && matches).then_some(rt))
            },
        )
        .await;
        result.map_err(|e| format!("{e} (last seen: {type_}={last})").into())
    }

    /// Waits until the runtime is Ready for its current generation.
    pub async fn wait_ready(&self, name: &str) -> Result<TrussiumRuntime, BoxError> {
        self.wait_condition(name, "Ready", "True", None, CONVERGE)
            .await
    }

    /// Waits until an object exists and `check` accepts it.
    pub async fn wait_object<K>(
        &self,
        what: &str,
        name: &str,
        timeout: Duration,
        check: impl Fn(&K) -> bool,
    ) -> Result<K, BoxError>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + std::fmt::Debug
            + serde::de::DeserializeOwned,
        <K as Resource>::DynamicType: Default,
    {
        let api = self.api::<K>();
        Ok(wait_for(what, timeout, async || {
            Ok(api.get_opt(name).await?.filter(|o| check(o)))
        })
        .await?)
    }

    /// Waits until an object exists.
    pub async fn wait_exists<K>(&self, what: &str, name: &str) -> Result<K, BoxError>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + std::fmt::Debug
            + serde::de::DeserializeOwned,
        <K as Resource>::DynamicType: Default,
    {
        self.wait_object(what, name, CONVERGE, |_: &K| true).await
    }

    /// Waits until an object is gone.
    pub async fn wait_gone<K>(&self, what: &str, name: &str, timeout: Duration) -> TestResult
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + std::fmt::Debug
            + serde::de::DeserializeOwned,
        <K as Resource>::DynamicType: Default,
    {
        let api = self.api::<K>();
        wait_for(what, timeout, async || {
            Ok(api.get_opt(name).await?.is_none().then_some(()))
        })
        .await?;
        Ok(())
    }

    /// Every write request (create, update, patch, delete) the operator sent
    /// in this namespace after `mark`, once the audit log has caught up.
    pub async fn operator_writes_since(
        &self,
        mark: &AuditMark,
    ) -> Result<Vec<AuditEvent>, BoxError> {
        self.audit.settle().await?;
        Ok(self
            .audit
            .writes_by(OPERATOR_USER, mark)?
            .into_iter()
            .filter(|e| self.in_namespace(e))
            .collect())
    }

    /// Every audit event of the operator in this namespace after `mark`
    /// (the policy records writes and Secret requests only).
    pub async fn operator_events_since(
        &self,
        mark: &AuditMark,
    ) -> Result<Vec<AuditEvent>, BoxError> {
        self.audit.settle().await?;
        Ok(self
            .audit
            .events_since(mark)?
            .into_iter()
            .filter(|e| e.user.username == OPERATOR_USER && self.in_namespace(e))
            .collect())
    }

    fn in_namespace(&self, event: &AuditEvent) -> bool {
        event
            .object_ref
            .as_ref()
            .and_then(|o| o.namespace.as_deref())
            == Some(self.namespace())
    }

    /// Waits until the operator has checked the runtime's Secrets after
    /// `mark` (a metadata-only GET per referenced Secret, which the audit
    /// policy records): the visible trace of a reconcile.
    pub async fn wait_for_secret_check(
        &self,
        secret: &str,
        mark: &AuditMark,
        timeout: Duration,
    ) -> TestResult {
        wait_for(
            &format!("the operator to check Secret {secret}"),
            timeout,
            async || {
                let seen = self.audit.events_since(mark)?.iter().any(|e| {
                    e.user.username == OPERATOR_USER
                        && e.verb == "get"
                        && e.resource() == "secrets"
                        && self.in_namespace(e)
                        && e.object_ref.as_ref().and_then(|o| o.name.as_deref()) == Some(secret)
                });
                Ok(seen.then_some(()))
            },
        )
        .await?;
        Ok(())
    }
}

/// Fails unless `check` returns `None` (no violation) every time it is asked
/// during `window`; `Some(description)` is a violation.
pub async fn holds_for<F>(what: &str, window: Duration, mut check: F) -> TestResult
where
    F: AsyncFnMut() -> Result<Option<String>, BoxError>,
{
    let deadline = Instant::now() + window;
    loop {
        if let Some(violation) = check().await? {
            return Err(format!("expected {what} for {window:?}, but {violation}").into());
        }
        if Instant::now() >= deadline {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Summarises audit events for an assertion message.
pub fn describe(events: &[AuditEvent]) -> String {
    events
        .iter()
        .map(|e| {
            format!(
                "{} {} {} -> {}",
                e.verb,
                e.resource(),
                e.object_ref
                    .as_ref()
                    .and_then(|o| o.name.clone())
                    .unwrap_or_default(),
                e.code()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Every `spec.replicas` a Deployment was seen with, from a watch started
/// before the change under test.
pub struct ReplicaRecorder {
    seen: Arc<Mutex<Vec<i32>>>,
    task: tokio::task::JoinHandle<()>,
}

impl ReplicaRecorder {
    /// Starts watching the named Deployment and waits for its first state.
    pub async fn start(deployments: Api<Deployment>, name: &str) -> Result<Self, BoxError> {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
        let task = tokio::spawn(async move {
            let mut stream = watcher(deployments, config)
                .default_backoff()
                .applied_objects()
                .boxed();
            while let Some(event) = stream.next().await {
                if let Ok(d) = event
                    && let Some(replicas) = d.spec.as_ref().and_then(|s| s.replicas)
                    && let Ok(mut seen) = sink.lock()
                {
                    seen.push(replicas);
                }
            }
        });
        let recorder = ReplicaRecorder { seen, task };
        wait_for(
            "the replica recorder to see the Deployment",
            Duration::from_secs(10),
            async || Ok((!recorder.values().is_empty()).then_some(())),
        )
        .await?;
        Ok(recorder)
    }

    /// Every value so far, in order.
    pub fn values(&self) -> Vec<i32> {
        self.seen.lock().map(|v| v.clone()).unwrap_or_default()
    }

    /// Waits until the latest value is `replicas`.
    pub async fn wait_latest(&self, replicas: i32, timeout: Duration) -> TestResult {
        wait_for(
            &format!("the Deployment to be at {replicas} replicas"),
            timeout,
            async || Ok((self.values().last() == Some(&replicas)).then_some(())),
        )
        .await
        .map_err(|e| format!("{e}; seen: {:?}", self.values()))?;
        Ok(())
    }
}

impl Drop for ReplicaRecorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}
