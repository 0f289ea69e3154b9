//! Pure diff of two statuses into the Events that describe the transition.
//!
//! Events come only from the difference between the stored status and the
//! new one. An unchanged reconcile, a status-only update or a restarted
//! operator diffs a status against itself and says nothing; an Event lost
//! after the status write is not repeated either (the status is written
//! first).
//!
//! | Event (type)                     | When                                                                          | Action             |
//! |----------------------------------|-------------------------------------------------------------------------------|--------------------|
//! | `ConfigurationInvalid` (Warning) | ConfigurationValid becomes False, or stays False with another reason/message (¹) | ValidateReferences |
//! | `SuspendValueIgnored` (Warning)  | Suspended becomes False/SuspendValueIgnored, or stays so with another message  | Reconcile          |
//! | `RuntimeSuspended`               | Suspended becomes True                                                        | Suspend            |
//! | `RuntimeResumed`                 | Suspended was True and is no longer (³)                                       | Resume             |
//! | `ReconciliationFailed` (Warning) | Degraded becomes True/ReconciliationFailed, or is so while Stalled becomes True or another True reason (²) | Reconcile |
//! | `RuntimeUpgradeStarted`          | Upgrading becomes True/UpgradeInProgress, or stays so for a new desired image | Upgrade            |
//! | `RuntimeRestartRequested`        | the pod template carries a new restart (`restartedAt`)                        | Restart            |
//! | `RuntimeProgressing`             | Progressing becomes True                                                      | Rollout            |
//! | `RuntimeDegraded` (Warning)      | Degraded becomes True/ProgressDeadlineExceeded or True/ReplicaFailure         | Rollout            |
//! | `RuntimeUpgradeFailed` (Warning) | Upgrading becomes UpgradeFailed                                               | Upgrade            |
//! | `RuntimeRecovered`               | Degraded goes from True to False                                              | Reconcile          |
//! | `RuntimeReady`                   | Ready becomes True/RuntimeReady                                               | Rollout            |
//! | `RuntimeScaledToZero`            | Ready becomes True/ScaledToZero                                               | Scale              |
//! | `RuntimeUpgradeCompleted`        | Upgrading becomes UpgradeComplete                                             | Upgrade            |
//!
//! (¹) not for another message of `ReferenceCheckFailed`: it carries the API
//! error, whose text may differ on every retry.
//! One more Event is not a transition of the status, and so not in this
//! diff: `ChangeReverted` (Warning, Reconcile), when the operator puts back
//! a field someone else changed on an owned object (see `crate::pure::reverted`).
//!
//! (³) its note says how many of the runtime's objects the resuming
//! reconcile changed back to the spec (see `announcement`).
//! (²) a retried failure that turns out permanent (Stalled False/Retrying to
//! True/ApplyRefused), or one stall turning into another (ApplyRefused to
//! NetworkPolicyConflict), is news: the operator stops retrying, or the
//! obstacle changed. One Warning per diff all the same.
//!
//! The table order is the emission order within one diff: the cause first
//! (configuration, reconcile failure, the requested upgrade), then what the
//! rollout does (progress, degradation, upgrade failure), then the good news
//! (recovery, readiness, upgrade completion), so `kubectl describe` reads as a
//! story.
//!
//! "Becomes" compares status and reason together: Ready going from
//! True/ScaledToZero to True/RuntimeReady is a new RuntimeReady. A missing old
//! status (or one without conditions) is a status in which nothing held yet.
//! `ConfigurationInvalid` already covers a Degraded=True/ConfigurationInvalid,
//! so a missing Secret yields exactly one Warning. A reconcile failure is
//! announced once per episode, not per changed error text (it may differ on
//! every retry). An upgrade that reaches UpgradeComplete or UpgradeFailed
//! without an UpgradeInProgress status ever being stored (the operator was
//! down throughout) is announced as started too, so every upgrade reads
//! Started → Completed or Failed.

use trussium_api::{ConditionStatus, TrussiumRuntimeStatus, condition_type, reason as condition};

use crate::pure::status::conditions::truncated;

/// Kubernetes Event type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Normal,
    Warning,
}

impl EventType {
    /// The Event's `type`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// What the operator was doing: the Event's `action`, a short UpperCamelCase
/// verb phrase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    ValidateReferences,
    Reconcile,
    Rollout,
    Scale,
    Upgrade,
    Suspend,
    Resume,
    Restart,
}

impl Action {
    /// The Event's `action`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::ValidateReferences => "ValidateReferences",
            Action::Reconcile => "Reconcile",
            Action::Rollout => "Rollout",
            Action::Scale => "Scale",
            Action::Upgrade => "Upgrade",
            Action::Suspend => "Suspend",
            Action::Resume => "Resume",
            Action::Restart => "Restart",
        }
    }
}

/// Why the operator published an Event, declared once with its Event type
/// and action (the table above).
///
/// A reason's text names the Event (see [`crate::pure::events::announcement`]): changing
/// one would announce again, after an upgrade of the operator, what the
/// previous version announced already.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    ConfigurationInvalid,
    SuspendValueIgnored,
    RuntimeSuspended,
    RuntimeResumed,
    ReconciliationFailed,
    RuntimeUpgradeStarted,
    RuntimeRestartRequested,
    RuntimeProgressing,
    RuntimeDegraded,
    RuntimeUpgradeFailed,
    RuntimeRecovered,
    RuntimeReady,
    RuntimeScaledToZero,
    RuntimeUpgradeCompleted,
    /// Not a status transition: see `crate::pure::reverted`.
    ChangeReverted,
}

