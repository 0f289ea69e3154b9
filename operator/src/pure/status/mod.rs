//! Pure projection of a runtime's status from what the reconcile observed:
//! the runtime (whose `.status` is the previous status), the managed
//! Deployment, the Secret reference check, the reconcile's own failure and
//! the clock.
//!
//! One module per concern: [`observed`] reads the Deployment, [`rollout`]
//! classifies its rollout, [`configuration`], [`health`] and [`upgrade`]
//! decide the conditions, [`conditions`] does the bookkeeping every condition
//! shares.
//!
//! Choices where the contract is silent:
//! - `readyReplicas`/`availableReplicas` are `None` without a Deployment and
//!   `0` when the Deployment's status omits them; `desiredReplicas` and
//!   `endpoint` are always set (the endpoint only lacks when the runtime has
//!   no namespace, which a stored object always has).
//! - A missing or unchecked Secret outranks a reconcile error: nothing was
//!   applied, so there is nothing that could have failed.
//! - `Available` reads the Deployment whatever blocks us (an old Deployment
//!   may still serve); for a desired count of 0 its `False` reason is
//!   `ScaledToZero` even when nothing exists yet.
//! - A `ProgressDeadlineExceeded` on the Deployment counts only while some
//!   replica it asks for is unavailable, and only if it was set after the
//!   rollout the operator follows began (`Progressing` turned `True`): after
//!   going back to an earlier template the controller keeps the old verdict
//!   for a moment (see [`rollout::Rollout::Failed`]).
//! - A rollout at zero replicas completes the way Kubernetes says it does
//!   (`Ready=True/ScaledToZero`), but it ran no pod of the image: an image
//!   change while scaled to zero stays `UpgradeInProgress`, and
//!   `lastSuccessfulImage` does not move, until a replica is ready.
//! - `Ready` is stricter than the contract's four conditions, on purpose
//!   (docs/src/development/design.md): the desired spec is fully rolled out
//!   and serving. Every desired replica must run the current pod template
//!   and be ready and available; surplus old pods that still drain do not
//!   hold it back (see
//!   [`rollout::serves`]). During an upgrade it is `False/RuntimeNotReady`
//!   while `Available` stays `True` on the old pods.
//! - A Deployment generation the controller has not acted on yet is a
//!   rollout only when its pod template differs from the one the last status
//!   recorded (`observedTemplateHash`): an annotation on the Deployment or a
//!   scale bumps the generation without changing what the pods run, and is
//!   judged by the counts, so it neither flaps `Ready` nor emits an Event.
//! - `Stalled` follows kstatus (see [`stalled`]).
//! - `observedGeneration` (the status's and every condition's) is the
//!   generation of the runtime this projection read: written only after that
//!   generation was processed.
//! - While the configuration is invalid nothing is applied, so `Upgrading`
//!   keeps its previous value; only a new desired image starts an upgrade
//!   (`UpgradeInProgress`), which then cannot complete or fail until the
//!   configuration is valid again (see [`upgrade`]).
//! - A Deployment that waits for a turn to roll out a template only a new
//!   operator version brings (see [`crate::pure::turns`]) makes `Progressing`
//!   `True/WaitingForTurn`: a change is due and will come by itself; `Ready`
//!   and `Available` still judge the pods that serve.
//! - Timestamps are whole seconds, as `metav1.Time` stores them.
//! - A suspended runtime (see [`suspended`]) reports the Deployment as it is:
//!   `Ready` and `Available` say whether it serves, `Progressing` is
//!   `False/Suspended` (nothing the operator does moves it), and an upgrade
//!   asked for meanwhile stays where it is, like one blocked by an invalid
//!   configuration, until the runtime is resumed. `observedGeneration` moves
//!   as ever: the operator read the spec, and says it does not apply it.
//!   `desiredReplicas` is the Deployment's own count then (a hand scale
//!   included), so Ready judges the Deployment as it runs.

