//! Why a runtime is not Ready: from what the plugin could read (the runtime,
//! its Deployment, ReplicaSets, pods, their Events, the autoscaler), one root
//! cause with the next step, then the evidence. Pure: `commands::diagnose`
//! reads, [`render`] draws.
//!
//! The order of the causes is the order of the questions a person asks:
//! is it going away, is the operator there and caught up, is the spec
//! usable, did the operator stop, then what the pods of the new revision
//! say (an image, a container that cannot start, memory, a crash, a node),
//! a pod never created, a probe, then the rollout's deadline.

pub mod pods;
pub mod render;

use std::collections::BTreeSet;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;
use serde::Serialize;
use trussium_api::{
    ConditionStatus, TrussiumRuntime, TrussiumRuntimeStatus, condition_type, reason,
};

use crate::interpret::{self, status_is, terminating};
use crate::terminal::{safe, shell_command};
use pods::{PodView, Problem, Revision};

/// What a read gave: the objects, or why not.
#[derive(Clone, Debug)]
pub enum Read<T> {
    Got(T),
    /// Refused by RBAC: the request as a sentence ("list pods in namespace ai").
    Forbidden(String),
    /// Any other failure, as the error says it.
    Failed(String),
}

impl<T> Read<T> {
    pub fn got(&self) -> Option<&T> {
        match self {
            Read::Got(t) => Some(t),
            _ => None,
        }
    }

    pub fn as_ref(&self) -> Read<&T> {
        match self {
            Read::Got(t) => Read::Got(t),
            Read::Forbidden(why) => Read::Forbidden(why.clone()),
            Read::Failed(why) => Read::Failed(why.clone()),
        }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Read<U> {
        match self {
            Read::Got(t) => Read::Got(f(t)),
            Read::Forbidden(why) => Read::Forbidden(why),
            Read::Failed(why) => Read::Failed(why),
        }
    }
}

/// Everything diagnose read about one runtime.
#[derive(Clone, Debug)]
pub struct Evidence {
    pub runtime: TrussiumRuntime,
    pub deployment: Read<Option<Deployment>>,
    pub replica_sets: Read<Vec<ReplicaSet>>,
    pub pods: Read<Vec<Pod>>,
    /// Events of the namespace (filtered here to the runtime's objects);
    /// `None` when not read (`-A` reads none).
    pub events: Option<Read<Vec<Event>>>,
    /// The autoscaler, read only while autoscaling is enabled.
    pub autoscaler: Option<Read<Option<HorizontalPodAutoscaler>>>,
    /// The EndpointSlices of the runtime's Service; `None` when not read
    /// (`-A` reads none).
    pub endpoints: Option<Read<Vec<EndpointSlice>>>,
    /// The last lines of a crashed container's previous run: (pod, lines).
    pub previous_log: Option<(String, Read<Vec<String>>)>,
}

/// The root cause, one word for scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Cause {
    Ready,
    ScaledToZero,
    BeingDeleted,
    NoStatus,
    OperatorBehind,
    SecretNotFound,
    InvalidConfiguration,
    Stalled,
    ImagePullFailed,
    ContainerCannotStart,
    OOMKilled,
    CrashLoop,
    Unschedulable,
    PodsNotCreated,
    ContainerNotReady,
    ProgressDeadlineExceeded,
    NoEndpoints,
    RolloutInProgress,
    Unknown,
}

impl Cause {
    /// Whether the runtime serves as asked.
    pub fn is_ready(self) -> bool {
        matches!(self, Cause::Ready | Cause::ScaledToZero)
    }
}

/// One piece of evidence: which object said what, and since when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// `Pod/name`, `ReplicaSet/name`, `Deployment/name`, `TrussiumRuntime/name`, …
    pub object: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
    pub message: String,
}

/// A step to take: why, and the command when there is one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub why: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// The last lines a crashed container wrote before it ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviousLog {
    pub pod: String,
    pub lines: Vec<String>,
}

