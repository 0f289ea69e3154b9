//! One pod as diagnose shows it: which revision it runs, how far it got, and
//! why it is not ready, in the words the kubelet, the scheduler or the
//! ReplicaSet controller wrote. Pure functions of the objects.

use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::{ContainerStatus, Pod};
use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;
use serde::Serialize;
use trussium_api::ConditionStatus;
use trussium_api::operator::RUNTIME_CONTAINER;

use crate::interpret::status_is;

/// The label the Deployment controller puts on a ReplicaSet and its pods.
pub const TEMPLATE_HASH_LABEL: &str = "pod-template-hash";
/// The annotation holding a Deployment's (and each ReplicaSet's) revision.
pub const REVISION_ANNOTATION: &str = "deployment.kubernetes.io/revision";

/// Which rollout a pod belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Revision {
    /// The Deployment's current pod template.
    New,
    /// An earlier one, still running during (or after a stuck) rollout.
    Old,
    /// Its ReplicaSet could not be read or matched.
    Unknown,
}

impl Revision {
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::New => "new",
            Revision::Old => "old",
            Revision::Unknown => "?",
        }
    }
}

/// Why a pod is not ready, most specific first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Problem {
    /// The kubelet cannot pull the image (ErrImagePull, ImagePullBackOff,
    /// InvalidImageName, …).
    ImagePull {
        reason: String,
        message: String,
        image: String,
    },
    /// The container was killed for exceeding its memory limit.
    OutOfMemory {
        limit: Option<String>,
        restarts: i32,
    },
    /// The kubelet cannot create or start the container from its spec
    /// (CreateContainerConfigError: a Secret or ConfigMap key it names is
    /// missing; CreateContainerError, RunContainerError).
    CannotStart { reason: String, message: String },
    /// The container keeps exiting.
    CrashLoop {
        exit_code: Option<i32>,
        reason: Option<String>,
        message: Option<String>,
        restarts: i32,
    },
    /// The scheduler found no node: its own message.
    Unschedulable { message: String },
    /// The container runs and its readiness probe fails.
    NotReady { since: Option<Timestamp> },
    /// Waiting for another reason (ContainerCreating, CreateContainerConfigError, …).
    Waiting { reason: String, message: String },
    /// The pod is being deleted.
    Terminating,
}

impl Problem {
    /// The short state a table shows: the kubelet's or scheduler's reason.
    pub fn state(&self) -> String {
        match self {
            Problem::ImagePull { reason, .. }
            | Problem::CannotStart { reason, .. }
            | Problem::Waiting { reason, .. } => reason.clone(),
            Problem::OutOfMemory { .. } => "OOMKilled".to_string(),
            Problem::CrashLoop {
                exit_code, reason, ..
            } => match (reason, exit_code) {
                (Some(reason), Some(code)) => format!("CrashLoopBackOff ({reason}, exit {code})"),
                (None, Some(code)) => format!("CrashLoopBackOff (exit {code})"),
                (Some(reason), None) => format!("CrashLoopBackOff ({reason})"),
                (None, None) => "CrashLoopBackOff".to_string(),
            },
            Problem::Unschedulable { .. } => "Unschedulable".to_string(),
            Problem::NotReady { .. } => "Running, not ready".to_string(),
            Problem::Terminating => "Terminating".to_string(),
        }
    }

    /// What Kubernetes wrote about it, when it wrote something.
    pub fn message(&self) -> Option<&str> {
        match self {
            Problem::ImagePull { message, .. }
            | Problem::CannotStart { message, .. }
            | Problem::Waiting { message, .. }
            | Problem::Unschedulable { message } => Some(message.as_str()),
            Problem::CrashLoop { message, .. } => message.as_deref(),
            _ => None,
        }
        .filter(|m| !m.is_empty())
    }
}

/// One pod of the runtime.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodView {
    pub name: String,
    pub revision: Revision,
    pub image: Option<String>,
    pub phase: String,
    pub ready: bool,
    pub restarts: i32,
    pub created: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
}

/// The pod-template-hash of the Deployment's current ReplicaSet: the one
/// whose revision is the Deployment's.
pub fn current_template_hash(
    deployment_revision: Option<&str>,
    replica_sets: &[ReplicaSet],
) -> Option<String> {
    let revision = deployment_revision?;
    replica_sets
        .iter()
        .find(|rs| {
            rs.annotations()
                .get(REVISION_ANNOTATION)
                .map(String::as_str)
                == Some(revision)
        })
        .and_then(|rs| rs.labels().get(TEMPLATE_HASH_LABEL).cloned())
}

