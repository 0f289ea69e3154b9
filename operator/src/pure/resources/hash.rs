//! Stable content hashes: the applied hash of an owned object and the config
//! hash of the pod template.
//!
//! Both hash the JSON serialization. k8s-openapi structs serialize their fields
//! in a fixed order and every map in them is a `BTreeMap`, so the same value
//! always gives the same bytes, across calls and across operator restarts. (A
//! k8s-openapi upgrade that changes serialization costs one apply per object.)

use std::collections::BTreeMap;

use kube::Resource;
use serde::Serialize;
use sha2::{Digest, Sha256};
use trussium_api::TrussiumRuntime;

use super::{APPLIED_HASH_ANNOTATION, BuildError};

/// Hex characters kept: 64 bits are plenty to notice a change.
const HASH_LEN: usize = 16;

/// The first [`HASH_LEN`] hex characters of the SHA-256 of `bytes`.
fn short_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .take(HASH_LEN / 2)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Hash of `obj` as it would be applied, ignoring any applied-hash annotation
/// already on it.
pub(crate) fn applied_hash<K>(obj: &K) -> Result<String, BuildError>
where
    K: k8s_openapi::Resource + Resource + Serialize + Clone,
{
    unstamped_hash(obj).map_err(|source| BuildError::Hash {
        kind: K::KIND,
        source,
    })
}

fn unstamped_hash<K: Resource + Serialize + Clone>(obj: &K) -> Result<String, serde_json::Error> {
    let mut unstamped = obj.clone();
    let annotations = &mut unstamped.meta_mut().annotations;
    if let Some(map) = annotations.as_mut() {
        map.remove(APPLIED_HASH_ANNOTATION);
        if map.is_empty() {
            *annotations = None;
        }
    }
    Ok(short_sha256(&serde_json::to_vec(&unstamped)?))
}

/// Stamps `obj` again with the applied hash of its content as it is now.
pub(crate) fn restamp<K: Resource + Serialize + Clone>(
    obj: &mut K,
) -> Result<(), serde_json::Error> {
    let hash = unstamped_hash(obj)?;
    stamp(obj, hash);
    Ok(())
}

/// The applied-hash annotation of `obj`, if stamped.
pub(crate) fn stamp_of<K: Resource>(obj: &K) -> Option<&str> {
    obj.meta()
        .annotations
        .as_ref()?
        .get(APPLIED_HASH_ANNOTATION)
        .map(String::as_str)
}

/// How an owned kind's applied hash is taken: of its whole content, unless
/// its builder says otherwise (the Deployment's, in `deployment.rs`).
pub trait AppliedHash: Resource + Serialize + Clone {
    /// `self`, an edited copy of `like`, stamped by the rule `like` was.
    fn restamped_like(mut self, _like: &Self) -> Option<Self> {
        restamp(&mut self).ok()?;
        Some(self)
    }
}

impl AppliedHash for k8s_openapi::api::core::v1::ConfigMap {}
impl AppliedHash for k8s_openapi::api::core::v1::ServiceAccount {}
impl AppliedHash for k8s_openapi::api::core::v1::Service {}
impl AppliedHash for k8s_openapi::api::policy::v1::PodDisruptionBudget {}
impl AppliedHash for k8s_openapi::api::networking::v1::NetworkPolicy {}
impl AppliedHash for k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler {}

/// Sets the applied-hash annotation to `hash`.
pub(crate) fn stamp<K: Resource>(obj: &mut K, hash: String) {
    obj.meta_mut()
        .annotations
        .get_or_insert_with(BTreeMap::new)
        .insert(APPLIED_HASH_ANNOTATION.to_string(), hash);
}

/// `obj` with the applied hash of its own content.
pub(crate) fn stamped<K>(mut obj: K) -> Result<K, BuildError>
where
    K: k8s_openapi::Resource + Resource + Serialize + Clone,
{
    let hash = applied_hash(&obj)?;
    stamp(&mut obj, hash);
    Ok(obj)
}

/// The spec fields no pod is built from: a change to them alone must not
/// touch the Deployment (one write per changed object).
const NOT_FOR_PODS: [&str; 4] = ["replicas", "service", "networkPolicy", "autoscaling"];

/// What of the owner's the pods are built from (see
/// `APPLIED_FROM_ANNOTATION`): a hash of the spec without
/// [`NOT_FOR_PODS`], the restart request and the Secrets' versions. A new
/// spec field counts unless named there, so a field forgotten errs towards
/// "the owner asked" (never held back), at worst one write more.
pub(crate) fn applied_from(
    rt: &TrussiumRuntime,
    secret_versions: &BTreeMap<String, String>,
) -> Result<String, BuildError> {
    let error = |source| BuildError::Hash {
        kind: "the Deployment's inputs",
        source,
    };
    let mut spec = serde_json::to_value(&rt.spec).map_err(error)?;
    if let Some(fields) = spec.as_object_mut() {
        for field in NOT_FOR_PODS {
            fields.remove(field);
        }
    }
    let restarted_at = trussium_api::restart::restarted_at(&rt.metadata);
    let bytes = serde_json::to_vec(&(spec, restarted_at, secret_versions)).map_err(error)?;
    Ok(short_sha256(&bytes))
}

/// Hash of the runtime configuration and of the referenced Secrets' versions.
/// Only Secret metadata (the resourceVersion) goes in: a rotation changes it,
/// and the operator never holds Secret data.
pub(crate) fn config_hash(
    config: &BTreeMap<String, String>,
    secret_versions: &BTreeMap<String, String>,
) -> Result<String, BuildError> {
    let bytes =
        serde_json::to_vec(&(config, secret_versions)).map_err(|source| BuildError::Hash {
            kind: "pod template configuration",
            source,
        })?;
    Ok(short_sha256(&bytes))
}
