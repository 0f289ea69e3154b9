//! Fixtures shared by the builder tests, and the properties every owned object
//! must have.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde::Serialize;
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;

use super::*;
use crate::pure::config::OperatorConfig;

pub(crate) type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A TrussiumRuntime from YAML, as the API server would return it.
pub(crate) fn runtime(yaml: &str) -> Result<TrussiumRuntime> {
    Ok(serde_yaml::from_str(yaml)?)
}

/// One of the files in `fixtures/`.
pub(crate) fn fixture(name: &str) -> Result<TrussiumRuntime> {
    let yaml = match name {
        "minimal" => include_str!("fixtures/minimal.yaml"),
        "full" => include_str!("fixtures/full.yaml"),
        "digest" => include_str!("fixtures/digest.yaml"),
        other => return Err(format!("no fixture {other:?}").into()),
    };
    runtime(yaml)
}

/// Owns what a [`BuildContext`] borrows.
pub(crate) struct TestContext {
    pub config: OperatorConfig,
    pub secret_versions: BTreeMap<String, String>,
    pub observed_replicas: Option<i32>,
}

impl TestContext {
    pub fn ctx(&self) -> BuildContext<'_> {
        BuildContext {
            config: &self.config,
            secret_versions: &self.secret_versions,
            observed_replicas: self.observed_replicas,
        }
    }

    pub fn with_secrets(mut self, versions: &[(&str, &str)]) -> Self {
        self.secret_versions = versions
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        self
    }

    pub fn with_observed_replicas(mut self, replicas: Option<i32>) -> Self {
        self.observed_replicas = replicas;
        self
    }
}

/// Default operator settings, no Secrets, no existing Deployment.
pub(crate) fn context() -> TestContext {
    TestContext {
        config: OperatorConfig::default(),
        secret_versions: BTreeMap::new(),
        observed_replicas: None,
    }
}

/// The wire form, which is what server-side apply sees.
pub(crate) fn json_of<T: Serialize>(obj: &T) -> Result<Value> {
    Ok(serde_json::to_value(obj)?)
}

/// Every desired object of `rt` as (kind, JSON).
fn all_objects(rt: &TrussiumRuntime, ctx: &BuildContext) -> Result<Vec<(&'static str, Value)>> {
    let d = build(rt, ctx)?;
    let mut objects = vec![
        ("ConfigMap", json_of(&d.config_map)?),
        ("ServiceAccount", json_of(&d.service_account)?),
        ("Service", json_of(&d.service)?),
        ("Deployment", json_of(&d.deployment)?),
        ("PodDisruptionBudget", json_of(&d.pod_disruption_budget)?),
    ];
    if let Some(np) = &d.network_policy {
        objects.push(("NetworkPolicy", json_of(np)?));
    }
    if let Some(hpa) = &d.horizontal_pod_autoscaler {
        objects.push(("HorizontalPodAutoscaler", json_of(hpa)?));
    }
    Ok(objects)
}

fn applied_hash_of(obj: &Value) -> Option<&str> {
    obj["metadata"]["annotations"][APPLIED_HASH_ANNOTATION].as_str()
}

#[test]
fn builds_seven_kinds_when_everything_is_enabled() -> Result {
    let kinds: Vec<_> = all_objects(&fixture("full")?, &context().ctx())?
        .into_iter()
        .map(|(kind, obj)| {
            assert_eq!(obj["kind"], kind);
            kind
        })
        .collect();
    assert_eq!(kinds.len(), 7);
    let minimal = all_objects(&fixture("minimal")?, &context().ctx())?;
    assert_eq!(minimal.len(), 5);
    Ok(())
}