pub mod basis;
pub mod conditions;
pub mod configuration;
pub mod health;
pub mod observed;
pub mod rollout;
pub mod stalled;
pub mod suspended;
pub mod upgrade;
pub mod waiting;

#[cfg(test)]
mod tests;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use trussium_api::{ConditionStatus, TrussiumRuntime, TrussiumRuntimeStatus, condition_type};

use crate::pure::config::OperatorConfig;
use crate::pure::references::ReferenceCheck;
use conditions::Verdict;
use health::{Blocker, Observation};
pub use observed::ObservedDeployment;
use rollout::{Recorded, Rollout};
use upgrade::Progress;

/// Everything the status depends on.
pub struct StatusInput<'a> {
    /// Its `.status` is the previous status.
    pub runtime: &'a TrussiumRuntime,
    /// The managed Deployment as observed after apply (`None` if absent).
    pub deployment: Option<&'a Deployment>,
    pub references: &'a ReferenceCheck,
    /// Set when applying/deleting an owned object failed this reconcile: a
    /// one-line, secret-free message.
    pub reconcile_error: Option<&'a str>,
    /// Set when that failure will not pass by itself (see [`stalled`]); its
    /// message then stands for `reconcile_error`.
    pub stall: Option<&'a stalled::Stall>,
    pub config: &'a OperatorConfig,
    /// Set while the Deployment waits for a turn to roll out the template
    /// a new operator version builds (see [`crate::pure::turns`]).
    pub waiting: Option<&'a crate::pure::turns::Waiting>,
    pub now: k8s_openapi::jiff::Timestamp,
}

/// The status the runtime should report now.
pub fn project(input: &StatusInput) -> TrussiumRuntimeStatus {
    let rt = input.runtime;
    let empty = TrussiumRuntimeStatus::default();
    let previous = rt.status.as_ref().unwrap_or(&empty);
    let namespace = rt.metadata.namespace.as_deref();
    let generation = rt.metadata.generation;

    let observed = input.deployment.map(ObservedDeployment::from);
    let suspension = trussium_api::suspension::suspension(&rt.metadata);
    let desired_replicas = desired_replicas(rt, observed.as_ref());
    let desired_image = rt.spec.image.reference();
    let current_image = observed.as_ref().and_then(|d| d.image.clone());
    let rollout = Rollout::of(observed.as_ref(), desired_replicas, recorded(previous));

    let configuration = configuration::verdict(input.references, namespace.unwrap_or_default());
    let reconcile_error = input
        .stall
        .map(|stall| stall.message.as_str())
        .or(input.reconcile_error);
    let blocker = if !configuration.status {
        Some(Blocker::Configuration(&configuration.message))
    } else {
        reconcile_error.map(Blocker::Reconcile)
    };
    let health = health::assess(
        blocker,
        Observation {
            deployment: observed.as_ref(),
            rollout: &rollout,
            desired: desired_replicas,
        },
    );
    let progress = if configuration.status && !suspension.is_suspended() {
        Progress::Observed {
            current: current_image.as_deref(),
            rollout: &rollout,
            replicas: desired_replicas,
        }
    } else {
        Progress::Blocked
    };
    let upgrade = upgrade::assess(previous, &desired_image, progress);
    let stalled = stalled::verdict(
        &configuration,
        input.stall,
        reconcile_error,
        &rollout,
        observed.as_ref().map_or("", |d| d.name.as_str()),
    );

    let progressing = if suspension.is_suspended() {
        suspended::progressing()
    } else if let Some(waiting) = input.waiting {
        waiting::progressing(waiting)
    } else {
        health.progressing
    };
    let verdicts: [(&str, Verdict); 7] = [
        (condition_type::CONFIGURATION_VALID, configuration.clone()),
        (condition_type::PROGRESSING, progressing),
        (condition_type::AVAILABLE, health.available),
        (condition_type::READY, health.ready),
        (condition_type::DEGRADED, health.degraded),
        (condition_type::UPGRADING, upgrade.verdict),
        (condition_type::STALLED, stalled),
    ];
    let mut conditions = all_conditions(&previous.conditions, verdicts, generation, input.now);
    if let Some(verdict) = suspended::verdict(&suspension, rt.metadata.name.as_deref()) {
        let now = conditions::timestamp(input.now);
        conditions.push(conditions::build(
            &previous.conditions,
            condition_type::SUSPENDED,
            verdict,
            generation,
            &now,
        ));
    }

    TrussiumRuntimeStatus {
        observed_generation: generation,
        desired_replicas: Some(desired_replicas),
        ready_replicas: observed.as_ref().map(|d| d.ready_replicas),
        available_replicas: observed.as_ref().map(|d| d.available_replicas),
        desired_image: Some(desired_image),
        current_image,
        last_successful_image: upgrade.last_successful_image,
        endpoint: namespace.map(|ns| endpoint(rt, ns, &input.config.cluster_domain)),
        observed_template_hash: observed_template_hash(previous, observed.as_ref()),
        restarted_at: observed.as_ref().and_then(|d| d.restarted_at.clone()),
        conditions,
        // Kept as stored: only a status write moves it (see `announcement`).
        report_sequence: previous.report_sequence,
    }
}

