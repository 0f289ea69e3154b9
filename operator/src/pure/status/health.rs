//! `Progressing`, `Available`, `Ready` and `Degraded`: what the runtime is
//! doing and whether it serves, from the reference check, the reconcile's own
//! outcome and the Deployment's rollout.

use trussium_api::reason;

use super::conditions::Verdict;
use super::observed::ObservedDeployment;
use super::rollout::Rollout;

/// What stops the operator from converging, in order of precedence.
#[derive(Clone, Copy, Debug)]
pub enum Blocker<'a> {
    /// A referenced Secret is missing or could not be checked; the message is
    /// the `ConfigurationValid` message.
    Configuration(&'a str),
    /// Applying or deleting an owned object failed this reconcile.
    Reconcile(&'a str),
}

/// The four conditions this module decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Health {
    pub progressing: Verdict,
    pub available: Verdict,
    pub ready: Verdict,
    pub degraded: Verdict,
}

/// What the Deployment shows, classified.
#[derive(Clone, Copy, Debug)]
pub struct Observation<'a> {
    pub deployment: Option<&'a ObservedDeployment>,
    pub rollout: &'a Rollout,
    /// Replicas the runtime converges to.
    pub desired: i32,
}

pub fn assess(blocker: Option<Blocker>, seen: Observation) -> Health {
    let available = available(seen);
    match blocker {
        Some(Blocker::Configuration(message)) => Health {
            progressing: Verdict::no(
                reason::CONFIGURATION_INVALID,
                format!("Blocked by invalid configuration: {message}"),
            ),
            available,
            ready: Verdict::no(
                reason::CONFIGURATION_INVALID,
                "Not ready: the configuration is invalid (see ConfigurationValid).",
            ),
            degraded: Verdict::yes(reason::CONFIGURATION_INVALID, message),
        },
        Some(Blocker::Reconcile(error)) => Health {
            progressing: Verdict::no(
                reason::RECONCILIATION_FAILED,
                format!("Applying the runtime's objects failed: {error}"),
            ),
            available,
            ready: Verdict::no(
                reason::RECONCILIATION_FAILED,
                "Not ready: the last reconciliation failed (see Degraded).",
            ),
            degraded: Verdict::yes(
                reason::RECONCILIATION_FAILED,
                format!("Reconciliation failed: {error}"),
            ),
        },
        None => Health {
            progressing: progressing(seen),
            available,
            ready: ready(seen),
            degraded: degraded(seen),
        },
    }
}

/// Available only says whether anything serves; its `False` reason tells an
/// intentional zero (which is not a degradation) from an outage. It reads the
/// Deployment whatever blocks us: an old Deployment may still serve.
fn available(seen: Observation) -> Verdict {
    let count = seen.deployment.map_or(0, |d| d.available_replicas);
    if count >= 1 {
        Verdict::yes(
            reason::RUNTIME_AVAILABLE,
            format!("{} available.", replicas(count)),
        )
    } else if seen.desired == 0 {
        Verdict::no(
            reason::SCALED_TO_ZERO,
            "The runtime is scaled to zero replicas as requested.",
        )
    } else if seen.deployment.is_none() {
        Verdict::no(
            reason::RUNTIME_UNAVAILABLE,
            "No runtime replica is available: the Deployment does not exist.",
        )
    } else {
        Verdict::no(
            reason::RUNTIME_UNAVAILABLE,
            "No runtime replica is available yet.",
        )
    }
}

fn progressing(seen: Observation) -> Verdict {
    match (seen.rollout, seen.deployment) {
        (
            Rollout::GenerationPending {
                generation,
                observed,
            },
            Some(d),
        ) => Verdict::yes(
            reason::DEPLOYMENT_GENERATION_PENDING,
            format!(
                "Rolling out a change to Deployment {}: its controller has not yet observed generation {generation} (it is at {observed}).",
                d.name
            ),
        ),
        (Rollout::Failed { message }, Some(d)) => Verdict::no(
            reason::DEPLOYMENT_FAILED,
            deadline_exceeded(&d.name, message),
        ),
        (Rollout::Complete, _) if seen.desired == 0 => Verdict::no(
            reason::SCALED_TO_ZERO,
            "The runtime is scaled to zero replicas.",
        ),
        (Rollout::Complete, Some(d)) => Verdict::no(
            reason::RECONCILIATION_COMPLETE,
            format!(
                "Deployment {} completed its rollout: {} updated, ready and available.",
                d.name,
                replicas(seen.desired)
            ),
        ),
        (Rollout::Progressing, Some(d)) => Verdict::yes(
            reason::DEPLOYMENT_PROGRESSING,
            format!(
                "Deployment {} is rolling out: {} of {} desired replicas updated, {} ready, {} available, {} in total.",
                d.name,
                d.updated_replicas,
                seen.desired,
                d.ready_replicas,
                d.available_replicas,
                d.replicas
            ),
        ),
        // No Deployment (every other variant needs one).
        _ => Verdict::yes(
            reason::DEPLOYMENT_PROGRESSING,
            "Waiting for the Deployment to be created.",
        ),
    }
}