/// The verdict on one runtime.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    pub namespace: String,
    pub name: String,
    pub ready: bool,
    pub cause: Cause,
    /// The cause in one line.
    pub summary: String,
    /// The pod the cause was read from, when it is a pod's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    pub next_steps: Vec<Step>,
    pub evidence: Vec<Item>,
    /// Something worth knowing that is not why it is not Ready (an
    /// autoscaler that cannot read metrics on a Ready runtime).
    pub warnings: Vec<String>,
    pub pods: Vec<PodView>,
    /// The last lines of a crashed container's previous run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_log: Option<PreviousLog>,
    /// What could not be read, and why ("the pods: forbidden to list pods in
    /// namespace ai; diagnosed without them").
    pub unread: Vec<String>,
}

/// The diagnosis of `e`.
pub fn diagnose(e: &Evidence) -> Diagnosis {
    let rt = &e.runtime;
    let deployment = e.deployment.got().and_then(Option::as_ref);
    let revision = deployment.and_then(|d| {
        d.annotations()
            .get(pods::REVISION_ANNOTATION)
            .map(String::as_str)
    });
    let replica_sets = e.replica_sets.got().map(Vec::as_slice).unwrap_or_default();
    let current = pods::current_template_hash(revision, replica_sets);
    let mut views: Vec<PodView> = e
        .pods
        .got()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|p| pods::view(p, current.as_deref()))
        .collect();
    pods::sort(&mut views);

    let verdict = verdict(e, deployment, replica_sets, &views);
    let mut evidence = verdict.evidence;
    let events = related_events(e, &views, verdict.cause, &evidence);
    evidence.extend(events);
    let mut unread = Vec::new();
    note_unread(&mut unread, &e.deployment, "the Deployment");
    note_unread(&mut unread, &e.replica_sets, "the ReplicaSets");
    note_unread(&mut unread, &e.pods, "the pods");
    if let Some(events) = &e.events {
        note_unread(&mut unread, events, "the Events");
    }
    if let Some(autoscaler) = &e.autoscaler {
        note_unread(&mut unread, autoscaler, "the HorizontalPodAutoscaler");
    }
    if let Some(endpoints) = &e.endpoints {
        note_unread(&mut unread, endpoints, "the Service's EndpointSlices");
    }
    if let Some((_, log)) = &e.previous_log {
        note_unread(&mut unread, log, "the previous run's log");
    }
    Diagnosis {
        namespace: rt.namespace().unwrap_or_default(),
        name: rt.name_any(),
        ready: verdict.cause.is_ready(),
        cause: verdict.cause,
        summary: verdict.summary,
        pod: verdict.pod,
        next_steps: verdict.steps,
        evidence,
        warnings: autoscaler_warning(e).into_iter().collect(),
        pods: views,
        previous_log: match &e.previous_log {
            Some((pod, Read::Got(lines))) => Some(PreviousLog {
                pod: pod.clone(),
                lines: lines.clone(),
            }),
            _ => None,
        },
        unread,
    }
}

struct Verdict {
    cause: Cause,
    summary: String,
    pod: Option<String>,
    steps: Vec<Step>,
    evidence: Vec<Item>,
}

impl Verdict {
    fn new(cause: Cause, summary: impl Into<String>) -> Self {
        Verdict {
            cause,
            summary: summary.into(),
            pod: None,
            steps: Vec::new(),
            evidence: Vec::new(),
        }
    }

    fn step(mut self, why: impl Into<String>, command: Option<String>) -> Self {
        self.steps.push(Step {
            why: why.into(),
            command,
        });
        self
    }

    fn about(mut self, pod: &str) -> Self {
        self.pod = Some(pod.to_string());
        self
    }

    fn evidence(mut self, object: String, since: Option<Timestamp>, message: &str) -> Self {
        if !message.is_empty() {
            self.evidence.push(Item {
                object,
                since,
                message: message.to_string(),
            });
        }
        self
    }
}

