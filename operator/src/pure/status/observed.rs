//! What the status projection reads from the managed Deployment, and nothing
//! more: no Pod is ever looked at.

use k8s_openapi::api::apps::v1::{Deployment, DeploymentCondition};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::jiff::Timestamp;
use sha2::{Digest, Sha256};
use trussium_api::ConditionStatus;

/// The container whose image is reported as `status.currentImage`: the one
/// the resource builders create.
pub use crate::pure::resources::RUNTIME_CONTAINER;

/// Reason of the Deployment `Progressing` condition once its progress deadline
/// has passed without progress (set by the Deployment controller).
pub const PROGRESS_DEADLINE_EXCEEDED: &str = "ProgressDeadlineExceeded";

/// The parts of a Deployment that the status projection depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObservedDeployment {
    pub name: String,
    /// `metadata.generation`: bumped by every spec change.
    pub generation: Option<i64>,
    /// `status.observedGeneration`: the generation the Deployment controller
    /// last acted on. Everything else in `status` describes that generation.
    pub observed_generation: Option<i64>,
    /// `spec.replicas`: ours, or the HPA's choice while autoscaling is on.
    pub spec_replicas: Option<i32>,
    /// `status.replicas`: pods of every ReplicaSet, old ones included.
    pub replicas: i32,
    pub updated_replicas: i32,
    pub ready_replicas: i32,
    pub available_replicas: i32,
    /// `status.unavailableReplicas`: replicas that the Deployment's
    /// ReplicaSets (old ones included) ask for and that are not available.
    pub unavailable_replicas: i32,
    /// The `Progressing` condition, whatever its status.
    pub progressing: Option<ObservedCondition>,
    /// The `ReplicaFailure` condition, only while its status is `True`.
    pub replica_failure: Option<ObservedCondition>,
    /// Image of the `runtime` container in the pod template.
    pub image: Option<String>,
    /// Fingerprint of `spec.template` (see [`template_hash`]).
    pub template_hash: Option<String>,
    /// The restart the pod template carries (`trussium_api::restart`).
    pub restarted_at: Option<String>,
}

/// A Deployment condition, reduced to what we report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservedCondition {
    pub status: ConditionStatus,
    pub reason: String,
    pub message: String,
    /// `lastUpdateTime`: when the Deployment controller last set this
    /// verdict (for `Progressing`, when it last saw progress or gave up).
    pub last_update: Option<Timestamp>,
}

