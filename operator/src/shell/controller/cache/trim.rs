//! What a cache keeps of each object: only what the operator reads.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::PartialObjectMeta;
use trussium_api::TrussiumRuntime;

/// What a watch keeps of each object: only what the operator reads.
pub trait Kept {
    fn keep_only_what_is_read(&mut self);
}

/// `kubectl apply` (client side) copies the whole object into this
/// annotation; nothing of the operator reads it.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Metadata minus managedFields (only the list take-over needs them, and it
/// reads the object fresh) and minus a `kubectl apply` copy of the object.
fn trim_metadata(meta: &mut ObjectMeta) {
    meta.managed_fields = None;
    if let Some(annotations) = meta.annotations.as_mut() {
        annotations.remove(LAST_APPLIED);
    }
}

macro_rules! kept_without_status {
    ($($kind:ty),*) => {$(
        impl Kept for $kind {
            fn keep_only_what_is_read(&mut self) {
                trim_metadata(&mut self.metadata);
                self.status = None;
            }
        }
    )*};
}
// The drift check compares specs; no status of these is read.
kept_without_status!(Service, PodDisruptionBudget, HorizontalPodAutoscaler);

macro_rules! kept_whole {
    ($($kind:ty),*) => {$(
        impl Kept for $kind {
            fn keep_only_what_is_read(&mut self) {
                trim_metadata(&mut self.metadata);
            }
        }
    )*};
}
// The runtime (its stored status is what Events are diffed against), the
// Deployment (its status is the rollout) and kinds without status.
kept_whole!(
    TrussiumRuntime,
    Deployment,
    ConfigMap,
    ServiceAccount,
    NetworkPolicy
);

/// Of a Secret, only that it exists and its resourceVersion (rotation rolls
/// the pods). Its annotations may hold its data (`kubectl apply` copies the
/// Secret into one): dropped as they arrive, with everything else.
impl Kept for PartialObjectMeta<Secret> {
    fn keep_only_what_is_read(&mut self) {
        let meta = std::mem::take(&mut self.metadata);
        self.metadata = ObjectMeta {
            name: meta.name,
            namespace: meta.namespace,
            resource_version: meta.resource_version,
            ..ObjectMeta::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn secrets_keep_nothing_but_name_and_version() {
        let mut secret = PartialObjectMeta::<Secret> {
            types: None,
            metadata: ObjectMeta {
                name: Some("s".into()),
                namespace: Some("ns".into()),
                resource_version: Some("42".into()),
                uid: Some("u".into()),
                labels: Some(BTreeMap::from([("a".into(), "b".into())])),
                annotations: Some(BTreeMap::from([(
                    LAST_APPLIED.into(),
                    "{\"data\":..}".into(),
                )])),
                managed_fields: Some(vec![Default::default()]),
                ..ObjectMeta::default()
            },
            _phantom: Default::default(),
        };
        secret.keep_only_what_is_read();
        assert_eq!(
            secret.metadata,
            ObjectMeta {
                name: Some("s".into()),
                namespace: Some("ns".into()),
                resource_version: Some("42".into()),
                ..ObjectMeta::default()
            }
        );
    }

    #[test]
    fn owned_objects_lose_managed_fields_and_last_applied_only() {
        let mut service = Service {
            metadata: ObjectMeta {
                name: Some("s".into()),
                annotations: Some(BTreeMap::from([
                    (LAST_APPLIED.into(), "{}".into()),
                    ("runtime.trussium.io/applied-hash".into(), "h".into()),
                ])),
                managed_fields: Some(vec![Default::default()]),
                ..ObjectMeta::default()
            },
            spec: Some(Default::default()),
            status: Some(Default::default()),
        };
        service.keep_only_what_is_read();
        assert_eq!(service.metadata.managed_fields, None);
        assert_eq!(
            service.metadata.annotations,
            Some(BTreeMap::from([(
                "runtime.trussium.io/applied-hash".into(),
                "h".into()
            )]))
        );
        assert!(service.spec.is_some());
        assert!(service.status.is_none());

        let mut deployment = Deployment {
            status: Some(Default::default()),
            ..Deployment::default()
        };
        deployment.keep_only_what_is_read();
        assert!(deployment.status.is_some(), "the rollout is read from it");
    }
}
