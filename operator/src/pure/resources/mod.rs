//! Pure builders of every object a TrussiumRuntime owns.
//!
//! Each builder turns the runtime (plus a little observed context) into a
//! server-side-apply body: apiVersion and kind set, `None` instead of empty
//! lists or maps, nothing time-dependent. Every object is named like the
//! runtime, lives in its namespace, carries [`labels`], a controller owner
//! reference and the [`APPLIED_HASH_ANNOTATION`].

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use kube::Resource;
use trussium_api::TrussiumRuntime;
use trussium_api::labels as keys;

use crate::pure::config::OperatorConfig;

pub mod config_map;
pub mod deployment;
pub(crate) mod hash;
pub mod horizontal_pod_autoscaler;
pub mod network_policy;
mod owner_version;
pub mod pod;
pub mod pod_disruption_budget;
pub mod service;
pub mod service_account;

#[cfg(test)]
mod tests;

pub use config_map::config_map;
pub use deployment::deployment;
pub use hash::AppliedHash;
pub use horizontal_pod_autoscaler::horizontal_pod_autoscaler;
pub use network_policy::network_policy;
pub use owner_version::with_owner_version_of;
pub use pod_disruption_budget::pod_disruption_budget;
pub use service::service;
pub use service_account::service_account;

pub use trussium_api::operator::RUNTIME_CONTAINER;
/// The runtime's HTTP port; also the Service target and the NetworkPolicy port.
pub const HTTP_PORT: i32 = 9000;
/// Name of [`HTTP_PORT`] on the container and the Service.
pub const HTTP_PORT_NAME: &str = "http";
/// Server-side-apply field manager of the operator.
pub const FIELD_MANAGER: &str = "trussium-operator";
/// Annotation on every owned object holding a stable hash of what the operator
/// applied, so a reconcile can tell without a write whether to apply again.
pub const APPLIED_HASH_ANNOTATION: &str = "runtime.trussium.io/applied-hash";
/// Pod-template annotation that changes when configuration or a referenced
/// Secret's resourceVersion changes, so that pods roll.
pub const CONFIG_HASH_ANNOTATION: &str = "runtime.trussium.io/config-hash";
/// Deployment annotation (not on the pods): a hash of what of the owner's
/// the pods were last built from (the spec but for the fields that only
/// other objects use, the restart request, the referenced Secrets'
/// versions). A rollout is the owner's when it changes, the operator's alone
/// when it does not (see `crate::pure::turns`).
pub const APPLIED_FROM_ANNOTATION: &str = "runtime.trussium.io/applied-from";

/// What the builders need besides the runtime itself.
#[derive(Clone, Copy, Debug)]
pub struct BuildContext<'a> {
    pub config: &'a OperatorConfig,
    /// Referenced Secret name -> metadata.resourceVersion (from
    /// `ReferenceCheck::Resolved`); empty when none.
    pub secret_versions: &'a BTreeMap<String, String>,
    /// spec.replicas of the existing managed Deployment, if any (autoscaling
    /// hand-off).
    pub observed_replicas: Option<i32>,
}

/// Every object the runtime should own right now.
#[derive(Clone, Debug, PartialEq)]
pub struct DesiredResources {
    pub config_map: ConfigMap,
    pub service_account: ServiceAccount,
    pub service: Service,
    pub deployment: Deployment,
    pub pod_disruption_budget: PodDisruptionBudget,
    /// Some while spec.networkPolicy.enabled.
    pub network_policy: Option<NetworkPolicy>,
    /// autoscaling/v2; Some while spec.autoscaling.enabled.
    pub horizontal_pod_autoscaler: Option<HorizontalPodAutoscaler>,
}

/// Why the desired objects could not be built.
#[derive(thiserror::Error, Debug)]
pub enum BuildError {
    /// Only objects read from the API server can be built for; they always
    /// have a name, namespace and uid.
    #[error("TrussiumRuntime has no metadata.{0}")]
    MissingMetadata(&'static str),
    /// The API server refuses this (CEL), and so does the reconcile before
    /// building (`trussium_api::validation::problems`, InvalidSpec); kept as
    /// an error rather than a guess.
    #[error("spec.autoscaling.enabled requires spec.autoscaling.maxReplicas")]
    MissingMaxReplicas,
    #[error("cannot hash the desired {kind}: {source}")]
    Hash {
        kind: &'static str,
        source: serde_json::Error,
    },
}

/// Builds every desired object of the runtime.
pub fn build(rt: &TrussiumRuntime, ctx: &BuildContext) -> Result<DesiredResources, BuildError> {
    Ok(DesiredResources {
        config_map: config_map(rt, ctx)?,
        service_account: service_account(rt, ctx)?,
        service: service(rt, ctx)?,
        deployment: deployment(rt, ctx)?,
        pod_disruption_budget: pod_disruption_budget(rt, ctx)?,
        network_policy: network_policy(rt, ctx)?,
        horizontal_pod_autoscaler: horizontal_pod_autoscaler(rt, ctx)?,
    })
}

/// The labels that select a runtime's pods. Deployment selectors are
/// immutable, so this set must never grow.
pub fn selector_labels(rt_name: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        (keys::NAME.to_string(), keys::NAME_VALUE.to_string()),
        (keys::INSTANCE.to_string(), rt_name.to_string()),
    ])
}