/// The root cause: the first of this module's questions that has an answer,
/// asked in their order.
fn verdict(
    e: &Evidence,
    deployment: Option<&Deployment>,
    replica_sets: &[ReplicaSet],
    views: &[PodView],
) -> Verdict {
    let rt = &e.runtime;
    if terminating(rt) {
        return Verdict::new(
            Cause::BeingDeleted,
            "it is being deleted; its objects go with it",
        );
    }
    let Some(status) = &rt.status else {
        return check_step(
            Verdict::new(
                Cause::NoStatus,
                "the operator has not reported on it: is the operator running?",
            ),
            &rt.namespace().unwrap_or_default(),
        );
    };
    let ready = known_condition(status, condition_type::READY);
    let is_ready = ready.is_some_and(|c| status_is(c, ConditionStatus::True));
    if let Some(v) = operator_behind(rt, status, is_ready) {
        return v;
    }
    // Conditions below describe the generation the operator last saw, which
    // is the spec's own from here on (unless Ready: it still serves).
    if let Some(v) = spec_unusable(rt, status).or_else(|| operator_stopped(rt, status)) {
        return v;
    }
    if is_ready {
        let scaled_to_zero = ready.is_some_and(|c| c.reason == reason::SCALED_TO_ZERO);
        return ready_verdict(e, views, status, scaled_to_zero);
    }
    pod_verdict(rt, views)
        .or_else(|| not_created(rt, deployment, replica_sets))
        .or_else(|| ready_but_probe_fails(rt, views))
        .or_else(|| deadline_passed(rt, status))
        .unwrap_or_else(|| unexplained(e, status, ready))
}

/// The runtime's condition of type `t`, unless its status is Unknown: then
/// it says nothing.
fn known_condition<'a>(status: &'a TrussiumRuntimeStatus, t: &str) -> Option<&'a Condition> {
    status
        .condition(t)
        .filter(|c| !status_is(c, ConditionStatus::Unknown))
}

/// `v` with the next steps the runtime's status suggests.
fn steps_from_status(rt: &TrussiumRuntime, v: Verdict) -> Verdict {
    interpret::next_steps(rt)
        .into_iter()
        .fold(v, |v, s| v.step(s.why, Some(s.command)))
}

/// How the evidence names the runtime itself.
fn runtime_object(rt: &TrussiumRuntime) -> String {
    format!("TrussiumRuntime/{}", rt.name_any())
}

/// A spec newer than the operator's last report: its conditions describe an
/// older spec (unless Ready: the runtime still serves meanwhile).
fn operator_behind(
    rt: &TrussiumRuntime,
    status: &TrussiumRuntimeStatus,
    is_ready: bool,
) -> Option<Verdict> {
    let observed = status.observed_generation;
    let behind = observed.is_some_and(|o| Some(o) < rt.metadata.generation) && !is_ready;
    if !behind {
        return None;
    }
    let v = Verdict::new(
        Cause::OperatorBehind,
        format!(
            "the operator has not acted on generation {} of the spec yet (it last reported on {})",
            rt.metadata.generation.unwrap_or_default(),
            observed.unwrap_or_default()
        ),
    );
    Some(check_step(v, &rt.namespace().unwrap_or_default()))
}

/// The operator cannot use the spec (ConfigurationValid is False): a Secret
/// is missing, or the configuration is invalid.
fn spec_unusable(rt: &TrussiumRuntime, status: &TrussiumRuntimeStatus) -> Option<Verdict> {
    let c = known_condition(status, condition_type::CONFIGURATION_VALID)
        .filter(|c| status_is(c, ConditionStatus::False))?;
    let cause = if c.reason == reason::SECRET_NOT_FOUND {
        Cause::SecretNotFound
    } else {
        Cause::InvalidConfiguration
    };
    let v = Verdict::new(
        cause,
        format!("the spec cannot be used: {}", safe(&c.message)),
    );
    Some(steps_from_status(rt, v).evidence(runtime_object(rt), None, &c.message))
}