/// Ready means the desired spec is fully rolled out and serving (stricter
/// than the contract's four conditions, on purpose: see "Ready means fully
/// rolled out and serving" in docs/src/development/design.md): the
/// references are valid (checked by the caller), the Deployment's controller
/// acted on any change of the pod template, and every desired replica runs
/// the current template and is ready and available ([`super::rollout::serves`]).
/// So during an upgrade Ready is `False` while `Available` stays `True`, and
/// `kubectl wait --for=condition=Ready` waits like `kubectl rollout status`.
fn ready(seen: Observation) -> Verdict {
    let Some(d) = seen.deployment else {
        return Verdict::no(
            reason::RUNTIME_NOT_READY,
            "The Deployment does not exist yet.",
        );
    };
    match seen.rollout {
        Rollout::Failed { message } => Verdict::no(
            reason::DEPLOYMENT_FAILED,
            deadline_exceeded(&d.name, message),
        ),
        Rollout::Complete if seen.desired == 0 => Verdict::yes(
            reason::SCALED_TO_ZERO,
            "The requested scale of zero replicas has been reached.",
        ),
        Rollout::Complete => Verdict::yes(
            reason::RUNTIME_READY,
            "All requested runtime replicas are ready and available.",
        ),
        Rollout::GenerationPending { generation, .. } => Verdict::no(
            reason::RUNTIME_NOT_READY,
            with_replica_failure(
                d,
                format!(
                    "Waiting for Deployment {} to roll out generation {generation}: {}",
                    d.name,
                    rollout_progress(d, seen.desired)
                ),
            ),
        ),
        _ if seen.desired == 0 => Verdict::no(
            reason::RUNTIME_NOT_READY,
            format!("Scaling down to zero: {} remaining.", replicas(d.replicas)),
        ),
        _ => Verdict::no(
            reason::RUNTIME_NOT_READY,
            with_replica_failure(
                d,
                format!("Rollout in progress: {}", rollout_progress(d, seen.desired)),
            ),
        ),
    }
}

/// A Ready message that names why pods are missing, when the Deployment
/// says they cannot be created (quota, Pod Security, an admission webhook):
/// the one cause the operator sees without reading pods.
fn with_replica_failure(d: &ObservedDeployment, message: String) -> String {
    match &d.replica_failure {
        Some(failure) => format!("{message} Pods cannot be created: {}", failure.message),
        None => message,
    }
}

/// How far the rollout is, from the Deployment's counts.
fn rollout_progress(d: &ObservedDeployment, desired: i32) -> String {
    let old = d.old_replicas();
    let counts = format!(
        "{} of {desired} desired replicas run the current pod template; {} ready, {} available",
        d.updated_replicas, d.ready_replicas, d.available_replicas
    );
    if old == 0 {
        format!("{counts}.")
    } else {
        format!(
            "{counts} in total, with {} of the previous pod template.",
            replicas(old)
        )
    }
}

/// A failed rollout outranks a replica failure: it is the verdict on the
/// whole rollout. `ReplicaFailure` is read even while a new generation is
/// pending: it reports what the controller cannot do right now (quota,
/// admission), which a spec change rarely cures, and dropping it for a moment
/// would announce a recovery that did not happen.
fn degraded(seen: Observation) -> Verdict {
    let Some(d) = seen.deployment else {
        return as_expected();
    };
    if let Rollout::Failed { message } = seen.rollout {
        return Verdict::yes(
            reason::PROGRESS_DEADLINE_EXCEEDED,
            deadline_exceeded(&d.name, message),
        );
    }
    match &d.replica_failure {
        Some(failure) => Verdict::yes(
            reason::REPLICA_FAILURE,
            format!(
                "Deployment {} cannot create replicas: {}",
                d.name, failure.message
            ),
        ),
        None => as_expected(),
    }
}

fn as_expected() -> Verdict {
    Verdict::no(reason::AS_EXPECTED, "The runtime is operating as expected.")
}

fn deadline_exceeded(name: &str, message: &str) -> String {
    if message.is_empty() {
        format!("Deployment {name} exceeded its progress deadline.")
    } else {
        format!("Deployment {name} exceeded its progress deadline: {message}")
    }
}

fn replicas(n: i32) -> String {
    if n == 1 {
        "1 replica".into()
    } else {
        format!("{n} replicas")
    }
}