impl ObservedDeployment {
    /// True while the Deployment controller has not yet acted on the latest
    /// spec, so that counts and conditions still describe an older one.
    /// Without a `metadata.generation` (never the case for a stored object)
    /// there is nothing to wait for.
    pub fn generation_pending(&self) -> bool {
        match (self.generation, self.observed_generation) {
            (Some(generation), Some(observed)) => observed < generation,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// The Deployment controller gave up on the current rollout.
    pub fn progress_deadline_exceeded(&self) -> bool {
        self.progressing
            .as_ref()
            .is_some_and(|c| c.reason == PROGRESS_DEADLINE_EXCEEDED)
    }
}

impl From<&Deployment> for ObservedDeployment {
    fn from(deployment: &Deployment) -> Self {
        let spec = deployment.spec.as_ref();
        let status = deployment.status.as_ref();
        let conditions = status
            .and_then(|s| s.conditions.as_deref())
            .unwrap_or_default();
        let image = spec
            .and_then(|s| s.template.spec.as_ref())
            .and_then(|pod| pod.containers.iter().find(|c| c.name == RUNTIME_CONTAINER))
            .and_then(|c| c.image.clone());
        ObservedDeployment {
            name: deployment.metadata.name.clone().unwrap_or_default(),
            generation: deployment.metadata.generation,
            observed_generation: status.and_then(|s| s.observed_generation),
            spec_replicas: spec.and_then(|s| s.replicas),
            // The API server omits zero counts; absent means 0.
            replicas: status.and_then(|s| s.replicas).unwrap_or(0),
            updated_replicas: status.and_then(|s| s.updated_replicas).unwrap_or(0),
            ready_replicas: status.and_then(|s| s.ready_replicas).unwrap_or(0),
            available_replicas: status.and_then(|s| s.available_replicas).unwrap_or(0),
            unavailable_replicas: status.and_then(|s| s.unavailable_replicas).unwrap_or(0),
            progressing: find(conditions, "Progressing"),
            replica_failure: find(conditions, "ReplicaFailure")
                .filter(|c| c.status == ConditionStatus::True),
            image,
            template_hash: spec.and_then(|s| template_hash(&s.template)),
            restarted_at: spec
                .and_then(|s| s.template.metadata.as_ref())
                .and_then(|m| trussium_api::restart::restarted_at(m))
                .map(str::to_string),
        }
    }
}

/// Hex characters kept of the template's SHA-256: 64 bits notice any change.
const TEMPLATE_HASH_LEN: usize = 16;

/// A fingerprint of what the pods run: the SHA-256 of the pod template's JSON
/// (k8s-openapi serializes fields in a fixed order and maps as `BTreeMap`s,
/// so the same template always gives the same bytes). It is ours, not the
/// `pod-template-hash` label of the ReplicaSets, which we cannot compute.
pub fn template_hash(template: &PodTemplateSpec) -> Option<String> {
    let bytes = serde_json::to_vec(template).ok()?;
    Some(
        Sha256::digest(bytes)
            .iter()
            .take(TEMPLATE_HASH_LEN / 2)
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

fn find(conditions: &[DeploymentCondition], type_: &str) -> Option<ObservedCondition> {
    conditions
        .iter()
        .find(|c| c.type_ == type_)
        .map(|c| ObservedCondition {
            status: ConditionStatus::parse(&c.status),
            reason: c.reason.clone().unwrap_or_default(),
            message: c.message.clone().unwrap_or_default(),
            last_update: c.last_update_time.as_ref().map(|t| t.0),
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    const YAML: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: private-ai, namespace: trussium, generation: 3}
spec:
  replicas: 2
  selector: {matchLabels: {app: x}}
  template:
    spec:
      containers:
        - {name: sidecar, image: "busybox:1"}
        - {name: runtime, image: "ghcr.io/trussiumhq/trussium:v1.22.0"}
status:
  observedGeneration: 2
  replicas: 3
  updatedReplicas: 1
  readyReplicas: 2
  unavailableReplicas: 1
  conditions:
    - {type: Available, status: "True", reason: MinimumReplicasAvailable}
    - {type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: "ReplicaSet x has timed out progressing."}
    - {type: ReplicaFailure, status: "True", reason: FailedCreate, message: "exceeded quota"}
"#;

    #[test]
    fn reads_what_status_needs() {
        let d: Deployment = serde_yaml::from_str(YAML).unwrap();
        let o = ObservedDeployment::from(&d);
        assert_eq!(o.name, "private-ai");
        assert_eq!(o.generation, Some(3));
        assert_eq!(o.observed_generation, Some(2));
        assert_eq!(o.spec_replicas, Some(2));
        assert_eq!(
            (
                o.replicas,
                o.updated_replicas,
                o.ready_replicas,
                o.available_replicas
            ),
            (3, 1, 2, 0)
        );
        assert_eq!(o.unavailable_replicas, 1);
        assert_eq!(
            o.image.as_deref(),
            Some("ghcr.io/trussiumhq/trussium:v1.22.0")
        );
        assert!(o.generation_pending());
        assert!(o.progress_deadline_exceeded());
        assert_eq!(o.replica_failure.unwrap().message, "exceeded quota");
    }

    #[test]
    fn the_template_hash_follows_the_template_only() {
        let d: Deployment = serde_yaml::from_str(YAML).unwrap();
        let hash = ObservedDeployment::from(&d).template_hash.unwrap();
        assert_eq!(hash.len(), 16);
        assert!(hash.chars().all(|c| c.is_ascii_hexdigit()));
        // Deployment metadata, replicas and status leave it alone…
        let mut other = d.clone();
        other.metadata.annotations = Some([("a".to_string(), "b".to_string())].into());
        other.metadata.generation = Some(9);
        other.spec.as_mut().unwrap().replicas = Some(5);
        other.status = None;
        assert_eq!(
            ObservedDeployment::from(&other).template_hash.unwrap(),
            hash
        );
        // …any change of what the pods run moves it.
        let mut restarted = d.clone();
        restarted.spec.as_mut().unwrap().template.metadata = Some(
            serde_json::from_value(
                serde_json::json!({"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}}),
            )
            .unwrap(),
        );
        assert_ne!(
            ObservedDeployment::from(&restarted).template_hash.unwrap(),
            hash
        );
        let mut image = d.clone();
        image
            .spec
            .as_mut()
            .unwrap()
            .template
            .spec
            .as_mut()
            .unwrap()
            .containers[1]
            .image = Some("ghcr.io/trussiumhq/trussium:v1.23.0".into());
        assert_ne!(
            ObservedDeployment::from(&image).template_hash.unwrap(),
            hash
        );
    }

    #[test]
    fn empty_deployment_reads_as_zeroes() {
        let o = ObservedDeployment::from(&Deployment::default());
        assert_eq!(o, ObservedDeployment::default());
        assert!(!o.generation_pending());
    }

    #[test]
    fn replica_failure_false_is_ignored_and_missing_observed_generation_is_pending() {
        let mut d: Deployment = serde_yaml::from_str(YAML).unwrap();
        let status = d.status.as_mut().unwrap();
        status.observed_generation = None;
        for c in status.conditions.as_mut().unwrap() {
            c.status = "False".into();
        }
        let o = ObservedDeployment::from(&d);
        assert!(o.replica_failure.is_none());
        assert!(o.generation_pending());
    }
}
