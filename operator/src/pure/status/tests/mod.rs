//! Scenario tests: sequences of reconciles over a simulated Deployment, each
//! new status fed back as the previous one with an advancing clock.
//!
//! Every [`World::reconcile`] also checks the invariants that must hold after
//! any step: six conditions in contract order, each with the runtime's
//! generation and a bounded, non-empty message, and that reconciling again
//! (or restarting the operator) changes nothing and emits nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bookkeeping;
mod configuration;
mod forged;
mod invalid_spec;
mod restart;
mod rollout;
mod suspended;
mod upgrade;
mod waiting;

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::jiff::Timestamp;
use serde_json::json;
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus, condition_type};

use super::{StatusInput, only_progress_differs, project, semantically_equal};
use crate::pure::config::OperatorConfig;
use crate::pure::events::{EventType, Reason, Transition, transitions};
use crate::pure::references::ReferenceCheck;

pub const REPO: &str = "ghcr.io/trussiumhq/trussium";
pub const SECRET: &str = "openai-credentials";
pub const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

pub fn image(tag: &str) -> String {
    format!("{REPO}:{tag}")
}

const RUNTIME: &str = r#"
apiVersion: runtime.trussium.io/v1beta1
kind: TrussiumRuntime
metadata:
  name: private-ai
  namespace: trussium
  generation: 1
spec:
  image:
    repository: ghcr.io/trussiumhq/trussium
    tag: v1.22.0
  provider:
    type: openai
    model: gpt-5
    credentialsSecretRef:
      name: openai-credentials
      key: api-key
"#;

/// The managed Deployment as its controller would show it.
#[derive(Clone, Debug)]
pub struct FakeDeployment {
    pub generation: i64,
    /// 0: the controller has not looked at it yet.
    pub observed: i64,
    pub spec_replicas: i32,
    pub image: String,
    /// status.replicas, updatedReplicas, readyReplicas, availableReplicas.
    pub counts: [i32; 4],
    /// status.unavailableReplicas.
    pub unavailable: i32,
    /// Reason of the Progressing condition, if any.
    pub progressing: Option<&'static str>,
    /// Its lastUpdateTime (seconds since the epoch).
    pub progressing_at: i64,
    /// Message of a ReplicaFailure=True condition, if any.
    pub replica_failure: Option<&'static str>,
    /// A pod template annotation (as `kubectl rollout restart` sets one).
    pub restarted_at: Option<String>,
    /// The restart the operator put into the pod template.
    pub restart: Option<String>,
}

impl FakeDeployment {
    pub fn to_k8s(&self) -> Deployment {
        let [replicas, updated, ready, available] = self.counts;
        // The API server omits zero counts.
        let count = |n: i32| (n != 0).then_some(n);
        let mut conditions = Vec::new();
        if let Some(reason) = self.progressing {
            let status = if reason == "ProgressDeadlineExceeded" {
                "False"
            } else {
                "True"
            };
            let at = Timestamp::from_second(self.progressing_at).unwrap();
            conditions.push(
                json!({"type": "Progressing", "status": status, "reason": reason,
                "message": format!("ReplicaSet \"private-ai-x\": {reason}"),
                "lastUpdateTime": at.to_string()}),
            );
        }
        if let Some(message) = self.replica_failure {
            conditions.push(
                json!({"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
                "message": message}),
            );
        }
        let annotations: BTreeMap<&str, &String> = [
            (
                "kubectl.kubernetes.io/restartedAt",
                self.restarted_at.as_ref(),
            ),
            ("runtime.trussium.io/restartedAt", self.restart.as_ref()),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect();
        let annotations = (!annotations.is_empty()).then_some(annotations);
        serde_json::from_value(json!({
            "metadata": {"name": "private-ai", "namespace": "trussium", "generation": self.generation},
            "spec": {
                "replicas": self.spec_replicas,
                "selector": {"matchLabels": {"app.kubernetes.io/instance": "private-ai"}},
                "template": {
                    "metadata": {"annotations": annotations},
                    "spec": {"containers": [{"name": "runtime", "image": self.image}]}
                }
            },
            "status": {
                "observedGeneration": (self.observed != 0).then_some(self.observed),
                "replicas": count(replicas),
                "updatedReplicas": count(updated),
                "readyReplicas": count(ready),
                "availableReplicas": count(available),
                "unavailableReplicas": count(self.unavailable),
                "conditions": conditions,
            }
        }))
        .unwrap()
    }
}

/// One reconcile's outcome.
pub struct Step {
    pub status: TrussiumRuntimeStatus,
    pub events: Vec<Transition>,
}

pub struct World {
    pub rt: TrussiumRuntime,
    pub deployment: Option<FakeDeployment>,
    pub references: ReferenceCheck,
    pub reconcile_error: Option<String>,
    pub config: OperatorConfig,
    /// Seconds since the epoch; advances by 10 per reconcile.
    pub clock: i64,
    /// Every Event emitted so far.
    pub log: Vec<Transition>,
    /// Set while the Deployment waits for a turn to roll.
    pub waiting: Option<crate::pure::turns::Waiting>,
}

impl World {
    pub fn new() -> World {
        World::from_yaml(RUNTIME)
    }