#[test]
fn every_object_is_named_labelled_and_owned_like_the_runtime() -> Result {
    for (kind, obj) in all_objects(&fixture("full")?, &context().ctx())? {
        let meta = &obj["metadata"];
        assert_eq!(meta["name"], "private-ai", "{kind}");
        assert_eq!(meta["namespace"], "trussium", "{kind}");
        assert_eq!(
            meta["labels"],
            json!({
                "app.kubernetes.io/name": "trussium",
                "app.kubernetes.io/instance": "private-ai",
                "app.kubernetes.io/managed-by": "trussium-operator",
                "app.kubernetes.io/component": "runtime",
            }),
            "{kind}"
        );
        assert_eq!(
            meta["ownerReferences"],
            json!([{
                "apiVersion": "runtime.trussium.io/v1beta1",
                "kind": "TrussiumRuntime",
                "name": "private-ai",
                "uid": "2f1c7a4e-0d4b-4b8e-9a53-1f0a8c6b7d21",
                "controller": true,
            }]),
            "{kind}"
        );
        // Nothing server-owned or time-dependent is sent.
        let mut keys: Vec<_> = meta
            .as_object()
            .ok_or("metadata is not an object")?
            .keys()
            .collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "annotations",
                "labels",
                "name",
                "namespace",
                "ownerReferences"
            ],
            "{kind}"
        );
        assert!(obj.get("status").is_none(), "{kind}");
    }
    Ok(())
}

#[test]
fn api_versions_are_the_supported_ones() -> Result {
    let versions: BTreeMap<String, Value> = all_objects(&fixture("full")?, &context().ctx())?
        .into_iter()
        .map(|(kind, obj)| (kind.to_string(), obj["apiVersion"].clone()))
        .collect();
    assert_eq!(
        json_of(&versions)?,
        json!({
            "ConfigMap": "v1",
            "ServiceAccount": "v1",
            "Service": "v1",
            "Deployment": "apps/v1",
            "PodDisruptionBudget": "policy/v1",
            "NetworkPolicy": "networking.k8s.io/v1",
            "HorizontalPodAutoscaler": "autoscaling/v2",
        })
    );
    Ok(())
}

/// No empty list, no empty map, no null: SSA would take ownership of an empty
/// field and clear what others set. `emptyDir: {}` is the one meaningful `{}`.
fn assert_no_empty_values(path: &str, v: &Value) {
    match v {
        Value::Null => panic!("null at {path}"),
        Value::Array(items) => {
            assert!(!items.is_empty(), "empty list at {path}");
            for (i, item) in items.iter().enumerate() {
                assert_no_empty_values(&format!("{path}[{i}]"), item);
            }
        }
        Value::Object(map) => {
            assert!(
                !map.is_empty() || path.ends_with(".emptyDir"),
                "empty map at {path}"
            );
            for (k, item) in map {
                assert_no_empty_values(&format!("{path}.{k}"), item);
            }
        }
        _ => {}
    }
}

#[test]
fn apply_bodies_have_no_empty_values() -> Result {
    for name in ["minimal", "full", "digest"] {
        for (kind, obj) in all_objects(&fixture(name)?, &context().ctx())? {
            assert_no_empty_values(&format!("{name}/{kind}"), &obj);
        }
    }
    Ok(())
}

#[test]
fn serialized_deployment_has_no_block_owner_deletion_and_no_empty_lists() -> Result {
    for name in ["minimal", "full", "digest"] {
        let text = serde_json::to_string(&build(&fixture(name)?, &context().ctx())?.deployment)?;
        assert!(!text.contains("blockOwnerDeletion"), "{name}: {text}");
        assert!(!text.contains("[]"), "{name}: {text}");
        assert!(!text.contains("null"), "{name}: {text}");
    }
    Ok(())
}

#[test]
fn missing_metadata_is_an_error() -> Result {
    for (field, clear) in [
        (
            "name",
            (|m: &mut ObjectMeta| m.name = None) as fn(&mut ObjectMeta),
        ),
        ("namespace", |m| m.namespace = None),
        ("uid", |m| m.uid = None),
    ] {
        let mut rt = fixture("minimal")?;
        clear(&mut rt.metadata);
        match build(&rt, &context().ctx()) {
            Err(BuildError::MissingMetadata(f)) => assert_eq!(f, field),
            other => panic!("{field}: {other:?}"),
        }
        let message = build(&rt, &context().ctx())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(message, format!("TrussiumRuntime has no metadata.{field}"));
    }
    Ok(())
}