/// The labels of every owned object and of the pods.
pub fn labels(rt_name: &str) -> BTreeMap<String, String> {
    let mut labels = selector_labels(rt_name);
    labels.insert(
        keys::MANAGED_BY.to_string(),
        keys::MANAGED_BY_VALUE.to_string(),
    );
    labels.insert(
        keys::COMPONENT.to_string(),
        keys::COMPONENT_VALUE.to_string(),
    );
    labels
}

/// Whether `meta` has a controller owner reference to this runtime (by uid, so
/// a recreated runtime of the same name does not adopt stale objects).
pub fn is_owned_by(meta: &ObjectMeta, rt: &TrussiumRuntime) -> bool {
    let Some(uid) = rt.metadata.uid.as_deref() else {
        return false;
    };
    meta.owner_references
        .iter()
        .flatten()
        .any(|o| o.controller == Some(true) && o.uid == uid)
}

/// The uid of the object's controller (its owner reference with
/// `controller: true`), if any.
pub fn controller_uid(meta: &ObjectMeta) -> Option<&str> {
    meta.owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
        .map(|o| o.uid.as_str())
}

/// Whether `observed` is controlled by the same owner as `desired`: an
/// object someone else created under the runtime's name is not, and the
/// operator neither takes it over nor deletes it.
pub fn same_controller(desired: &ObjectMeta, observed: &ObjectMeta) -> bool {
    controller_uid(desired).is_some() && controller_uid(desired) == controller_uid(observed)
}

/// A resourceVersion no object has: etcd revisions count up from 1 and
/// never get near it. (An empty one, or 0, would mean "whatever is there".)
const NO_OBJECT_HAS_THIS_VERSION: &str = "9223372036854775807";

/// `desired` as the body of a server-side apply that only creates: it
/// carries a resourceVersion no object has. The API server creates an absent
/// object whatever version the body names, its fields owned by the field
/// manager as an apply owns them (later applies prune what the operator
/// stops sending; a plain create would record them as an update, never
/// pruned); an object that exists, the operator's or anyone's, fails the
/// version check (409 Conflict) and nothing is written. So a new object
/// costs one request and no read, and a foreign one is never taken over.
pub fn creation_body<K: Resource + Clone>(desired: &K) -> K {
    let mut body = desired.clone();
    body.meta_mut().resource_version = Some(NO_OBJECT_HAS_THIS_VERSION.to_string());
    body
}

/// The runtime's name, which every owned object shares.
pub(crate) fn runtime_name(rt: &TrussiumRuntime) -> Result<&str, BuildError> {
    rt.metadata
        .name
        .as_deref()
        .ok_or(BuildError::MissingMetadata("name"))
}

/// Metadata shared by every owned object, without the applied hash.
pub(crate) fn object_meta(rt: &TrussiumRuntime) -> Result<ObjectMeta, BuildError> {
    let name = runtime_name(rt)?;
    let namespace = rt
        .metadata
        .namespace
        .as_deref()
        .ok_or(BuildError::MissingMetadata("namespace"))?;
    Ok(ObjectMeta {
        name: Some(name.to_string()),
        namespace: Some(namespace.to_string()),
        labels: Some(labels(name)),
        owner_references: Some(vec![owner_reference(rt)?]),
        ..ObjectMeta::default()
    })
}

/// A controller reference with `blockOwnerDeletion` unset (as kube makes
/// it; a unit test holds it so): setting it would need the finalizers
/// permission under OwnerReferencesPermissionEnforcement.
fn owner_reference(rt: &TrussiumRuntime) -> Result<OwnerReference, BuildError> {
    if rt.metadata.uid.is_none() {
        return Err(BuildError::MissingMetadata("uid"));
    }
    rt.controller_owner_ref(&())
        .ok_or(BuildError::MissingMetadata("name"))
}

/// A selector on [`selector_labels`].
pub(crate) fn selector(rt_name: &str) -> LabelSelector {
    LabelSelector {
        match_labels: Some(selector_labels(rt_name)),
        match_expressions: None,
    }
}

/// `(minReplicas, maxReplicas)` while autoscaling is enabled, with max never
/// below min.
pub(crate) fn autoscaling_bounds(rt: &TrussiumRuntime) -> Result<Option<(i32, i32)>, BuildError> {
    match &rt.spec.autoscaling {
        Some(a) if a.enabled => {
            let max = a.max_replicas.ok_or(BuildError::MissingMaxReplicas)?;
            Ok(Some((a.min_replicas, max.max(a.min_replicas))))
        }
        _ => Ok(None),
    }
}

/// `None` for an empty map, so an apply body never carries `{}`.
pub(crate) fn non_empty_map(
    map: Option<&BTreeMap<String, String>>,
) -> Option<BTreeMap<String, String>> {
    map.filter(|m| !m.is_empty()).cloned()
}

/// `None` for an empty list, so an apply body never carries `[]`.
pub(crate) fn non_empty_vec<T: Clone>(list: Option<&Vec<T>>) -> Option<Vec<T>> {
    list.filter(|l| !l.is_empty()).cloned()
}