/// The operator stopped (Stalled is True). A passed progress deadline is
/// left for later: the pods say more about it (see [`deadline_passed`]).
fn operator_stopped(rt: &TrussiumRuntime, status: &TrussiumRuntimeStatus) -> Option<Verdict> {
    let c = known_condition(status, condition_type::STALLED).filter(|c| {
        status_is(c, ConditionStatus::True) && c.reason != reason::PROGRESS_DEADLINE_EXCEEDED
    })?;
    let v = Verdict::new(
        Cause::Stalled,
        format!(
            "the operator stopped ({}): {}",
            safe(&c.reason),
            safe(&c.message)
        ),
    );
    Some(steps_from_status(rt, v).evidence(runtime_object(rt), None, &c.message))
}

/// A Ready runtime: scaled to zero as asked, or serving, unless its Service
/// routes nowhere.
fn ready_verdict(
    e: &Evidence,
    views: &[PodView],
    status: &TrussiumRuntimeStatus,
    scaled_to_zero: bool,
) -> Verdict {
    if scaled_to_zero {
        return Verdict::new(Cause::ScaledToZero, "scaled to zero, as asked");
    }
    if let Some(v) = no_endpoints(e, views) {
        return v;
    }
    let n = status.ready_replicas.unwrap_or_default();
    Verdict::new(
        Cause::Ready,
        format!("Ready, {n} of {n} replicas ready: nothing to fix"),
    )
}

/// The rollout passed its progress deadline, and no pod or ReplicaSet says why.
fn deadline_passed(rt: &TrussiumRuntime, status: &TrussiumRuntimeStatus) -> Option<Verdict> {
    let c = known_condition(status, condition_type::DEGRADED).filter(|c| {
        status_is(c, ConditionStatus::True) && c.reason == reason::PROGRESS_DEADLINE_EXCEEDED
    })?;
    let v = Verdict::new(
        Cause::ProgressDeadlineExceeded,
        format!(
            "the rollout passed its progress deadline: {}",
            safe(&c.message)
        ),
    );
    Some(rollback_step(rt, v).evidence(runtime_object(rt), None, &c.message))
}

/// Not Ready, and nothing read to blame: the pods could not be read, a
/// rollout is under way, or the operator's Ready message is all there is.
fn unexplained(e: &Evidence, status: &TrussiumRuntimeStatus, ready: Option<&Condition>) -> Verdict {
    let rt = &e.runtime;
    let message = ready.map(|c| c.message.clone()).unwrap_or_default();
    if e.pods.got().is_none() {
        return pods_unread(e, &message);
    }
    if known_condition(status, condition_type::PROGRESSING)
        .is_some_and(|c| status_is(c, ConditionStatus::True))
    {
        let name = rt.name_any();
        let ns = rt.namespace().unwrap_or_default();
        return Verdict::new(
            Cause::RolloutInProgress,
            format!("a rollout is under way: {}", safe(&message)),
        )
        .step(
            "nothing looks wrong yet; follow it",
            Some(shell_command(&[
                "kubectl", "trussium", "status", &name, "-n", &ns, "--watch",
            ])),
        );
    }
    steps_from_status(
        rt,
        Verdict::new(
            Cause::Unknown,
            format!(
                "not Ready, and nothing diagnose reads says why: {}",
                safe(&message)
            ),
        ),
    )
    .evidence(runtime_object(rt), None, &message)
}

/// The pods that would say why could not be read: the operator's Ready
/// `message`, and how to read them next time.
fn pods_unread(e: &Evidence, message: &str) -> Verdict {
    let ns = e.runtime.namespace().unwrap_or_default();
    let v = Verdict::new(
        Cause::Unknown,
        format!(
            "the pods that would say why cannot be read; the operator reports: {}",
            safe(message)
        ),
    )
    .evidence(runtime_object(&e.runtime), None, message);
    match &e.pods {
        Read::Forbidden(_) => v.step(
            format!(
                "diagnose with an identity that may get and list pods and events in namespace {ns}"
            ),
            None,
        ),
        _ => v.step("run it again: the error is under Not read", None),
    }
}

