//! The `TrussiumRuntime` status: what the operator observed and reports.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::KubeSchema;
use serde::{Deserialize, Serialize};

/// Observed state of a TrussiumRuntime, projected from its managed Deployment.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TrussiumRuntimeStatus {
    /// The most recent metadata.generation the operator processed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Replicas the operator converges to: spec.replicas, or the HPA's choice
    /// while autoscaling is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desired_replicas: Option<i32>,
    /// Ready runtime replicas reported by the managed Deployment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i32>,
    /// Available runtime replicas reported by the managed Deployment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_replicas: Option<i32>,
    /// Fully rendered image requested by the current spec.image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desired_image: Option<String>,
    /// Image currently configured on the managed Deployment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_image: Option<String>,
    /// Image whose Deployment rollout most recently completed successfully.
    /// Unchanged while an upgrade progresses and after it fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_successful_image: Option<String>,
    /// In-cluster HTTP endpoint of the runtime Service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Fingerprint of the managed Deployment's pod template that its
    /// controller last reported on: a Deployment generation bump that keeps
    /// this template (an annotation, a scale) is not a rollout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_template_hash: Option<String>,
    /// The restart (annotation runtime.trussium.io/restartedAt) the managed
    /// Deployment's pod template carries: the last one applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarted_at: Option<String>,
    /// Standard Kubernetes conditions: ConfigurationValid, Progressing,
    /// Available, Ready, Degraded, Upgrading and Stalled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[x_kube(merge_strategy = ListMerge::Map(vec!["type".into()]))]
    pub conditions: Vec<Condition>,
    /// Counts the operator's status writes. The Events of a transition are
    /// named after the runtime's uid, this count in the stored status and
    /// the transition, so an Event published just before a crash is
    /// recognised when the operator retries, never repeated nor lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_sequence: Option<i64>,
}

impl TrussiumRuntimeStatus {
    /// The condition of the given type, if reported.
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }

    /// The status of the condition of the given type, if reported.
    pub fn condition_status(&self, type_: &str) -> Option<ConditionStatus> {
        self.condition(type_)
            .map(|c| ConditionStatus::parse(&c.status))
    }
}

/// A condition's `status`, as Kubernetes spells it on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

impl ConditionStatus {
    /// Every status, in the order Kubernetes documents them.
    pub const ALL: [ConditionStatus; 3] = [
        ConditionStatus::True,
        ConditionStatus::False,
        ConditionStatus::Unknown,
    ];

    /// `True`, `False` or `Unknown`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
        }
    }

    /// A status read from the wire. Anything but `True` and `False` (the
    /// spelling is exact) is `Unknown`, as `kubectl wait` and kstatus read it.
    pub fn parse(status: &str) -> ConditionStatus {
        match status {
            "True" => ConditionStatus::True,
            "False" => ConditionStatus::False,
            _ => ConditionStatus::Unknown,
        }
    }
}

impl From<bool> for ConditionStatus {
    fn from(holds: bool) -> Self {
        if holds {
            ConditionStatus::True
        } else {
            ConditionStatus::False
        }
    }
}

impl std::fmt::Display for ConditionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Condition types, in the order they are reported.
pub mod condition_type {
    pub const CONFIGURATION_VALID: &str = "ConfigurationValid";
    pub const PROGRESSING: &str = "Progressing";
    pub const AVAILABLE: &str = "Available";
    pub const READY: &str = "Ready";
    pub const DEGRADED: &str = "Degraded";
    pub const UPGRADING: &str = "Upgrading";
    /// kstatus (Flux, kpt): True while the runtime cannot make progress
    /// without a change.
    pub const STALLED: &str = "Stalled";

    /// Reported only while the runtime carries the suspend annotation (see
    /// `suspension`): True while suspended, False while the annotation's
    /// value is ignored.
    pub const SUSPENDED: &str = "Suspended";

    /// The conditions every status reports.
    pub const ALL: [&str; 7] = [
        CONFIGURATION_VALID,
        PROGRESSING,
        AVAILABLE,
        READY,
        DEGRADED,
        UPGRADING,
        STALLED,
    ];

    /// Every condition the operator may report: [`ALL`], then those it
    /// reports only at times.
    pub const WRITTEN: [&str; 8] = [
        CONFIGURATION_VALID,
        PROGRESSING,
        AVAILABLE,
        READY,
        DEGRADED,
        UPGRADING,
        STALLED,
        SUSPENDED,
    ];
}