impl Reason {
    /// Every reason, in emission order.
    pub const ALL: [Reason; 15] = [
        Reason::ConfigurationInvalid,
        Reason::SuspendValueIgnored,
        Reason::RuntimeSuspended,
        Reason::RuntimeResumed,
        Reason::ReconciliationFailed,
        Reason::RuntimeUpgradeStarted,
        Reason::RuntimeRestartRequested,
        Reason::RuntimeProgressing,
        Reason::RuntimeDegraded,
        Reason::RuntimeUpgradeFailed,
        Reason::RuntimeRecovered,
        Reason::RuntimeReady,
        Reason::RuntimeScaledToZero,
        Reason::RuntimeUpgradeCompleted,
        Reason::ChangeReverted,
    ];

    /// The Event's `reason`, its type and its action.
    const fn declared(self) -> (&'static str, EventType, Action) {
        use EventType::{Normal, Warning};
        match self {
            Reason::ConfigurationInvalid => {
                ("ConfigurationInvalid", Warning, Action::ValidateReferences)
            }
            Reason::SuspendValueIgnored => ("SuspendValueIgnored", Warning, Action::Reconcile),
            Reason::RuntimeSuspended => ("RuntimeSuspended", Normal, Action::Suspend),
            Reason::RuntimeResumed => ("RuntimeResumed", Normal, Action::Resume),
            Reason::ReconciliationFailed => ("ReconciliationFailed", Warning, Action::Reconcile),
            Reason::RuntimeUpgradeStarted => ("RuntimeUpgradeStarted", Normal, Action::Upgrade),
            Reason::RuntimeRestartRequested => ("RuntimeRestartRequested", Normal, Action::Restart),
            Reason::RuntimeProgressing => ("RuntimeProgressing", Normal, Action::Rollout),
            Reason::RuntimeDegraded => ("RuntimeDegraded", Warning, Action::Rollout),
            Reason::RuntimeUpgradeFailed => ("RuntimeUpgradeFailed", Warning, Action::Upgrade),
            Reason::RuntimeRecovered => ("RuntimeRecovered", Normal, Action::Reconcile),
            Reason::RuntimeReady => ("RuntimeReady", Normal, Action::Rollout),
            Reason::RuntimeScaledToZero => ("RuntimeScaledToZero", Normal, Action::Scale),
            Reason::RuntimeUpgradeCompleted => ("RuntimeUpgradeCompleted", Normal, Action::Upgrade),
            Reason::ChangeReverted => ("ChangeReverted", Warning, Action::Reconcile),
        }
    }

    /// The Event's `reason`.
    pub const fn as_str(self) -> &'static str {
        self.declared().0
    }

    pub const fn event_type(self) -> EventType {
        self.declared().1
    }

    pub const fn action(self) -> Action {
        self.declared().2
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One Event to publish about the runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// Also says the Event's type and action.
    pub reason: Reason,
    /// Human-readable, at most [`MAX_NOTE_BYTES`], never a Secret value.
    pub note: String,
}

/// events.k8s.io/v1 refuses longer notes.
pub const MAX_NOTE_BYTES: usize = 1024;

/// The Events that the step from `old` (the stored status, if any) to `new`
/// calls for, in emission order.
pub fn transitions(
    old: Option<&TrussiumRuntimeStatus>,
    new: &TrussiumRuntimeStatus,
) -> Vec<Transition> {
    let empty = TrussiumRuntimeStatus::default();
    let old = old.unwrap_or(&empty);
    let diff = Diff { old, new };
    let upgrade = diff.upgrade();
    [
        diff.configuration_invalid(),
        diff.suspend_value_ignored(),
        diff.suspended(),
        diff.resumed(),
        diff.reconciliation_failed(),
        upgrade.started,
        diff.restart_requested(),
        diff.progressing(),
        diff.degraded(),
        upgrade.failed,
        diff.recovered(),
        diff.ready(condition::RUNTIME_READY, Reason::RuntimeReady),
        diff.ready(condition::SCALED_TO_ZERO, Reason::RuntimeScaledToZero),
        upgrade.completed,
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A condition reduced to what the diff compares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State<'a> {
    /// `None` while the condition is not reported.
    status: Option<ConditionStatus>,
    reason: &'a str,
    message: &'a str,
}

impl State<'_> {
    fn is_true(&self) -> bool {
        self.status == Some(ConditionStatus::True)
    }

    fn is_false(&self) -> bool {
        self.status == Some(ConditionStatus::False)
    }

    /// Reported with `status` and `reason`.
    fn is(&self, status: ConditionStatus, reason: &str) -> bool {
        self.status == Some(status) && self.reason == reason
    }
}

struct Diff<'a> {
    old: &'a TrussiumRuntimeStatus,
    new: &'a TrussiumRuntimeStatus,
}

/// The upgrade Events of one diff, placed separately in the order.
#[derive(Default)]
struct UpgradeEvents {
    started: Option<Transition>,
    failed: Option<Transition>,
    completed: Option<Transition>,
}