/// `pod` as diagnose shows it; `current` is [`current_template_hash`].
pub fn view(pod: &Pod, current: Option<&str>) -> PodView {
    let status = pod.status.clone().unwrap_or_default();
    let container = status
        .container_statuses
        .as_deref()
        .unwrap_or_default()
        .iter()
        .find(|c| c.name == RUNTIME_CONTAINER)
        .cloned();
    let revision = match (current, pod.labels().get(TEMPLATE_HASH_LABEL)) {
        (Some(current), Some(hash)) if hash == current => Revision::New,
        (Some(_), Some(_)) => Revision::Old,
        _ => Revision::Unknown,
    };
    let image = pod
        .spec
        .as_ref()
        .and_then(|s| s.containers.iter().find(|c| c.name == RUNTIME_CONTAINER))
        .and_then(|c| c.image.clone());
    PodView {
        name: pod.name_any(),
        revision,
        image,
        phase: status
            .phase
            .clone()
            .unwrap_or_else(|| "Unknown".to_string()),
        ready: container.as_ref().is_some_and(|c| c.ready),
        restarts: container.as_ref().map_or(0, |c| c.restart_count),
        created: pod.metadata.creation_timestamp.as_ref().map(|t| t.0),
        problem: problem(pod, container.as_ref()),
    }
}

/// `pod` as `status` shows it, without its ReplicaSet: new when it runs the
/// image the runtime asks for, old otherwise.
pub fn view_by_image(pod: &Pod, desired_image: &str) -> PodView {
    let mut v = view(pod, None);
    v.revision = if v.image.as_deref() == Some(desired_image) {
        Revision::New
    } else {
        Revision::Old
    };
    v
}

/// New revision first, then by name: the pods that decide a rollout.
pub fn sort(views: &mut [PodView]) {
    views.sort_by(|a, b| {
        (a.revision != Revision::New, &a.name).cmp(&(b.revision != Revision::New, &b.name))
    });
}

/// Why the pod is not ready; `None` when it is.
fn problem(pod: &Pod, container: Option<&ContainerStatus>) -> Option<Problem> {
    if pod.metadata.deletion_timestamp.is_some() {
        return Some(Problem::Terminating);
    }
    if let Some(message) = unschedulable(pod) {
        return Some(Problem::Unschedulable { message });
    }
    let container = container?;
    if container.ready {
        return None;
    }
    let state = container.state.clone().unwrap_or_default();
    let last = container
        .last_state
        .as_ref()
        .and_then(|s| s.terminated.clone());
    let killed_for_memory = |reason: Option<&str>| reason == Some("OOMKilled");
    if let Some(waiting) = &state.waiting {
        let reason = waiting.reason.clone().unwrap_or_default();
        let message = waiting.message.clone().unwrap_or_default();
        if is_pull_failure(&reason) {
            return Some(Problem::ImagePull {
                reason,
                message,
                image: container.image.clone(),
            });
        }
        if is_start_failure(&reason) {
            return Some(Problem::CannotStart { reason, message });
        }
        if reason == "CrashLoopBackOff" || last.is_some() {
            return Some(exited(pod, container, last.as_ref(), killed_for_memory));
        }
        return Some(Problem::Waiting { reason, message });
    }
    if let Some(terminated) = &state.terminated {
        return Some(exited(pod, container, Some(terminated), killed_for_memory));
    }
    if let Some(running) = &state.running {
        // Restarted more than once and running again: the crashes are the
        // story (a container that crashes after a while runs in between).
        // One restart long ago is not a loop.
        if let Some(last) = last.as_ref().filter(|_| container.restart_count > 1) {
            return Some(exited(pod, container, Some(last), killed_for_memory));
        }
        return Some(Problem::NotReady {
            since: running.started_at.as_ref().map(|t| t.0),
        });
    }
    None
}