/// The conditions in the order of `verdicts`, each built on its previous
/// self (see [`conditions::build`]).
fn all_conditions(
    previous: &[Condition],
    verdicts: [(&str, Verdict); 7],
    generation: Option<i64>,
    now: k8s_openapi::jiff::Timestamp,
) -> Vec<Condition> {
    let now = conditions::timestamp(now);
    verdicts
        .into_iter()
        .map(|(type_, verdict)| conditions::build(previous, type_, verdict, generation, &now))
        .collect()
}

/// `spec.replicas`, or the Deployment's `spec.replicas` while someone else
/// owns the count: the HPA while autoscaling is enabled, whoever scaled it by
/// hand while the runtime is suspended (nothing converges it to the spec
/// then). Falls back to `spec.replicas` until a Deployment exists.
pub fn desired_replicas(rt: &TrussiumRuntime, deployment: Option<&ObservedDeployment>) -> i32 {
    let autoscaling = rt.spec.autoscaling.as_ref().is_some_and(|a| a.enabled);
    let suspended = trussium_api::suspension::suspension(&rt.metadata).is_suspended();
    match deployment.and_then(|d| d.spec_replicas) {
        Some(chosen) if autoscaling || suspended => chosen,
        _ => rt.spec.replicas,
    }
}

/// What the previous status says of the rollout in flight.
fn recorded(previous: &TrussiumRuntimeStatus) -> Recorded<'_> {
    let progressing = previous
        .condition(condition_type::PROGRESSING)
        .filter(|c| ConditionStatus::parse(&c.status) == ConditionStatus::True);
    Recorded {
        template: previous.observed_template_hash.as_deref(),
        progressing_since: progressing.map(|c| c.last_transition_time.0),
    }
}

/// The template the Deployment's counts describe: the current one once its
/// controller has acted on the latest generation, else the one recorded
/// before (`None` without a Deployment).
fn observed_template_hash(
    previous: &TrussiumRuntimeStatus,
    deployment: Option<&ObservedDeployment>,
) -> Option<String> {
    let d = deployment?;
    if d.generation_pending() {
        previous.observed_template_hash.clone()
    } else {
        d.template_hash.clone()
    }
}

/// `http://<name>.<namespace>.svc.<cluster-domain>:<service.port>`.
fn endpoint(rt: &TrussiumRuntime, namespace: &str, cluster_domain: &str) -> String {
    let name = rt.metadata.name.as_deref().unwrap_or_default();
    let domain = cluster_domain.trim_end_matches('.');
    format!(
        "http://{name}.{namespace}.svc.{domain}:{}",
        rt.spec.service.port
    )
}