/// Where an upgrade stands, as one Upgrading condition says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UpgradeStage {
    /// No upgrade, or none the condition speaks of.
    None,
    InProgress,
    Completed,
    Failed,
}

impl UpgradeStage {
    fn of(state: State) -> UpgradeStage {
        use ConditionStatus::{False, True};
        if state.is(True, condition::UPGRADE_IN_PROGRESS) {
            UpgradeStage::InProgress
        } else if state.is(False, condition::UPGRADE_COMPLETE) {
            UpgradeStage::Completed
        } else if state.is(False, condition::UPGRADE_FAILED) {
            UpgradeStage::Failed
        } else {
            UpgradeStage::None
        }
    }
}

impl<'a> Diff<'a> {
    fn state(status: &'a TrussiumRuntimeStatus, type_: &str) -> State<'a> {
        status
            .condition(type_)
            .map(|c| State {
                status: Some(ConditionStatus::parse(&c.status)),
                reason: &c.reason,
                message: &c.message,
            })
            .unwrap_or_default()
    }

    /// The old and the new state of condition `type_`.
    fn pair(&self, type_: &str) -> (State<'a>, State<'a>) {
        (Self::state(self.old, type_), Self::state(self.new, type_))
    }

    fn configuration_invalid(&self) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::CONFIGURATION_VALID);
        // A failed check's message carries the API error, whose text may
        // vary on every retry: one Warning per episode, as for reconciles.
        let message_counts = new.reason != condition::REFERENCE_CHECK_FAILED;
        let news = !old.is_false()
            || old.reason != new.reason
            || (message_counts && old.message != new.message);
        (new.is_false() && news).then(|| transition(Reason::ConfigurationInvalid, new.message))
    }

    fn suspend_value_ignored(&self) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::SUSPENDED);
        let ignored = |s: State| s.is(ConditionStatus::False, condition::SUSPEND_VALUE_IGNORED);
        let news = !ignored(old) || old.message != new.message;
        (ignored(new) && news).then(|| transition(Reason::SuspendValueIgnored, new.message))
    }

    fn suspended(&self) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::SUSPENDED);
        (new.is_true() && !old.is_true()).then(|| transition(Reason::RuntimeSuspended, new.message))
    }

    fn resumed(&self) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::SUSPENDED);
        (old.is_true() && !new.is_true())
            .then(|| transition(Reason::RuntimeResumed, &resumed_note(None)))
    }

    fn reconciliation_failed(&self) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::DEGRADED);
        let failed = |s: State| s.is(ConditionStatus::True, condition::RECONCILIATION_FAILED);
        // Only while the failure is a reconcile failure: the other stalls
        // (a missing Secret, an invalid spec, a failed rollout) have their
        // own Warnings.
        let (was, stalled) = self.pair(condition_type::STALLED);
        let newly_stalled = stalled.is_true() && !was.is(ConditionStatus::True, stalled.reason);
        let news = !failed(old) || newly_stalled;
        (failed(new) && news).then(|| {
            let note = if newly_stalled {
                stalled.message
            } else {
                new.message
            };
            transition(Reason::ReconciliationFailed, note)
        })
    }

    /// A restart the stored status did not carry yet (a first rollout with
    /// one already asked for included: it is news all the same).
    fn restart_requested(&self) -> Option<Transition> {
        let at = self.new.restarted_at.as_deref()?;
        (self.old.restarted_at.as_deref() != Some(at)).then(|| {
            let note = format!("Restart requested at {at}: the pods roll to a new pod template.");
            transition(Reason::RuntimeRestartRequested, &note)
        })
    }

    fn progressing(&self) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::PROGRESSING);
        (new.is_true() && !old.is_true())
            .then(|| transition(Reason::RuntimeProgressing, new.message))
    }

    /// Only rollout trouble: configuration and reconcile failures have their
    /// own Warnings.
    fn degraded(&self) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::DEGRADED);
        let rollout_trouble = new.is(ConditionStatus::True, condition::PROGRESS_DEADLINE_EXCEEDED)
            || new.is(ConditionStatus::True, condition::REPLICA_FAILURE);
        let news = !old.is(ConditionStatus::True, new.reason);
        (rollout_trouble && news).then(|| transition(Reason::RuntimeDegraded, new.message))
    }

    fn recovered(&self) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::DEGRADED);
        (old.is_true() && new.is_false()).then(|| {
            let note = format!("The runtime recovered from {}: {}", old.reason, old.message);
            transition(Reason::RuntimeRecovered, &note)
        })
    }

    /// Ready becomes True with `ready_reason`.
    fn ready(&self, ready_reason: &str, reason: Reason) -> Option<Transition> {
        let (old, new) = self.pair(condition_type::READY);
        let ready = |s: State| s.is(ConditionStatus::True, ready_reason);
        (ready(new) && !ready(old)).then(|| transition(reason, new.message))
    }

    /// What the new Upgrading condition says, against what the stored one
    /// said of the same desired image (a new desired image is a new upgrade:
    /// nothing of it was said yet).
    fn upgrade(&self) -> UpgradeEvents {
        let (old, new) = self.pair(condition_type::UPGRADING);
        let said = if self.old.desired_image == self.new.desired_image {
            UpgradeStage::of(old)
        } else {
            UpgradeStage::None
        };
        let images = Images {
            // On completion the new status already holds the new image.
            previous: self
                .old
                .last_successful_image
                .as_deref()
                .or(self.new.last_successful_image.as_deref())
                .unwrap_or("none"),
            desired: self.new.desired_image.as_deref().unwrap_or("unknown"),
        };
        let mut events = UpgradeEvents::default();
        match (UpgradeStage::of(new), said) {
            (UpgradeStage::None, _)
            | (UpgradeStage::InProgress, UpgradeStage::InProgress)
            | (UpgradeStage::Completed, UpgradeStage::Completed)
            | (UpgradeStage::Failed, UpgradeStage::Failed) => {}
            (UpgradeStage::InProgress, _) => events.started = Some(images.started()),
            (UpgradeStage::Completed, said) => {
                // Every upgrade reads Started → Completed: also one whose
                // start no stored status recorded (the operator was down),
                // but not a failed one that completes after all.
                if said == UpgradeStage::None {
                    events.started = Some(images.started());
                }
                events.completed = Some(images.completed());
            }
            (UpgradeStage::Failed, said) => {
                if said != UpgradeStage::InProgress {
                    events.started = Some(images.started());
                }
                events.failed = Some(images.failed());
            }
        }
        events
    }
}