fn exited(
    pod: &Pod,
    container: &ContainerStatus,
    terminated: Option<&k8s_openapi::api::core::v1::ContainerStateTerminated>,
    killed_for_memory: impl Fn(Option<&str>) -> bool,
) -> Problem {
    let reason = terminated.and_then(|t| t.reason.clone());
    if killed_for_memory(reason.as_deref()) {
        return Problem::OutOfMemory {
            limit: memory_limit(pod),
            restarts: container.restart_count,
        };
    }
    Problem::CrashLoop {
        exit_code: terminated.map(|t| t.exit_code),
        reason,
        message: terminated.and_then(|t| t.message.clone()),
        restarts: container.restart_count,
    }
}

/// The kubelet's reasons for a container it cannot create or start.
pub fn is_start_failure(reason: &str) -> bool {
    matches!(
        reason,
        "CreateContainerConfigError" | "CreateContainerError" | "RunContainerError"
    )
}

/// The kubelet's reasons for an image it cannot pull.
pub fn is_pull_failure(reason: &str) -> bool {
    matches!(
        reason,
        "ErrImagePull"
            | "ImagePullBackOff"
            | "InvalidImageName"
            | "ErrImageNeverPull"
            | "RegistryUnavailable"
            | "SignatureValidationFailed"
    )
}

/// The scheduler's message, while the pod waits for a node.
fn unschedulable(pod: &Pod) -> Option<String> {
    let status = pod.status.as_ref()?;
    status
        .conditions
        .as_deref()
        .unwrap_or_default()
        .iter()
        .find(|c| c.type_ == "PodScheduled" && status_is(c, ConditionStatus::False))
        .filter(|c| c.reason.as_deref() == Some("Unschedulable"))
        .map(|c| c.message.clone().unwrap_or_default())
}