    pub fn from_yaml(yaml: &str) -> World {
        World {
            rt: serde_yaml::from_str(yaml).unwrap(),
            deployment: None,
            references: resolved(),
            reconcile_error: None,
            config: OperatorConfig::default(),
            clock: 1_700_000_000,
            log: Vec::new(),
            waiting: None,
        }
    }

    pub fn status(&self) -> &TrussiumRuntimeStatus {
        self.rt.status.as_ref().unwrap()
    }

    pub fn generation(&self) -> i64 {
        self.rt.metadata.generation.unwrap()
    }

    fn bump(&mut self) {
        self.rt.metadata.generation = Some(self.generation() + 1);
    }

    pub fn set_tag(&mut self, tag: &str) {
        self.rt.spec.image.tag = Some(tag.into());
        self.rt.spec.image.digest = None;
        self.bump();
    }

    pub fn set_digest(&mut self, digest: &str) {
        self.rt.spec.image.digest = Some(digest.into());
        self.rt.spec.image.tag = None;
        self.bump();
    }

    /// Sets the suspend annotation to `value`, or removes it; with a reason.
    pub fn annotate_suspended(&mut self, value: Option<&str>, reason: Option<&str>) {
        let annotations = self.rt.metadata.annotations.get_or_insert_default();
        for (key, value) in [
            (trussium_api::suspension::SUSPENDED, value),
            (trussium_api::suspension::SUSPEND_REASON, reason),
        ] {
            match value {
                Some(v) => annotations.insert(key.to_string(), v.to_string()),
                None => annotations.remove(key),
            };
        }
    }

    /// Asks for a restart, as `kubectl trussium restart` does.
    pub fn request_restart(&mut self, at: &str) {
        self.rt.metadata.annotations.get_or_insert_default().insert(
            trussium_api::restart::RESTARTED_AT.to_string(),
            at.to_string(),
        );
    }

    pub fn scale(&mut self, replicas: i32) {
        self.rt.spec.replicas = replicas;
        self.bump();
    }

    /// What the reconciler's apply does to the Deployment: our image, and our
    /// replica count unless the HPA owns it. A changed spec bumps its
    /// generation; the controller has not seen it yet.
    pub fn apply(&mut self) {
        let image = self.rt.spec.image.reference();
        let autoscaling = self.rt.spec.autoscaling.as_ref().is_some_and(|a| a.enabled);
        let ours = self.rt.spec.replicas;
        let restart = trussium_api::restart::restarted_at(&self.rt.metadata).map(str::to_string);
        match &mut self.deployment {
            None => {
                self.deployment = Some(FakeDeployment {
                    generation: 1,
                    observed: 0,
                    spec_replicas: ours,
                    image,
                    counts: [0; 4],
                    unavailable: 0,
                    progressing: None,
                    progressing_at: 0,
                    replica_failure: None,
                    restarted_at: None,
                    restart: restart.clone(),
                })
            }
            Some(d) => {
                let replicas = if autoscaling { d.spec_replicas } else { ours };
                if d.image != image || d.spec_replicas != replicas || d.restart != restart {
                    d.generation += 1;
                    d.image = image;
                    d.spec_replicas = replicas;
                    d.restart = restart;
                }
            }
        }
    }

    /// Someone else changes the Deployment: a new generation that the
    /// controller has not acted on yet, with `template` changing what the
    /// pods run (`kubectl rollout restart`) or not (an annotation on the
    /// Deployment, which bumps its generation too).
    pub fn touch_deployment(&mut self, restart: Option<&str>) {
        let d = self.deployment_mut();
        d.generation += 1;
        if let Some(at) = restart {
            d.restarted_at = Some(at.to_string());
        }
    }

    /// The controller acted on the latest generation without changing any
    /// count (what it does for an annotation).
    pub fn observed(&mut self) {
        let d = self.deployment_mut();
        d.observed = d.generation;
    }

    fn deployment_mut(&mut self) -> &mut FakeDeployment {
        self.deployment.as_mut().expect("a Deployment")
    }