#[test]
fn label_sets() {
    assert_eq!(
        selector_labels("a"),
        BTreeMap::from([
            ("app.kubernetes.io/name".to_string(), "trussium".to_string()),
            ("app.kubernetes.io/instance".to_string(), "a".to_string()),
        ])
    );
    let all = labels("a");
    assert_eq!(all.len(), 4);
    assert!(
        selector_labels("a")
            .iter()
            .all(|(k, v)| all.get(k) == Some(v))
    );
    assert_eq!(
        all.get("app.kubernetes.io/managed-by").map(String::as_str),
        Some("trussium-operator")
    );
    assert_eq!(
        all.get("app.kubernetes.io/component").map(String::as_str),
        Some("runtime")
    );
}

#[test]
fn same_controller_needs_the_desired_controller_on_both() {
    let meta = |references: &[(&str, Option<bool>)]| ObjectMeta {
        owner_references: Some(
            references
                .iter()
                .map(|(uid, controller)| OwnerReference {
                    api_version: "runtime.trussium.io/v1beta1".into(),
                    kind: "TrussiumRuntime".into(),
                    name: "private-ai".into(),
                    uid: uid.to_string(),
                    controller: *controller,
                    block_owner_deletion: None,
                })
                .collect(),
        ),
        ..ObjectMeta::default()
    };
    let ours = meta(&[("u1", Some(true))]);
    assert_eq!(controller_uid(&ours), Some("u1"));
    // The controller is the reference marked so, wherever it is listed.
    let listed_second = meta(&[("x", None), ("u1", Some(true))]);
    assert_eq!(controller_uid(&listed_second), Some("u1"));
    assert_eq!(controller_uid(&meta(&[("u1", Some(false))])), None);
    assert_eq!(controller_uid(&ObjectMeta::default()), None);

    assert!(same_controller(&ours, &ours));
    assert!(same_controller(&ours, &listed_second));
    assert!(!same_controller(&ours, &meta(&[("u2", Some(true))])));
    assert!(!same_controller(&ours, &meta(&[("u1", None)])));
    assert!(!same_controller(&ours, &ObjectMeta::default()));
    // Two objects without a controller are not "the same controller".
    assert!(!same_controller(
        &ObjectMeta::default(),
        &ObjectMeta::default()
    ));
}

#[test]
fn ownership_is_by_controller_reference_and_uid() -> Result {
    let rt = fixture("minimal")?;
    let owned = build(&rt, &context().ctx())?;
    assert!(is_owned_by(&owned.deployment.metadata, &rt));
    assert!(is_owned_by(&owned.config_map.metadata, &rt));

    let reference = |uid: &str, controller: Option<bool>| ObjectMeta {
        owner_references: Some(vec![OwnerReference {
            api_version: "runtime.trussium.io/v1beta1".into(),
            kind: "TrussiumRuntime".into(),
            name: "private-ai".into(),
            uid: uid.into(),
            controller,
            block_owner_deletion: None,
        }]),
        ..ObjectMeta::default()
    };
    let uid = "2f1c7a4e-0d4b-4b8e-9a53-1f0a8c6b7d21";
    assert!(is_owned_by(&reference(uid, Some(true)), &rt));
    // Same name, earlier incarnation of the runtime.
    assert!(!is_owned_by(&reference("other-uid", Some(true)), &rt));
    // A plain (non-controller) owner reference does not make it ours.
    assert!(!is_owned_by(&reference(uid, None), &rt));
    assert!(!is_owned_by(&reference(uid, Some(false)), &rt));
    assert!(!is_owned_by(&ObjectMeta::default(), &rt));

    let mut no_uid = rt.clone();
    no_uid.metadata.uid = None;
    assert!(!is_owned_by(&reference(uid, Some(true)), &no_uid));
    Ok(())
}