/// The first pod problem worth a verdict, pods of the new revision first.
/// A probe that fails is left for later: a pod that was never created
/// says more.
fn pod_verdict(rt: &TrussiumRuntime, views: &[PodView]) -> Option<Verdict> {
    let (pod, problem) = first_pod_problem(views)?;
    let alike = views
        .iter()
        .filter(|v| v.problem.as_ref().map(Problem::state) == Some(problem.state()))
        .count();
    let blamed = Blamed {
        rt,
        pod,
        pods_word: pods_word(alike, &pod.name),
    };
    let v = match problem {
        Problem::ImagePull {
            reason,
            message,
            image,
        } => blamed.image_pull_failed(reason, message, image),
        Problem::OutOfMemory { limit, restarts } => {
            blamed.out_of_memory(limit.as_deref(), *restarts)
        }
        Problem::CrashLoop {
            exit_code,
            reason,
            message,
            restarts,
        } => blamed.crash_loop(*exit_code, reason.as_deref(), message.as_deref(), *restarts),
        Problem::CannotStart { reason, message } => blamed.cannot_start(reason, message),
        Problem::Unschedulable { message } => blamed.unschedulable(message),
        _ => return None,
    };
    Some(v.about(&pod.name))
}

/// The pod and problem to blame: the best ranked problem of the new
/// revision's pods, else of the others.
fn first_pod_problem(views: &[PodView]) -> Option<(&PodView, &Problem)> {
    // The new revision's pods decide the rollout: an old pod's trouble
    // (a registry that is down for it too) comes after theirs.
    views
        .iter()
        .filter_map(|v| {
            v.problem
                .as_ref()
                .and_then(|p| Some((pod_problem_rank(p)?, v, p)))
        })
        .min_by_key(|(rank, v, _)| (v.revision != Revision::New, *rank))
        .map(|(_, v, p)| (v, p))
}

/// Which pod problem explains the runtime first; `None` for those that
/// [`pod_verdict`] leaves to later questions.
fn pod_problem_rank(p: &Problem) -> Option<u8> {
    match p {
        Problem::ImagePull { .. } => Some(0),
        Problem::CannotStart { .. } => Some(1),
        Problem::OutOfMemory { .. } => Some(2),
        Problem::CrashLoop { .. } => Some(3),
        Problem::Unschedulable { .. } => Some(4),
        _ => None,
    }
}

/// The pod a verdict blames, with the words for how many share its trouble;
/// its methods give the verdict for each kind of problem.
struct Blamed<'a> {
    rt: &'a TrussiumRuntime,
    pod: &'a PodView,
    /// "pod NAME" alone, else "N pods".
    pods_word: String,
}