    /// The controller observed the current generation and shows these counts
    /// (replicas, updated, ready, available), still progressing.
    pub fn rolling(&mut self, counts: [i32; 4]) {
        let now = self.controller_now();
        let d = self.deployment_mut();
        d.observed = d.generation;
        d.counts = counts;
        d.unavailable = unavailable(counts);
        d.progressing = Some("ReplicaSetUpdated");
        d.progressing_at = now;
    }

    /// The controller finished the rollout of the current generation.
    pub fn rolled_out(&mut self) {
        let now = self.controller_now();
        let d = self.deployment_mut();
        d.observed = d.generation;
        d.counts = [d.spec_replicas; 4];
        d.unavailable = 0;
        d.progressing = Some("NewReplicaSetAvailable");
        d.progressing_at = now;
    }

    /// The current generation's rollout exceeded its progress deadline, with
    /// these counts.
    pub fn deadline_exceeded(&mut self, counts: [i32; 4]) {
        let now = self.controller_now();
        let d = self.deployment_mut();
        d.observed = d.generation;
        d.counts = counts;
        d.unavailable = unavailable(counts);
        d.progressing = Some("ProgressDeadlineExceeded");
        d.progressing_at = now;
    }

    /// Going back to an earlier pod template: the controller adopted that
    /// template's ReplicaSet, which already has every replica available, and
    /// scaled the failed one down, but still shows the old
    /// `ProgressDeadlineExceeded` (and the failed pods in `replicas`) for the
    /// current generation until its next sync. Seen on a real control plane.
    pub fn readopted_with_a_stale_deadline(&mut self, counts: [i32; 4]) {
        let d = self.deployment_mut();
        assert_eq!(d.progressing, Some("ProgressDeadlineExceeded"));
        d.observed = d.generation;
        d.counts = counts;
        d.unavailable = 0;
    }

    /// As [`Self::readopted_with_a_stale_deadline`], but the first report
    /// after the adoption also has stale counts: the failed ReplicaSet's pod
    /// is still unavailable in the controller's cache. Seen on a real control
    /// plane for a few milliseconds.
    pub fn readopted_with_stale_counts(&mut self, counts: [i32; 4]) {
        let d = self.deployment_mut();
        assert_eq!(d.progressing, Some("ProgressDeadlineExceeded"));
        d.observed = d.generation;
        d.counts = counts;
        d.unavailable = unavailable(counts);
    }

    /// When the Deployment controller acts: between the last reconcile and
    /// the next.
    fn controller_now(&self) -> i64 {
        self.clock - 5
    }

    /// Creates and rolls out the first Deployment, walking the first rollout.
    pub fn provision(&mut self) {
        self.reconcile();
        self.apply();
        self.reconcile();
        self.rolled_out();
        self.reconcile();
    }

    fn input<'a>(&'a self, deployment: Option<&'a Deployment>, now: i64) -> StatusInput<'a> {
        StatusInput {
            runtime: &self.rt,
            deployment,
            references: &self.references,
            reconcile_error: self.reconcile_error.as_deref(),
            stall: None,
            config: &self.config,
            waiting: self.waiting.as_ref(),
            // Sub-second noise: project must ignore it.
            now: k8s_openapi::jiff::Timestamp::new(now, 123_456_789).unwrap(),
        }
    }