/// The images an upgrade Event names.
struct Images<'a> {
    previous: &'a str,
    desired: &'a str,
}

impl Images<'_> {
    fn started(&self) -> Transition {
        let note = if self.previous == self.desired {
            format!(
                "Upgrade started: returning to the last successful image {}.",
                self.desired
            )
        } else {
            format!(
                "Upgrade started from {} to {}.",
                self.previous, self.desired
            )
        };
        transition(Reason::RuntimeUpgradeStarted, &note)
    }

    fn completed(&self) -> Transition {
        let note = if self.previous == self.desired {
            format!("Upgrade completed: {} is running again.", self.desired)
        } else {
            format!(
                "Upgrade from {} to {} completed.",
                self.previous, self.desired
            )
        };
        transition(Reason::RuntimeUpgradeCompleted, &note)
    }

    fn failed(&self) -> Transition {
        let what = if self.previous == self.desired {
            format!("Returning to {}", self.desired)
        } else {
            format!("Upgrade from {} to {}", self.previous, self.desired)
        };
        let note = format!(
            "{what} failed: the rollout exceeded its progress deadline; {} remains the last successful image.",
            self.previous
        );
        transition(Reason::RuntimeUpgradeFailed, &note)
    }
}

/// The note of `RuntimeResumed`: with how many of the runtime's objects the
/// resuming reconcile changed back to the spec, once that is known.
pub fn resumed_note(changed: Option<usize>) -> String {
    let base = "Resumed: the operator manages the runtime's objects again";
    match changed {
        None => format!("{base}."),
        Some(0) => format!("{base}; none of them had to change."),
        Some(1) => format!("{base}; it changed 1 object back to the spec."),
        Some(n) => format!("{base}; it changed {n} objects back to the spec."),
    }
}