impl Blamed<'_> {
    fn object(&self) -> String {
        format!("Pod/{}", self.pod.name)
    }

    /// The command that reads the pod's previous run.
    fn previous_logs(&self) -> String {
        let ns = self.rt.namespace().unwrap_or_default();
        logs_command(&self.pod.name, &ns, true)
    }

    fn image_pull_failed(&self, reason: &str, message: &str, image: &str) -> Verdict {
        let pods_word = &self.pods_word;
        let v = Verdict::new(
            Cause::ImagePullFailed,
            format!(
                "the image {} cannot be pulled ({}, {pods_word})",
                safe(image),
                safe(reason)
            ),
        )
        .step(
            "check that the tag or digest exists and that the cluster may pull from the registry (an imagePullSecret)",
            None,
        );
        rollback_step(self.rt, v).evidence(self.object(), self.pod.created, message)
    }

    fn out_of_memory(&self, limit: Option<&str>, restarts: i32) -> Verdict {
        let pods_word = &self.pods_word;
        let limit = limit.map_or("no limit set on the container".to_string(), |l| {
            format!("limit {}", safe(l))
        });
        Verdict::new(
            Cause::OOMKilled,
            format!(
                "the container is killed for running out of memory ({limit}; {pods_word}, {restarts} restarts)"
            ),
        )
        .step(
            "raise spec.resources.limits.memory, or find what grew in the previous run's log",
            Some(self.previous_logs()),
        )
        .evidence(self.object(), self.pod.created, "OOMKilled (exit code 137)")
    }

    fn crash_loop(
        &self,
        exit_code: Option<i32>,
        reason: Option<&str>,
        message: Option<&str>,
        restarts: i32,
    ) -> Verdict {
        let pods_word = &self.pods_word;
        let exit = exit_code.map_or("no exit code".to_string(), |c| format!("exit code {c}"));
        let why = reason.map_or(String::new(), |r| format!(", {}", safe(r)));
        let v = Verdict::new(
            Cause::CrashLoop,
            format!(
                "the container keeps crashing (last {exit}{why}; {pods_word}, {restarts} restarts)"
            ),
        )
        .step(
            "read why in the previous run's log",
            Some(self.previous_logs()),
        );
        let said = message.map_or_else(|| format!("last run ended: {exit}"), str::to_string);
        rollback_step(self.rt, v).evidence(self.object(), self.pod.created, &said)
    }

    fn cannot_start(&self, reason: &str, message: &str) -> Verdict {
        Verdict::new(
            Cause::ContainerCannotStart,
            format!(
                "the kubelet cannot start the container ({}, {}): {}",
                safe(reason),
                self.pods_word,
                safe(message)
            ),
        )
        .step(
            "a Secret or ConfigMap key the container refers to is missing, or its spec is refused: the message names it",
            None,
        )
        .evidence(self.object(), self.pod.created, message)
    }

    fn unschedulable(&self, message: &str) -> Verdict {
        Verdict::new(
            Cause::Unschedulable,
            format!(
                "no node can take the pods ({}): {}",
                self.pods_word,
                safe(message)
            ),
        )
        .step(
            "make a node fit, or relax what the scheduler names: spec.scheduling (nodeSelector, tolerations, affinity) or spec.resources.requests",
            Some(shell_command(&["kubectl", "get", "nodes", "--show-labels"])),
        )
        .evidence(self.object(), self.pod.created, message)
    }
}

/// Pods the ReplicaSet controller cannot create (quota, Pod Security, an
/// admission webhook): the ReplicaSet's (or the Deployment's)
/// `ReplicaFailure`.
fn not_created(
    rt: &TrussiumRuntime,
    deployment: Option<&Deployment>,
    replica_sets: &[ReplicaSet],
) -> Option<Verdict> {
    let ns = rt.namespace().unwrap_or_default();
    // The ReplicaFailure of a ReplicaSet or a Deployment: two condition
    // types with the same fields.
    macro_rules! failure {
        ($kind:literal, $object:expr) => {{
            let object = $object;
            object
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_deref())
                .unwrap_or_default()
                .iter()
                .find(|c| c.type_ == "ReplicaFailure" && status_is(c, ConditionStatus::True))
                .map(|c| {
                    (
                        format!("{}/{}", $kind, object.name_any()),
                        c.last_transition_time.as_ref().map(|t| t.0),
                        c.message.clone().unwrap_or_default(),
                    )
                })
        }};
    }
    let (object, since, message) = replica_sets
        .iter()
        .find_map(|rs| failure!("ReplicaSet", rs))
        .or_else(|| deployment.and_then(|d| failure!("Deployment", d)))?;
    let v = Verdict::new(
        Cause::PodsNotCreated,
        format!("pods are not created: {}", safe(&message)),
    );
    let v = if message.contains("exceeded quota") {
        v.step(
            "a ResourceQuota refuses the pods: raise it, or lower spec.replicas or spec.resources",
            Some(shell_command(&[
                "kubectl",
                "describe",
                "resourcequota",
                "-n",
                &ns,
            ])),
        )
    } else if message.contains("PodSecurity") {
        v.step(
            "the namespace's Pod Security level refuses the pod: the message names the fields; see the namespace's labels",
            Some(shell_command(&["kubectl", "get", "namespace", &ns, "--show-labels"])),
        )
    } else if message.contains("admission webhook") {
        v.step(
            "an admission webhook refuses the pod: the message names it and why",
            Some(shell_command(&[
                "kubectl",
                "get",
                "validatingwebhookconfigurations,mutatingwebhookconfigurations",
            ])),
        )
    } else {
        v.step("the message says what refuses the pods", None)
    };
    Some(v.evidence(object, since, &message))
}