    /// Projects the status, diffs it against the stored one, stores it (as
    /// the reconciler does when it differs) and advances the clock.
    pub fn reconcile(&mut self) -> Step {
        let deployment = self.deployment.as_ref().map(FakeDeployment::to_k8s);
        let status = project(&self.input(deployment.as_ref(), self.clock));
        let events = transitions(self.rt.status.as_ref(), &status);
        check_invariants(&status, self.generation());
        self.rt.status = Some(status.clone());
        self.clock += 10;

        // Reconciling again, or a restarted operator, with nothing new in the
        // cluster: the same status (so no write) and not a single Event.
        let again = project(&self.input(deployment.as_ref(), self.clock + 3600));
        assert!(
            semantically_equal(&status, &again),
            "an unchanged reconcile must not change the status:\n{status:#?}\n{again:#?}"
        );
        assert_eq!(
            transitions(Some(&status), &again),
            vec![],
            "an unchanged reconcile emits nothing"
        );
        // Read back through the API server: still equal.
        let read_back: TrussiumRuntimeStatus =
            serde_json::from_value(serde_json::to_value(&status).unwrap()).unwrap();
        assert!(semantically_equal(&read_back, &status));
        assert_eq!(read_back, status);

        self.log.extend(events.iter().cloned());
        Step { status, events }
    }
}

/// Pods that exist but are not available: what `unavailableReplicas` shows
/// while the ReplicaSets' pods match their desired counts.
fn unavailable([replicas, _, _, available]: [i32; 4]) -> i32 {
    (replicas - available).max(0)
}

pub fn resolved() -> ReferenceCheck {
    ReferenceCheck::Resolved {
        versions: BTreeMap::from([(SECRET.to_string(), "1".to_string())]),
    }
}

pub fn missing(names: &[&str]) -> ReferenceCheck {
    ReferenceCheck::Missing {
        names: names.iter().map(|n| n.to_string()).collect(),
    }
}

fn check_invariants(status: &TrussiumRuntimeStatus, generation: i64) {
    let types: Vec<&str> = status.conditions.iter().map(|c| c.type_.as_str()).collect();
    // Suspended only while the annotation is there, after the seven.
    let always = types.get(..condition_type::ALL.len());
    assert_eq!(
        always,
        Some(&condition_type::ALL[..]),
        "seven conditions in contract order"
    );
    assert!(
        types[condition_type::ALL.len()..].is_empty()
            || types[condition_type::ALL.len()..] == [condition_type::SUSPENDED],
        "{types:?}"
    );
    assert_eq!(status.observed_generation, Some(generation));
    for c in &status.conditions {
        assert_eq!(
            c.observed_generation,
            Some(generation),
            "{} observedGeneration",
            c.type_
        );
        assert!(
            !c.message.is_empty() && c.message.len() <= 1024,
            "{} message",
            c.type_
        );
        assert!(c.status == "True" || c.status == "False");
        assert!(!c.reason.is_empty() && c.reason.chars().all(|ch| ch.is_ascii_alphanumeric()));
        assert!(c.reason.starts_with(|ch: char| ch.is_ascii_uppercase()));
    }
    check_stalled(status);
}

/// Stalled, stated from the other conditions as the design record
/// (docs/src/development/design.md, "Stalled") states it: True
/// exactly for a failed rollout, a missing Secret or an invalid spec, with that cause's
/// reason; Retrying while the operator retries a failure; else AsExpected.
fn check_stalled(status: &TrussiumRuntimeStatus) {
    let of = |type_: &str| {
        let c = status.condition(type_).unwrap();
        format!("{}/{}", c.status, c.reason)
    };
    let expected = if of("ConfigurationValid") == "False/SecretNotFound" {
        "True/SecretNotFound"
    } else if of("ConfigurationValid") == "False/InvalidSpec" {
        "True/InvalidSpec"
    } else if of("ConfigurationValid") == "False/ReferenceCheckFailed"
        || of("Degraded") == "True/ReconciliationFailed"
    {
        "False/Retrying"
    } else if of("Degraded") == "True/ProgressDeadlineExceeded" {
        "True/ProgressDeadlineExceeded"
    } else {
        "False/AsExpected"
    };
    assert_eq!(of("Stalled"), expected, "{status:#?}");
    // A stalled runtime is never Ready, and a Ready one never stalled.
    if of("Stalled").starts_with("True") {
        assert!(of("Ready").starts_with("False"));
    }
}

/// Asserts the six conditions of the contract, in contract order, as
/// `"Status/Reason"` (Stalled is checked on every step by the invariants).
#[track_caller]
pub fn assert_conditions(status: &TrussiumRuntimeStatus, expected: [&str; 6]) {
    let actual: Vec<String> = status
        .conditions
        .iter()
        .filter(|c| {
            ![condition_type::STALLED, condition_type::SUSPENDED].contains(&c.type_.as_str())
        })
        .map(|c| format!("{}/{}", c.status, c.reason))
        .collect();
    let named = |v: Vec<String>| -> Vec<String> {
        condition_type::ALL
            .iter()
            .zip(v)
            .map(|(t, s)| format!("{t}={s}"))
            .collect()
    };
    assert_eq!(
        named(actual),
        named(expected.iter().map(|s| s.to_string()).collect())
    );
}

/// Asserts the Events of one step as `"Normal/Reason"` or `"Warning/Reason"`.
#[track_caller]
pub fn assert_events(events: &[Transition], expected: &[&str]) {
    assert_eq!(kinds(events), expected, "{events:#?}");
}

pub fn kinds(events: &[Transition]) -> Vec<String> {
    events
        .iter()
        .map(|e| format!("{}/{}", e.reason.event_type().as_str(), e.reason))
        .collect()
}

pub fn condition<'a>(
    status: &'a TrussiumRuntimeStatus,
    type_: &str,
) -> &'a k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
    status.condition(type_).unwrap()
}

/// The conditions of a healthy runtime whose first rollout completed.
pub const HEALTHY: [&str; 6] = [
    "True/ReferencesResolved",
    "False/ReconciliationComplete",
    "True/RuntimeAvailable",
    "True/RuntimeReady",
    "False/AsExpected",
    "False/NoUpgrade",
];