/// The runtime container's memory limit, as written.
fn memory_limit(pod: &Pod) -> Option<String> {
    pod.spec
        .as_ref()?
        .containers
        .iter()
        .find(|c| c.name == RUNTIME_CONTAINER)?
        .resources
        .as_ref()?
        .limits
        .as_ref()?
        .get("memory")
        .map(|q| q.0.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(status: serde_json::Value) -> Pod {
        let pod = json!({
            "metadata": {"name": "rt-abc-1", "labels": {TEMPLATE_HASH_LABEL: "abc"},
                         "creationTimestamp": "2026-12-01T10:00:00Z"},
            "spec": {"containers": [{"name": RUNTIME_CONTAINER, "image": "r/t:v1",
                     "resources": {"limits": {"memory": "256Mi"}}}]},
            "status": status,
        });
        serde_json::from_value(pod).unwrap_or_else(|e| panic!("{e}"))
    }

    fn container(fields: serde_json::Value) -> serde_json::Value {
        let mut c = json!({"name": RUNTIME_CONTAINER, "image": "r/t:v1", "imageID": "",
                           "ready": false, "restartCount": 0});
        if let (Some(c), Some(f)) = (c.as_object_mut(), fields.as_object()) {
            c.extend(f.clone());
        }
        c
    }

    fn running(c: serde_json::Value) -> Pod {
        pod(json!({"phase": "Running", "containerStatuses": [c]}))
    }

    #[test]
    fn a_ready_pod_has_no_problem_and_its_revision() {
        let p = running(container(json!({"ready": true,
            "state": {"running": {"startedAt": "2026-12-01T10:00:01Z"}}})));
        let v = view(&p, Some("abc"));
        assert_eq!(v.problem, None);
        assert!(v.ready);
        assert_eq!(v.revision, Revision::New);
        assert_eq!(v.image.as_deref(), Some("r/t:v1"));
        assert_eq!(view(&p, Some("def")).revision, Revision::Old);
        assert_eq!(view(&p, None).revision, Revision::Unknown);
        assert_eq!(view_by_image(&p, "r/t:v1").revision, Revision::New);
        assert_eq!(view_by_image(&p, "r/t:v2").revision, Revision::Old);
    }

    #[test]
    fn pull_failures_name_the_image_and_the_kubelets_message() {
        for reason in ["ErrImagePull", "ImagePullBackOff", "InvalidImageName"] {
            let p = pod(
                json!({"phase": "Pending", "containerStatuses": [container(json!({
                "state": {"waiting": {"reason": reason, "message": "manifest unknown"}}}))]}),
            );
            assert_eq!(
                view(&p, None).problem,
                Some(Problem::ImagePull {
                    reason: reason.into(),
                    message: "manifest unknown".into(),
                    image: "r/t:v1".into()
                })
            );
        }
    }

    #[test]
    fn a_crash_loop_gives_the_last_exit_and_oom_the_limit() {
        let crash = running(container(json!({"restartCount": 4,
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}},
            "lastState": {"terminated": {"exitCode": 3, "reason": "Error"}}})));
        assert_eq!(
            view(&crash, None).problem,
            Some(Problem::CrashLoop {
                exit_code: Some(3),
                reason: Some("Error".into()),
                message: None,
                restarts: 4
            })
        );
        let oom = running(container(json!({"restartCount": 2,
            "state": {"waiting": {"reason": "CrashLoopBackOff"}},
            "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}})));
        assert_eq!(
            view(&oom, None).problem,
            Some(Problem::OutOfMemory {
                limit: Some("256Mi".into()),
                restarts: 2
            })
        );
        // Running again between crashes: still the crash; after one
        // restart long ago, only a container that is not ready.
        let once = running(container(json!({"restartCount": 1,
            "state": {"running": {"startedAt": "2026-12-01T10:00:01Z"}},
            "lastState": {"terminated": {"exitCode": 1}}})));
        assert!(matches!(
            view(&once, None).problem,
            Some(Problem::NotReady { .. })
        ));
        let between = running(container(json!({"restartCount": 2,
            "state": {"running": {"startedAt": "2026-12-01T10:00:01Z"}},
            "lastState": {"terminated": {"exitCode": 1}}})));
        assert!(matches!(
            view(&between, None).problem,
            Some(Problem::CrashLoop {
                exit_code: Some(1),
                ..
            })
        ));
        // Terminated now, not yet restarted.
        let ended = running(container(json!({
            "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}})));
        assert!(matches!(
            view(&ended, None).problem,
            Some(Problem::OutOfMemory { .. })
        ));
    }

    #[test]
    fn a_container_the_kubelet_cannot_create() {
        let p = pod(
            json!({"phase": "Pending", "containerStatuses": [container(json!({
            "state": {"waiting": {"reason": "CreateContainerConfigError",
                "message": "couldn't find key api-key in Secret ai/openai"}}}))]}),
        );
        assert_eq!(
            view(&p, None).problem,
            Some(Problem::CannotStart {
                reason: "CreateContainerConfigError".into(),
                message: "couldn't find key api-key in Secret ai/openai".into()
            })
        );
    }

    #[test]
    fn unschedulable_quotes_the_scheduler() {
        let p = pod(
            json!({"phase": "Pending", "conditions": [{"type": "PodScheduled",
            "status": "False", "reason": "Unschedulable",
            "message": "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."}]}),
        );
        assert_eq!(
            view(&p, None).problem,
            Some(Problem::Unschedulable {
                message:
                    "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
                        .into()
            })
        );
        assert_eq!(view(&p, None).phase, "Pending");
    }

    #[test]
    fn running_but_not_ready_and_other_waits() {
        let p = running(container(json!({
            "state": {"running": {"startedAt": "2026-12-01T10:00:01Z"}}})));
        assert!(matches!(
            view(&p, None).problem,
            Some(Problem::NotReady { since: Some(_) })
        ));
        let creating = pod(
            json!({"phase": "Pending", "containerStatuses": [container(json!({
            "state": {"waiting": {"reason": "ContainerCreating"}}}))]}),
        );
        assert_eq!(
            view(&creating, None).problem.map(|p| p.state()),
            Some("ContainerCreating".to_string())
        );
        // No container status yet and nothing from the scheduler: no verdict.
        assert_eq!(view(&pod(json!({"phase": "Pending"})), None).problem, None);
    }

    #[test]
    fn the_current_hash_is_the_replica_set_of_the_deployments_revision() {
        let rs = |hash: &str, revision: &str| -> ReplicaSet {
            serde_json::from_value(json!({"metadata": {"name": format!("rt-{hash}"),
                "labels": {TEMPLATE_HASH_LABEL: hash},
                "annotations": {REVISION_ANNOTATION: revision}}}))
            .unwrap_or_else(|e| panic!("{e}"))
        };
        let sets = [rs("old", "1"), rs("new", "2")];
        assert_eq!(
            current_template_hash(Some("2"), &sets).as_deref(),
            Some("new")
        );
        assert_eq!(current_template_hash(Some("3"), &sets), None);
        assert_eq!(current_template_hash(None, &sets), None);
    }
}