/// Containers that run and are never ready: the readiness probe fails.
fn ready_but_probe_fails(rt: &TrussiumRuntime, views: &[PodView]) -> Option<Verdict> {
    let ns = rt.namespace().unwrap_or_default();
    let failing: Vec<&PodView> = views
        .iter()
        .filter(|v| matches!(v.problem, Some(Problem::NotReady { .. })))
        .collect();
    let first = failing.first()?;
    let since = match first.problem {
        Some(Problem::NotReady { since }) => since,
        _ => None,
    };
    let pods_word = pods_word(failing.len(), &first.name);
    Some(
        Verdict::new(
            Cause::ContainerNotReady,
            format!(
                "the container runs but never becomes ready ({pods_word}): its readiness probe fails"
            ),
        )
        .step(
            "read the container's log: the gateway reports why it is not ready (a provider it cannot reach, a bad model)",
            Some(logs_command(&first.name, &ns, false)),
        )
        .evidence(format!("Pod/{}", first.name), since, "running, not ready")
        .about(&first.name),
    )
}

/// A Ready runtime whose Service routes nowhere: pods are ready, and the
/// Service's EndpointSlices hold no ready endpoint (its selector no longer
/// matches them, or the EndpointSlice controller is not running).
fn no_endpoints(e: &Evidence, views: &[PodView]) -> Option<Verdict> {
    let Some(Read::Got(slices)) = &e.endpoints else {
        return None;
    };
    let ready_pods = views.iter().filter(|v| v.ready).count();
    // An endpoint whose readiness is not known counts as ready (the API's rule).
    let ready_endpoints = slices
        .iter()
        .flat_map(|s| s.endpoints.iter())
        .filter(|ep| ep.conditions.as_ref().and_then(|c| c.ready) != Some(false))
        .count();
    if ready_pods == 0 || ready_endpoints > 0 {
        return None;
    }
    let name = e.runtime.name_any();
    let ns = e.runtime.namespace().unwrap_or_default();
    let selector = endpoint_slices_of(&name);
    Some(
        Verdict::new(
            Cause::NoEndpoints,
            format!(
                "the Service {name} has no ready endpoint although {ready_pods} pods are ready: \
                 requests to it fail"
            ),
        )
        .step(
            "its selector no longer matches the pods (an edit the operator has not put back yet), or the EndpointSlice controller is not running",
            Some(shell_command(&[
                "kubectl",
                "get",
                "endpointslices",
                "-n",
                &ns,
                "-l",
                &selector,
            ])),
        ),
    )
}

/// `n` pods, named when it is one.
fn pods_word(n: usize, first: &str) -> String {
    if n == 1 {
        format!("pod {first}")
    } else {
        format!("{n} pods")
    }
}

/// The step to `kubectl trussium check` the operator.
fn check_step(v: Verdict, ns: &str) -> Verdict {
    v.step(
        "check the operator, its leader and your access",
        Some(shell_command(&["kubectl", "trussium", "check", "-n", ns])),
    )
}

/// The label selector of a Service's EndpointSlices.
pub fn endpoint_slices_of(service: &str) -> String {
    format!("kubernetes.io/service-name={service}")
}

/// `kubectl logs` of the runtime container of `pod` (its previous run).
fn logs_command(pod: &str, ns: &str, previous: bool) -> String {
    let mut words = vec![
        "kubectl",
        "logs",
        pod,
        "-n",
        ns,
        "-c",
        trussium_api::operator::RUNTIME_CONTAINER,
    ];
    if previous {
        words.push("--previous");
    }
    shell_command(&words)
}

/// A rollback, when an earlier image rolled out and is not the one wanted.
fn rollback_step(rt: &TrussiumRuntime, v: Verdict) -> Verdict {
    let last = rt
        .status
        .as_ref()
        .and_then(|s| s.last_successful_image.as_deref());
    match last {
        Some(last) if last != rt.spec.image.reference() => {
            let name = rt.name_any();
            let ns = rt.namespace().unwrap_or_default();
            v.step(
                format!("or go back to {}, which rolled out", safe(last)),
                Some(shell_command(&[
                    "kubectl", "trussium", "rollback", &name, "-n", &ns, "--wait",
                ])),
            )
        }
        _ => v,
    }
}