/// Whether writing `b` over a stored `a` would change anything.
///
/// Every field counts, `lastTransitionTime` included: [`project`] preserves
/// it while a condition's status holds, so it differs only when a status
/// flipped, or when a stored time needs repair. Times are compared to the
/// second (all `metav1.Time` keeps) and conditions by type, not by position,
/// like the list-map the API declares.
pub fn semantically_equal(a: &TrussiumRuntimeStatus, b: &TrussiumRuntimeStatus) -> bool {
    // Destructured without `..`: a new status field must be considered here.
    let TrussiumRuntimeStatus {
        observed_generation,
        desired_replicas,
        ready_replicas,
        available_replicas,
        desired_image,
        current_image,
        last_successful_image,
        endpoint,
        observed_template_hash,
        restarted_at,
        conditions,
        // Bookkeeping of the writes themselves, not something observed.
        report_sequence: _,
    } = a;
    *observed_generation == b.observed_generation
        && *desired_replicas == b.desired_replicas
        && *ready_replicas == b.ready_replicas
        && *available_replicas == b.available_replicas
        && *desired_image == b.desired_image
        && *current_image == b.current_image
        && *last_successful_image == b.last_successful_image
        && *endpoint == b.endpoint
        && *observed_template_hash == b.observed_template_hash
        && *restarted_at == b.restarted_at
        && same_conditions(conditions, &b.conditions)
}

/// Whether replacing a stored `a` by `b` only says how far a rollout has got:
/// the replica counts, the observed template, and the messages of
/// `Progressing`, `Available` and `Ready` (and `Progressing`'s reason while it
/// stays `True`: the Deployment's controller has observed the change or not
/// yet). No condition flips, no other reason changes, nothing else moves.
///
/// Such a write may wait (see `controller::report`): the next real
/// transition, usually `Ready`, carries the counts anyway.
pub fn only_progress_differs(a: &TrussiumRuntimeStatus, b: &TrussiumRuntimeStatus) -> bool {
    // Destructured without `..`: a new status field must be considered here.
    let TrussiumRuntimeStatus {
        observed_generation,
        desired_replicas,
        // Progress.
        ready_replicas: _,
        available_replicas: _,
        observed_template_hash: _,
        desired_image,
        current_image,
        last_successful_image,
        endpoint,
        restarted_at,
        conditions,
        report_sequence: _,
    } = a;
    *observed_generation == b.observed_generation
        && *desired_replicas == b.desired_replicas
        && *restarted_at == b.restarted_at
        && *desired_image == b.desired_image
        && *current_image == b.current_image
        && *last_successful_image == b.last_successful_image
        && *endpoint == b.endpoint
        && conditions.len() == b.conditions.len()
        && conditions.iter().all(|c| {
            b.conditions
                .iter()
                .any(|d| d.type_ == c.type_ && same_but_progress(c, d))
        })
}

fn same_but_progress(a: &Condition, b: &Condition) -> bool {
    let progress_message = [
        condition_type::PROGRESSING,
        condition_type::AVAILABLE,
        condition_type::READY,
    ]
    .contains(&a.type_.as_str());
    let progress_reason = a.type_ == condition_type::PROGRESSING
        && ConditionStatus::parse(&a.status) == ConditionStatus::True;
    a.status == b.status
        && a.observed_generation == b.observed_generation
        && a.last_transition_time.0.as_second() == b.last_transition_time.0.as_second()
        && (progress_reason || a.reason == b.reason)
        && (progress_message || a.message == b.message)
}

fn same_conditions(a: &[Condition], b: &[Condition]) -> bool {
    let covered = |x: &[Condition], y: &[Condition]| {
        x.iter()
            .all(|c| y.iter().any(|d| d.type_ == c.type_ && same_condition(c, d)))
    };
    a.len() == b.len() && covered(a, b) && covered(b, a)
}

fn same_condition(a: &Condition, b: &Condition) -> bool {
    a.type_ == b.type_
        && a.status == b.status
        && a.reason == b.reason
        && a.message == b.message
        && a.observed_generation == b.observed_generation
        && a.last_transition_time.0.as_second() == b.last_transition_time.0.as_second()
}
