//! Shared by the `operator` cluster tests (their harness is
//! [`trussium_e2e::Harness`]): the operator's flags in these tests, JSON
//! helpers, what every owned object carries, and a recorder of every
//! `spec.replicas` a Deployment passes through.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kube::Api;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_e2e::{BoxError, TestResult, wait_for};

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

/// The field of `value` at a JSON pointer, or null.
pub fn at<'a>(value: &'a Value, pointer: &str) -> &'a Value {
    value.pointer(pointer).unwrap_or(&Value::Null)
}

/// An object as JSON.
pub fn json_of<T: serde::Serialize>(object: &T) -> Result<Value, BoxError> {
    Ok(serde_json::to_value(object)?)
}

/// Every owned object's single owner reference: this runtime, as its
/// controller, without `blockOwnerDeletion` (which would need the finalizers
/// permission the operator does not have).
pub fn assert_owned_by(meta: &ObjectMeta, rt: &TrussiumRuntime, what: &str) {
    let expected = OwnerReference {
        api_version: "runtime.trussium.io/v1beta1".into(),
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