/// The Warning Events about the runtime's pods, ReplicaSets, Deployment,
/// autoscaler and itself, newest last; for a Ready runtime none.
fn related_events(e: &Evidence, views: &[PodView], cause: Cause, quoted: &[Item]) -> Vec<Item> {
    if cause.is_ready() {
        return Vec::new();
    }
    let Some(Read::Got(events)) = &e.events else {
        return Vec::new();
    };
    let rt = &e.runtime;
    let mut names: BTreeSet<(String, String)> = views
        .iter()
        .map(|v| ("Pod".to_string(), v.name.clone()))
        .collect();
    for rs in e.replica_sets.got().map(Vec::as_slice).unwrap_or_default() {
        names.insert(("ReplicaSet".to_string(), rs.name_any()));
    }
    for kind in ["Deployment", "HorizontalPodAutoscaler", "TrussiumRuntime"] {
        names.insert((kind.to_string(), rt.name_any()));
    }
    let mut items: Vec<(Option<Timestamp>, Item)> = events
        .iter()
        .filter(|ev| ev.type_.as_deref() == Some("Warning"))
        .filter_map(|ev| {
            let regarding = ev.regarding.as_ref()?;
            let key = (regarding.kind.clone()?, regarding.name.clone()?);
            names.contains(&key).then(|| {
                let when = crate::runtime_events::last_seen(ev);
                let reason = ev.reason.clone().unwrap_or_default();
                let note = ev.note.clone().unwrap_or_default();
                (
                    when,
                    Item {
                        object: format!("{}/{}", key.0, key.1),
                        since: when,
                        message: format!("{reason}: {note}"),
                    },
                )
            })
        })
        .collect();
    items.sort_by_key(|(when, _)| *when);
    // Controllers repeat themselves (a FailedCreate per attempt, a
    // FailedScheduling per pod): the latest of each reason about each kind
    // says it, unless the verdict quotes it already.
    let mut seen: BTreeSet<(String, String)> = quoted
        .iter()
        .map(|i| (String::new(), i.message.clone()))
        .collect();
    items.reverse();
    items.retain(|(_, item)| {
        let kind = item.object.split_once('/').map_or("", |(k, _)| k);
        let (reason, note) = item.message.split_once(": ").unwrap_or(("", &item.message));
        !seen.contains(&(String::new(), note.to_string()))
            && seen.insert((kind.to_string(), reason.to_string()))
    });
    items.reverse();
    // The latest few: the evidence, not the history.
    let skip = items.len().saturating_sub(MAX_EVENTS);
    items.into_iter().skip(skip).map(|(_, i)| i).collect()
}

/// How many Events the evidence quotes.
const MAX_EVENTS: usize = 8;

/// An autoscaler that cannot compute its metrics (it then holds the replica
/// count where it is): worth saying even on a Ready runtime.
fn autoscaler_warning(e: &Evidence) -> Option<String> {
    let Some(Read::Got(Some(hpa))) = &e.autoscaler else {
        return None;
    };
    let c = hpa
        .status
        .as_ref()?
        .conditions
        .as_deref()?
        .iter()
        .find(|c| c.type_ == "ScalingActive" && status_is(c, ConditionStatus::False))?;
    Some(format!(
        "the HorizontalPodAutoscaler cannot scale ({}): {} (is metrics-server installed?)",
        safe(c.reason.as_deref().unwrap_or_default()),
        safe(c.message.as_deref().unwrap_or_default())
    ))
}

fn note_unread<T>(unread: &mut Vec<String>, read: &Read<T>, what: &str) {
    match read {
        Read::Got(_) => {}
        Read::Forbidden(request) => unread.push(format!(
            "{what}: forbidden to {request}; diagnosed without {}",
            if what.ends_with('s') { "them" } else { "it" }
        )),
        Read::Failed(error) => unread.push(format!("{what}: {}", safe(error))),
    }
}

#[cfg(test)]
mod tests;