#[test]
fn applied_hash_is_on_every_object_and_stable() -> Result {
    let rt = fixture("full")?;
    let first = all_objects(&rt, &context().ctx())?;
    let again = all_objects(&rt.clone(), &context().ctx())?;
    assert_eq!(first, again);
    for (kind, obj) in &first {
        let hash = applied_hash_of(obj).ok_or(format!("{kind}: no applied hash"))?;
        assert_eq!(hash.len(), 16, "{kind}");
        assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{kind}");
    }
    Ok(())
}

#[test]
fn applied_hash_covers_the_object_without_itself() -> Result {
    let d = build(&fixture("minimal")?, &context().ctx())?;
    let stored = d
        .service
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(APPLIED_HASH_ANNOTATION))
        .cloned()
        .ok_or("no applied hash")?;
    // Recomputing over the stamped object ignores the stamp.
    assert_eq!(hash::applied_hash(&d.service)?, stored);
    let mut unstamped = d.service.clone();
    unstamped.metadata.annotations = None;
    assert_eq!(hash::applied_hash(&unstamped)?, stored);
    Ok(())
}

#[test]
fn applied_hash_changes_only_for_the_objects_that_change() -> Result {
    let base = fixture("full")?;
    let hashes = |rt: &TrussiumRuntime| -> Result<BTreeMap<&'static str, String>> {
        all_objects(rt, &context().ctx())?
            .into_iter()
            .map(|(kind, obj)| {
                let hash = applied_hash_of(&obj).ok_or("no hash")?.to_string();
                Ok((kind, hash))
            })
            .collect()
    };
    let before = hashes(&base)?;
    let changed_kinds = |rt: &TrussiumRuntime| -> Result<Vec<&'static str>> {
        let after = hashes(rt)?;
        Ok(before
            .iter()
            .filter(|(kind, hash)| after.get(*kind) != Some(*hash))
            .map(|(kind, _)| *kind)
            .collect())
    };

    let mut rt = base.clone();
    rt.spec.service.port = 9001;
    assert_eq!(changed_kinds(&rt)?, ["Service"]);

    let mut rt = base.clone();
    rt.spec.provider.model = "gpt-5-mini".into();
    // The model is configuration: the ConfigMap changes and the pods roll.
    assert_eq!(changed_kinds(&rt)?, ["ConfigMap", "Deployment"]);

    let mut rt = base.clone();
    rt.spec.image.tag = Some("v1.24.0".into());
    assert_eq!(changed_kinds(&rt)?, ["Deployment"]);

    let mut rt = base.clone();
    if let Some(a) = rt.spec.autoscaling.as_mut() {
        a.max_replicas = Some(12);
    }
    assert_eq!(changed_kinds(&rt)?, ["HorizontalPodAutoscaler"]);

    let mut rt = base.clone();
    if let Some(np) = rt.spec.network_policy.as_mut() {
        np.ingress.truncate(1);
    }
    assert_eq!(changed_kinds(&rt)?, ["NetworkPolicy"]);

    // Metadata the API server maintains is not part of any desired object.
    let mut rt = base.clone();
    rt.metadata.generation = Some(8);
    rt.metadata.resource_version = Some("999".into());
    assert!(changed_kinds(&rt)?.is_empty());
    Ok(())
}

#[test]
fn a_creation_body_is_the_desired_object_with_a_version_no_object_has() -> Result {
    let desired = build(&fixture("full")?, &context().ctx())?;
    let body = creation_body(&desired.deployment);
    assert_eq!(
        body.metadata.resource_version.as_deref(),
        Some("9223372036854775807"),
        "a version that is not 0 or empty (those would mean unconditional)"
    );
    let mut without_version = body.clone();
    without_version.metadata.resource_version = None;
    assert_eq!(without_version, desired.deployment, "nothing else changes");
    Ok(())
}