fn transition(reason: Reason, note: &str) -> Transition {
    Transition {
        reason,
        note: truncated(note, MAX_NOTE_BYTES),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
    use k8s_openapi::jiff::Timestamp;

    use super::*;

    /// A status from `"Type=Status/Reason"` entries and images.
    fn status(conditions: &[&str], desired: &str, last: Option<&str>) -> TrussiumRuntimeStatus {
        let conditions = conditions
            .iter()
            .map(|entry| {
                let (type_, rest) = entry.split_once('=').unwrap();
                let (status, reason) = rest.split_once('/').unwrap();
                Condition {
                    type_: type_.into(),
                    status: status.into(),
                    reason: reason.into(),
                    message: format!("{type_} is {reason}."),
                    observed_generation: Some(1),
                    last_transition_time: Time(Timestamp::UNIX_EPOCH),
                }
            })
            .collect();
        TrussiumRuntimeStatus {
            desired_image: Some(desired.into()),
            last_successful_image: last.map(Into::into),
            conditions,
            ..Default::default()
        }
    }

    fn reasons(events: &[Transition]) -> Vec<&'static str> {
        events.iter().map(|e| e.reason.as_str()).collect()
    }

    const A: &str = "r:a";
    const B: &str = "r:b";
    const C: &str = "r:c";

    #[test]
    fn identical_statuses_say_nothing() {
        for conditions in [
            &[
                "ConfigurationValid=True/ReferencesResolved",
                "Progressing=False/ReconciliationComplete",
                "Ready=True/RuntimeReady",
                "Degraded=False/AsExpected",
                "Upgrading=False/UpgradeComplete",
            ][..],
            &[
                "ConfigurationValid=False/SecretNotFound",
                "Progressing=False/ConfigurationInvalid",
                "Degraded=True/ConfigurationInvalid",
                "Upgrading=True/UpgradeInProgress",
            ][..],
            &[
                "Progressing=True/DeploymentProgressing",
                "Degraded=True/ProgressDeadlineExceeded",
                "Ready=True/ScaledToZero",
                "Upgrading=False/UpgradeFailed",
            ][..],
        ] {
            let s = status(conditions, B, Some(A));
            assert_eq!(transitions(Some(&s), &s), vec![]);
        }
    }

    #[test]
    fn order_within_one_diff() {
        let old = status(
            &[
                "Progressing=False/ReconciliationComplete",
                "Upgrading=False/NoUpgrade",
            ],
            A,
            Some(A),
        );
        let new = status(
            &[
                "ConfigurationValid=False/SecretNotFound",
                "Progressing=True/DeploymentProgressing",
                "Degraded=True/ReconciliationFailed",
                "Upgrading=True/UpgradeInProgress",
            ],
            B,
            Some(A),
        );
        assert_eq!(
            reasons(&transitions(Some(&old), &new)),
            [
                "ConfigurationInvalid",
                "ReconciliationFailed",
                "RuntimeUpgradeStarted",
                "RuntimeProgressing"
            ]
        );

        let old = status(
            &[
                "Progressing=False/ReconciliationComplete",
                "Degraded=False/AsExpected",
                "Upgrading=True/UpgradeInProgress",
            ],
            B,
            Some(A),
        );
        let new = status(
            &[
                "Progressing=True/DeploymentProgressing",
                "Degraded=True/ProgressDeadlineExceeded",
                "Upgrading=False/UpgradeFailed",
            ],
            B,
            Some(A),
        );
        assert_eq!(
            reasons(&transitions(Some(&old), &new)),
            [
                "RuntimeProgressing",
                "RuntimeDegraded",
                "RuntimeUpgradeFailed"
            ]
        );

        let old = status(
            &[
                "Ready=False/DeploymentFailed",
                "Degraded=True/ProgressDeadlineExceeded",
                "Upgrading=True/UpgradeInProgress",
            ],
            B,
            Some(A),
        );
        let new = status(
            &[
                "Ready=True/RuntimeReady",
                "Degraded=False/AsExpected",
                "Upgrading=False/UpgradeComplete",
            ],
            B,
            Some(B),
        );
        assert_eq!(
            reasons(&transitions(Some(&old), &new)),
            [
                "RuntimeRecovered",
                "RuntimeReady",
                "RuntimeUpgradeCompleted"
            ]
        );
    }

    #[test]
    fn types_and_actions() {
        let cases = [
            (
                &["ConfigurationValid=False/SecretNotFound"][..],
                EventType::Warning,
                "ValidateReferences",
            ),
            (
                &["Degraded=True/ReconciliationFailed"][..],
                EventType::Warning,
                "Reconcile",
            ),
            (
                &["Degraded=True/ReplicaFailure"][..],
                EventType::Warning,
                "Rollout",
            ),
            (
                &["Progressing=True/DeploymentProgressing"][..],
                EventType::Normal,
                "Rollout",
            ),
            (
                &["Ready=True/RuntimeReady"][..],
                EventType::Normal,
                "Rollout",
            ),
            (&["Ready=True/ScaledToZero"][..], EventType::Normal, "Scale"),
            (
                &["Upgrading=True/UpgradeInProgress"][..],
                EventType::Normal,
                "Upgrade",
            ),
        ];
        for (conditions, type_, action) in cases {
            let events = transitions(None, &status(conditions, B, Some(A)));
            assert_eq!(events.len(), 1, "{conditions:?}");
            let reason = events[0].reason;
            assert_eq!(
                (reason.event_type(), reason.action().as_str()),
                (type_, action),
                "{conditions:?}"
            );
            assert!(
                reason
                    .action()
                    .as_str()
                    .chars()
                    .all(|c| c.is_ascii_alphabetic())
            );
        }
        let recovered = transitions(
            Some(&status(
                &["Degraded=True/ProgressDeadlineExceeded"],
                B,
                Some(A),
            )),
            &status(&["Degraded=False/AsExpected"], B, Some(A)),
        );
        assert_eq!(recovered[0].reason.event_type(), EventType::Normal);
        assert_eq!(recovered[0].reason.action().as_str(), "Reconcile");
        assert_eq!(
            recovered[0].note,
            "The runtime recovered from ProgressDeadlineExceeded: Degraded is ProgressDeadlineExceeded."
        );
    }

    #[test]
    fn a_missing_secret_is_one_warning() {
        let new = status(
            &[
                "ConfigurationValid=False/SecretNotFound",
                "Progressing=False/ConfigurationInvalid",
                "Ready=False/ConfigurationInvalid",
                "Degraded=True/ConfigurationInvalid",
                "Upgrading=False/NoUpgrade",
            ],
            A,
            None,
        );
        assert_eq!(reasons(&transitions(None, &new)), ["ConfigurationInvalid"]);
        let mut other = new.clone();
        other.conditions[0].message = "another Secret".into();
        assert_eq!(
            reasons(&transitions(Some(&new), &other)),
            ["ConfigurationInvalid"]
        );
        let mut other_reason = new.clone();
        other_reason.conditions[0].reason = "ReferenceCheckFailed".into();
        assert_eq!(
            reasons(&transitions(Some(&new), &other_reason)),
            ["ConfigurationInvalid"]
        );
        // A failed check whose error text varies between retries: one
        // Warning, not one per retry.
        let mut retried = other_reason.clone();
        retried.conditions[0].message = "forbidden (retry 2)".into();
        assert_eq!(
            reasons(&transitions(Some(&other_reason), &retried)),
            [""; 0]
        );
        // Back to a missing Secret is news again.
        assert_eq!(
            reasons(&transitions(Some(&retried), &new)),
            ["ConfigurationInvalid"]
        );
    }

    #[test]
    fn degraded_causes() {
        let pde = status(&["Degraded=True/ProgressDeadlineExceeded"], A, None);
        let rf = status(&["Degraded=True/ReplicaFailure"], A, None);
        let ci = status(&["Degraded=True/ConfigurationInvalid"], A, None);
        let rec = status(&["Degraded=True/ReconciliationFailed"], A, None);
        assert_eq!(reasons(&transitions(Some(&pde), &rf)), ["RuntimeDegraded"]);
        assert_eq!(reasons(&transitions(Some(&ci), &pde)), ["RuntimeDegraded"]);
        assert_eq!(reasons(&transitions(Some(&pde), &ci)), Vec::<&str>::new());
        assert_eq!(
            reasons(&transitions(Some(&pde), &rec)),
            ["ReconciliationFailed"]
        );
        let mut rec_again = rec.clone();
        rec_again.conditions[0].message = "another error text".into();
        assert_eq!(
            reasons(&transitions(Some(&rec), &rec_again)),
            Vec::<&str>::new()
        );
        let mut rf_again = rf.clone();
        rf_again.conditions[0].message = "another quota".into();
        assert_eq!(
            reasons(&transitions(Some(&rf), &rf_again)),
            Vec::<&str>::new()
        );
    }

    /// A reconcile failure that stalls, or whose stall changes reason, is
    /// one Warning; the same stall again, or a retried failure, is none.
    #[test]
    fn a_stall_of_a_failed_reconcile_is_one_warning() {
        let degraded = "Degraded=True/ReconciliationFailed";
        let retrying = status(&[degraded, "Stalled=False/Retrying"], A, None);
        let refused = status(&[degraded, "Stalled=True/ApplyRefused"], A, None);
        let conflict = status(&[degraded, "Stalled=True/NetworkPolicyConflict"], A, None);
        let calm = status(
            &["Degraded=False/AsExpected", "Stalled=False/AsExpected"],
            A,
            None,
        );
        let missing = status(
            &[
                "Degraded=True/ConfigurationInvalid",
                "Stalled=True/SecretNotFound",
            ],
            A,
            None,
        );
        let warning = ["ReconciliationFailed"];
        let none: [&str; 0] = [];
        let table: [(&TrussiumRuntimeStatus, &TrussiumRuntimeStatus, &[&str]); 8] = [
            // Transient, then permanent: the retries stop.
            (&retrying, &refused, &warning),
            // One stall turns into another.
            (&refused, &conflict, &warning),
            // Stalled and degraded at once: once, not twice.
            (&calm, &refused, &warning),
            // From another stall's Warning to a reconcile failure's.
            (&missing, &refused, &["ReconciliationFailed"]),
            // The same stall again, and a stall that is retried now.
            (&refused, &refused, &none),
            (&conflict, &retrying, &none),
            (&retrying, &retrying, &none),
            // Recovered.
            (&refused, &calm, &["RuntimeRecovered"]),
        ];
        for (i, (old, new, want)) in table.into_iter().enumerate() {
            assert_eq!(reasons(&transitions(Some(old), new)), want, "case {i}");
        }
        // The note says why it stalled.
        let events = transitions(Some(&retrying), &refused);
        assert_eq!(events[0].note, "Stalled is ApplyRefused.");
        // The first stored status of a runtime that stalls at once.
        assert_eq!(reasons(&transitions(None, &refused)), warning);
    }

    #[test]
    fn ready_reasons_are_transitions_too() {
        let zero = status(&["Ready=True/ScaledToZero"], A, Some(A));
        let ready = status(&["Ready=True/RuntimeReady"], A, Some(A));
        assert_eq!(reasons(&transitions(Some(&zero), &ready)), ["RuntimeReady"]);
        assert_eq!(
            reasons(&transitions(Some(&ready), &zero)),
            ["RuntimeScaledToZero"]
        );
        let not_ready = status(&["Ready=False/RuntimeNotReady"], A, Some(A));
        assert_eq!(
            reasons(&transitions(Some(&ready), &not_ready)),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn stalled_and_the_template_fingerprint_say_nothing_of_their_own() {
        // The causes of Stalled have their Warnings (RuntimeDegraded,
        // ConfigurationInvalid); Stalled itself, and the recorded template,
        // never add an Event.
        let calm = status(&["Stalled=False/AsExpected"], A, Some(A));
        let stalled = status(&["Stalled=True/ProgressDeadlineExceeded"], A, Some(A));
        let retrying = status(&["Stalled=False/Retrying"], A, Some(A));
        let missing = status(&["Stalled=True/SecretNotFound"], A, Some(A));
        for (old, new) in [
            (&calm, &stalled),
            (&stalled, &calm),
            (&calm, &retrying),
            (&retrying, &missing),
            (&missing, &calm),
        ] {
            assert_eq!(reasons(&transitions(Some(old), new)), Vec::<&str>::new());
        }
        let mut moved = calm.clone();
        moved.observed_template_hash = Some("0123456789abcdef".into());
        assert_eq!(
            reasons(&transitions(Some(&calm), &moved)),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn an_upgrade_that_takes_ready_away_announces_it_again_when_rolled_out() {
        let ready = status(&["Ready=True/RuntimeReady"], A, Some(A));
        let rolling = status(&["Ready=False/RuntimeNotReady"], B, Some(A));
        let failed = status(&["Ready=False/DeploymentFailed"], B, Some(A));
        assert_eq!(
            reasons(&transitions(Some(&ready), &rolling)),
            Vec::<&str>::new()
        );
        assert_eq!(
            reasons(&transitions(Some(&rolling), &failed)),
            Vec::<&str>::new()
        );
        assert_eq!(
            reasons(&transitions(Some(&rolling), &ready)),
            ["RuntimeReady"]
        );
        assert_eq!(
            reasons(&transitions(Some(&failed), &ready)),
            ["RuntimeReady"]
        );
    }

    /// Upgrade Events for every (old, new) pair the projection can produce.
    #[test]
    fn upgrade_lifecycle_table() {
        let no = |d: &str, l: Option<&str>| status(&["Upgrading=False/NoUpgrade"], d, l);
        let running = |d: &str, l: &str| status(&["Upgrading=True/UpgradeInProgress"], d, Some(l));
        let done = |d: &str, l: &str| status(&["Upgrading=False/UpgradeComplete"], d, Some(l));
        let failed = |d: &str, l: &str| status(&["Upgrading=False/UpgradeFailed"], d, Some(l));
        let none = Vec::<&str>::new();
        let cases: Vec<(
            &str,
            TrussiumRuntimeStatus,
            TrussiumRuntimeStatus,
            Vec<&str>,
        )> = vec![
            (
                "start",
                no(A, Some(A)),
                running(B, A),
                vec!["RuntimeUpgradeStarted"],
            ),
            ("keep rolling", running(B, A), running(B, A), none.clone()),
            (
                "new target",
                running(B, A),
                running(C, A),
                vec!["RuntimeUpgradeStarted"],
            ),
            (
                "complete",
                running(B, A),
                done(B, B),
                vec!["RuntimeUpgradeCompleted"],
            ),
            (
                "fail",
                running(B, A),
                failed(B, A),
                vec!["RuntimeUpgradeFailed"],
            ),
            ("complete persists", done(B, B), done(B, B), none.clone()),
            ("failed persists", failed(B, A), failed(B, A), none.clone()),
            (
                "late completion",
                failed(B, A),
                done(B, B),
                vec!["RuntimeUpgradeCompleted"],
            ),
            (
                "go back",
                failed(B, A),
                running(A, A),
                vec!["RuntimeUpgradeStarted"],
            ),
            (
                "next upgrade",
                done(B, B),
                running(C, B),
                vec!["RuntimeUpgradeStarted"],
            ),
            (
                "unseen upgrade",
                done(B, B),
                done(C, C),
                vec!["RuntimeUpgradeStarted", "RuntimeUpgradeCompleted"],
            ),
            (
                "unseen failure",
                no(A, Some(A)),
                failed(B, A),
                vec!["RuntimeUpgradeStarted", "RuntimeUpgradeFailed"],
            ),
            (
                "target changed and completed at once",
                running(B, A),
                done(C, C),
                vec!["RuntimeUpgradeStarted", "RuntimeUpgradeCompleted"],
            ),
            (
                "initial rollout",
                TrussiumRuntimeStatus::default(),
                no(A, None),
                none.clone(),
            ),
            ("first success", no(A, None), no(A, Some(A)), none.clone()),
        ];
        for (name, old, new, expected) in cases {
            assert_eq!(reasons(&transitions(Some(&old), &new)), expected, "{name}");
        }
    }

    #[test]
    fn upgrade_notes_name_both_images() {
        let events = transitions(
            Some(&status(&["Upgrading=True/UpgradeInProgress"], B, Some(A))),
            &status(&["Upgrading=False/UpgradeComplete"], B, Some(B)),
        );
        assert_eq!(events[0].note, "Upgrade from r:a to r:b completed.");
        let events = transitions(
            Some(&status(&["Upgrading=True/UpgradeInProgress"], B, Some(A))),
            &status(&["Upgrading=False/UpgradeFailed"], B, Some(A)),
        );
        assert_eq!(
            events[0].note,
            "Upgrade from r:a to r:b failed: the rollout exceeded its progress deadline; r:a remains the last successful image."
        );
        let events = transitions(
            Some(&status(&["Upgrading=True/UpgradeInProgress"], A, Some(A))),
            &status(&["Upgrading=False/UpgradeFailed"], A, Some(A)),
        );
        assert!(
            events[0].note.starts_with("Returning to r:a failed"),
            "{}",
            events[0].note
        );
    }

    #[test]
    fn notes_are_bounded() {
        let mut new = status(&["ConfigurationValid=False/ReferenceCheckFailed"], A, None);
        new.conditions[0].message = "é".repeat(2000);
        let events = transitions(None, &new);
        assert!(events[0].note.len() <= MAX_NOTE_BYTES);
        let long = format!("registry.example.com/{}:v1", "a".repeat(2000));
        let events = transitions(
            Some(&status(&["Upgrading=False/NoUpgrade"], A, Some(A))),
            &status(&["Upgrading=True/UpgradeInProgress"], &long, Some(A)),
        );
        assert!(events[0].note.len() <= MAX_NOTE_BYTES);
    }

    #[test]
    fn reasons_are_unique_upper_camel_case_words() {
        let names: std::collections::BTreeSet<&str> =
            Reason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(names.len(), Reason::ALL.len(), "two reasons share a name");
        let variants: std::collections::BTreeSet<Reason> = Reason::ALL.into_iter().collect();
        assert_eq!(
            variants.len(),
            Reason::ALL.len(),
            "ALL lists a reason twice"
        );
        for reason in Reason::ALL {
            let name = reason.as_str();
            assert!(name.chars().all(|c| c.is_ascii_alphabetic()), "{name}");
            assert!(name.starts_with(|c: char| c.is_ascii_uppercase()), "{name}");
            // The Rust name is the wire name: what a reader sees is what is sent.
            assert_eq!(format!("{reason:?}"), name);
        }
    }

    /// Every reason's Event exactly as published, pinned: type, reason,
    /// action and note are what users (and their alerts) match on.
    #[test]
    fn every_event_is_pinned() {
        let cases: [(
            &str,
            TrussiumRuntimeStatus,
            TrussiumRuntimeStatus,
            [&str; 4],
        ); 10] = [
            (
                "a missing Secret",
                status(&[], A, Some(A)),
                status(&["ConfigurationValid=False/SecretNotFound"], A, Some(A)),
                [
                    "Warning",
                    "ConfigurationInvalid",
                    "ValidateReferences",
                    "ConfigurationValid is SecretNotFound.",
                ],
            ),
            (
                "a failed apply",
                status(&[], A, Some(A)),
                status(&["Degraded=True/ReconciliationFailed"], A, Some(A)),
                [
                    "Warning",
                    "ReconciliationFailed",
                    "Reconcile",
                    "Degraded is ReconciliationFailed.",
                ],
            ),
            (
                "an upgrade",
                status(&["Upgrading=False/NoUpgrade"], A, Some(A)),
                status(&["Upgrading=True/UpgradeInProgress"], B, Some(A)),
                [
                    "Normal",
                    "RuntimeUpgradeStarted",
                    "Upgrade",
                    "Upgrade started from r:a to r:b.",
                ],
            ),
            (
                "a rollout",
                status(&[], A, Some(A)),
                status(&["Progressing=True/DeploymentProgressing"], A, Some(A)),
                [
                    "Normal",
                    "RuntimeProgressing",
                    "Rollout",
                    "Progressing is DeploymentProgressing.",
                ],
            ),
            (
                "a stuck rollout",
                status(&[], A, Some(A)),
                status(&["Degraded=True/ProgressDeadlineExceeded"], A, Some(A)),
                [
                    "Warning",
                    "RuntimeDegraded",
                    "Rollout",
                    "Degraded is ProgressDeadlineExceeded.",
                ],
            ),
            (
                "a failed upgrade",
                status(&["Upgrading=True/UpgradeInProgress"], B, Some(A)),
                status(&["Upgrading=False/UpgradeFailed"], B, Some(A)),
                [
                    "Warning",
                    "RuntimeUpgradeFailed",
                    "Upgrade",
                    "Upgrade from r:a to r:b failed: the rollout exceeded its progress deadline; r:a remains the last successful image.",
                ],
            ),
            (
                "a recovery",
                status(&["Degraded=True/ReplicaFailure"], A, Some(A)),
                status(&["Degraded=False/AsExpected"], A, Some(A)),
                [
                    "Normal",
                    "RuntimeRecovered",
                    "Reconcile",
                    "The runtime recovered from ReplicaFailure: Degraded is ReplicaFailure.",
                ],
            ),
            (
                "readiness",
                status(&[], A, Some(A)),
                status(&["Ready=True/RuntimeReady"], A, Some(A)),
                [
                    "Normal",
                    "RuntimeReady",
                    "Rollout",
                    "Ready is RuntimeReady.",
                ],
            ),
            (
                "a scale to zero",
                status(&[], A, Some(A)),
                status(&["Ready=True/ScaledToZero"], A, Some(A)),
                [
                    "Normal",
                    "RuntimeScaledToZero",
                    "Scale",
                    "Ready is ScaledToZero.",
                ],
            ),
            (
                "a completed upgrade",
                status(&["Upgrading=True/UpgradeInProgress"], B, Some(A)),
                status(&["Upgrading=False/UpgradeComplete"], B, Some(B)),
                [
                    "Normal",
                    "RuntimeUpgradeCompleted",
                    "Upgrade",
                    "Upgrade from r:a to r:b completed.",
                ],
            ),
        ];
        for (what, old, new, expected) in cases {
            let events = transitions(Some(&old), &new);
            let published: Vec<[&str; 4]> = events
                .iter()
                .map(|e| {
                    [
                        e.reason.event_type().as_str(),
                        e.reason.as_str(),
                        e.reason.action().as_str(),
                        e.note.as_str(),
                    ]
                })
                .collect();
            assert_eq!(published, [expected], "{what}");
        }
    }
}
