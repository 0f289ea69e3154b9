//! TrussiumRuntime manifests the tests create: the samples of
//! `deploy/samples/`, runtimes of our image at a given tag, and the Secrets
//! they reference.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::ObjectMeta;
use serde_json::{Value, json};

use crate::{BoxError, repo_root};

/// Our image's repository.
pub const REPOSITORY: &str = "ghcr.io/trussiumhq/trussium";
/// The tag a runtime starts at, and the one it is upgraded to.
pub const OLD_TAG: &str = "v1.22.0";
pub const NEW_TAG: &str = "v1.23.0";
/// The image whose pods KWOK never makes ready (for failed-rollout tests).
pub const NEVER_READY_IMAGE: &str = "registry.invalid/trussium:never-ready";
/// The repository of the marked images: any other tag of it becomes ready.
pub const MARKED_REPOSITORY: &str = "registry.invalid/trussium";
/// Images the local cluster's KWOK stages fail in the kubelet's other ways
/// (tests/cluster/kwok-stages.yaml): a crash loop exiting 3, a container
/// OOMKilled, a container that runs and is never ready.
pub const CRASH_LOOP_IMAGE: &str = "registry.invalid/trussium:crash-loop";
pub const OOM_KILLED_IMAGE: &str = "registry.invalid/trussium:oom-killed";
pub const NOT_READY_IMAGE: &str = "registry.invalid/trussium:not-ready";

/// An Opaque Secret `name` with one `key` (a test value, never a real one),
/// as runtimes reference their credentials.
pub fn secret(name: &str, key: &str, value: &str) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([(
            key.to_string(),
            ByteString(value.as_bytes().to_vec()),
        )])),
        type_: Some("Opaque".into()),
        ..Secret::default()
    }
}

/// `repository:tag` of our image.
pub fn image(tag: &str) -> String {
    format!("{REPOSITORY}:{tag}")
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

/// A runtime named `name` running `REPOSITORY:tag` with `replicas`, its
/// provider OpenAI, and, when given, a credentials Secret reference (key
/// `api-key`).
pub fn openai_runtime(name: &str, tag: &str, replicas: i32, credentials: Option<&str>) -> Value {
    let mut provider = json!({
        "type": "openai",
        "model": "gpt-5",
    });
    if let Some(secret) = credentials {
        provider["credentialsSecretRef"] = json!({"name": secret, "key": "api-key"});
    }
    json!({
        "apiVersion": "runtime.trussium.io/v1beta1",
        "kind": "TrussiumRuntime",
        "metadata": { "name": name },
        "spec": {
            "image": { "repository": REPOSITORY, "tag": tag },
            "replicas": replicas,
            "provider": provider,
        }
    })
}