/// Declares string constants once, and `ALL`, the list of them in that order:
/// code that must know every one (the manual's checks) reads `ALL` instead of
/// keeping a copy.
macro_rules! constants_with_all {
    ($($(#[$attr:meta])* $name:ident = $value:literal;)*) => {
        $($(#[$attr])* pub const $name: &str = $value;)*
        /// Every constant of this module, in declaration order.
        pub const ALL: &[&str] = &[$($name),*];
    };
}

/// Stable condition reasons of the API contract.
pub mod reason {
    constants_with_all! {
        // ConfigurationValid
        REFERENCES_RESOLVED = "ReferencesResolved";
        SECRET_NOT_FOUND = "SecretNotFound";
        REFERENCE_CHECK_FAILED = "ReferenceCheckFailed";
        /// The spec breaks a rule of the API that an object stored before
        /// the rule existed may still break (see `validation`); also a
        /// `Stalled` reason.
        INVALID_SPEC = "InvalidSpec";
        // Progressing
        DEPLOYMENT_PROGRESSING = "DeploymentProgressing";
        DEPLOYMENT_GENERATION_PENDING = "DeploymentGenerationPending";
        RECONCILIATION_COMPLETE = "ReconciliationComplete";
        CONFIGURATION_INVALID = "ConfigurationInvalid";
        DEPLOYMENT_FAILED = "DeploymentFailed";
        SCALED_TO_ZERO = "ScaledToZero";
        RECONCILIATION_FAILED = "ReconciliationFailed";
        /// A new pod template that only the operator's upgrade brings waits
        /// for a turn (`--max-concurrent-rollouts`).
        WAITING_FOR_TURN = "WaitingForTurn";
        // Available
        RUNTIME_AVAILABLE = "RuntimeAvailable";
        RUNTIME_UNAVAILABLE = "RuntimeUnavailable";
        // Ready
        RUNTIME_READY = "RuntimeReady";
        RUNTIME_NOT_READY = "RuntimeNotReady";
        // Degraded
        PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";
        REPLICA_FAILURE = "ReplicaFailure";
        AS_EXPECTED = "AsExpected";
        // Upgrading
        NO_UPGRADE = "NoUpgrade";
        UPGRADE_IN_PROGRESS = "UpgradeInProgress";
        UPGRADE_COMPLETE = "UpgradeComplete";
        UPGRADE_FAILED = "UpgradeFailed";
        // Stalled: True with the cause's reason (ProgressDeadlineExceeded,
        // SecretNotFound, InvalidSpec, or one of the four below); False with
        // AsExpected, or Retrying while the operator retries a failure that
        // may pass on its own.
        RETRYING = "Retrying";
        /// The API server refuses an owned object in a way it will repeat
        /// (invalid, a bad request, a body that does not decode).
        APPLY_REFUSED = "ApplyRefused";
        /// Someone else's object holds an owned object's name.
        NAME_CONFLICT = "NameConflict";
        /// The API server refuses the runtime's NetworkPolicy: the Deployment
        /// is held back (fail closed).
        NETWORK_POLICY_REFUSED = "NetworkPolicyRefused";
        /// Someone else's NetworkPolicy holds the runtime's policy name: the
        /// Deployment is held back (fail closed).
        NETWORK_POLICY_CONFLICT = "NetworkPolicyConflict";
        // Suspended: True while the runtime is suspended (also Progressing's
        // False reason then); False while the annotation's value is ignored.
        SUSPENDED = "Suspended";
        SUSPEND_VALUE_IGNORED = "SuspendValueIgnored";
    }
}

#[cfg(test)]
mod tests {
    use super::{ConditionStatus, condition_type};

    #[test]
    fn every_written_condition_starts_with_those_always_reported() {
        assert_eq!(
            condition_type::WRITTEN[..condition_type::ALL.len()],
            condition_type::ALL
        );
        assert_eq!(
            condition_type::WRITTEN.last(),
            Some(&condition_type::SUSPENDED)
        );
    }

    #[test]
    fn condition_statuses_read_back_as_written() {
        for status in ConditionStatus::ALL {
            assert_eq!(ConditionStatus::parse(status.as_str()), status);
            assert_eq!(status.to_string(), status.as_str());
        }
        assert_eq!(ConditionStatus::from(true).as_str(), "True");
        assert_eq!(ConditionStatus::from(false).as_str(), "False");
        // Only the exact spelling counts.
        assert_eq!(ConditionStatus::parse("true"), ConditionStatus::Unknown);
        assert_eq!(ConditionStatus::parse(""), ConditionStatus::Unknown);
    }
}
