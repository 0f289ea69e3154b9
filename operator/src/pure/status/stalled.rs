//! `Stalled`, the kstatus convention (Flux, kpt): `True`, with the cause's
//! reason, while the runtime cannot make progress without a change by
//! someone; `False` otherwise. kstatus then reads the runtime as Failed.
//!
//! - A rollout past its progress deadline (`ProgressDeadlineExceeded`): the
//!   Deployment controller has given up until the spec changes.
//! - A missing Secret (`SecretNotFound`): nothing is applied until it exists.
//! - A spec the API refuses today (`InvalidSpec`, stored before the rule):
//!   nothing is applied until it is fixed.
//! - An owned object the API server refuses in a way it will repeat, or whose
//!   name someone else's object holds ([`Stall`]: `ApplyRefused`,
//!   `NameConflict`, `NetworkPolicyRefused`, `NetworkPolicyConflict`): the
//!   operator does not retry until something changes.
//!
//! Not stalled, although degraded: a failure the operator retries by itself
//! (`Retrying`: the Secret check or an apply failed in a way that may pass),
//! and a ReplicaFailure (the Deployment controller retries; if it never
//! succeeds, the progress deadline turns it into a failed rollout).

use trussium_api::reason;

use super::conditions::Verdict;
use super::rollout::Rollout;

/// A refusal that will not pass by itself: its reason (one of the four
/// above) and a message naming the object, the field and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    pub reason: &'static str,
    pub message: String,
}

pub fn verdict(
    configuration: &Verdict,
    stall: Option<&Stall>,
    reconcile_error: Option<&str>,
    rollout: &Rollout,
    deployment: &str,
) -> Verdict {
    if !configuration.status {
        if configuration.reason == reason::INVALID_SPEC {
            return Verdict::yes(
                reason::INVALID_SPEC,
                format!(
                    "Cannot progress until the spec is fixed: {}",
                    configuration.message
                ),
            );
        }
        return if configuration.reason == reason::SECRET_NOT_FOUND {
            Verdict::yes(
                reason::SECRET_NOT_FOUND,
                format!(
                    "Cannot progress until the referenced Secrets exist: {}",
                    configuration.message
                ),
            )
        } else {
            Verdict::no(
                reason::RETRYING,
                format!("The operator retries: {}", configuration.message),
            )
        };
    }
    if let Some(stall) = stall {
        return Verdict::yes(stall.reason, stall.message.clone());
    }
    if let Some(error) = reconcile_error {
        return Verdict::no(
            reason::RETRYING,
            format!("The operator retries the failed reconciliation: {error}"),
        );
    }
    match rollout {
        Rollout::Failed { message } => {
            let detail = if message.is_empty() {
                String::new()
            } else {
                format!(" ({message})")
            };
            Verdict::yes(
                reason::PROGRESS_DEADLINE_EXCEEDED,
                format!(
                    "The rollout of Deployment {deployment} exceeded its progress deadline{detail}; it needs a change of the runtime (another image, say) to progress."
                ),
            )
        }
        _ => Verdict::no(reason::AS_EXPECTED, "The runtime is not stalled."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> Verdict {
        Verdict::yes(reason::REFERENCES_RESOLVED, "ok")
    }

    fn failed() -> Rollout {
        Rollout::Failed {
            message: "ReplicaSet \"x-1\" has timed out progressing.".into(),
        }
    }

    #[test]
    fn a_failed_rollout_stalls() {
        let v = verdict(&valid(), None, None, &failed(), "x");
        assert!(v.status);
        assert_eq!(v.reason, "ProgressDeadlineExceeded");
        assert!(v.message.contains("Deployment x") && v.message.contains("timed out"));
        let v = verdict(
            &valid(),
            None,
            None,
            &Rollout::Failed { message: "".into() },
            "x",
        );
        assert!(v.status && !v.message.contains("()"));
    }

    #[test]
    fn a_missing_secret_stalls_and_outranks_everything() {
        let missing = Verdict::no(reason::SECRET_NOT_FOUND, "Secret \"creds\" does not exist");
        for rollout in [
            Rollout::Absent,
            Rollout::Complete,
            Rollout::Progressing,
            failed(),
        ] {
            let v = verdict(&missing, None, Some("boom"), &rollout, "x");
            assert_eq!(
                (v.status, v.reason),
                (true, "SecretNotFound"),
                "{rollout:?}"
            );
            assert!(v.message.contains("\"creds\""));
        }
    }

    #[test]
    fn an_invalid_spec_stalls_and_outranks_everything() {
        let invalid = Verdict::no(
            reason::INVALID_SPEC,
            "The spec is invalid: spec.replicas: x",
        );
        let stall = Stall {
            reason: reason::APPLY_REFUSED,
            message: "refused".into(),
        };
        for rollout in [Rollout::Absent, Rollout::Complete, failed()] {
            let v = verdict(&invalid, Some(&stall), Some("boom"), &rollout, "x");
            assert_eq!((v.status, v.reason), (true, "InvalidSpec"), "{rollout:?}");
            assert!(v.message.contains("spec.replicas"));
        }
    }

    #[test]
    fn what_the_operator_retries_does_not_stall() {
        let check_failed = Verdict::no(reason::REFERENCE_CHECK_FAILED, "forbidden");
        let v = verdict(&check_failed, None, None, &failed(), "x");
        assert_eq!((v.status, v.reason), (false, "Retrying"));
        let v = verdict(&valid(), None, Some("conflict"), &failed(), "x");
        assert_eq!((v.status, v.reason), (false, "Retrying"));
        assert!(v.message.contains("conflict"));
    }

    #[test]
    fn a_refusal_that_will_repeat_stalls_with_its_reason() {
        let stall = Stall {
            reason: reason::NETWORK_POLICY_REFUSED,
            message: "The API server refuses NetworkPolicy \"x\"".into(),
        };
        for rollout in [Rollout::Absent, Rollout::Complete, failed()] {
            let v = verdict(&valid(), Some(&stall), Some("x"), &rollout, "x");
            assert_eq!(
                v,
                Verdict::yes("NetworkPolicyRefused", stall.message.clone())
            );
        }
        // A missing Secret still comes first: nothing was applied.
        let missing = Verdict::no(reason::SECRET_NOT_FOUND, "Secret \"creds\" does not exist");
        let v = verdict(&missing, Some(&stall), None, &Rollout::Absent, "x");
        assert_eq!(v.reason, "SecretNotFound");
    }

    #[test]
    fn otherwise_not_stalled() {
        for rollout in [
            Rollout::Absent,
            Rollout::Complete,
            Rollout::Progressing,
            Rollout::GenerationPending {
                generation: 2,
                observed: 1,
            },
        ] {
            let v = verdict(&valid(), None, None, &rollout, "x");
            assert_eq!((v.status, v.reason), (false, "AsExpected"), "{rollout:?}");
        }
    }
}
