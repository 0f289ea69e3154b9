//! The upgrade lifecycle: the `Upgrading` condition and
//! `status.lastSuccessfulImage`.
//!
//! The only memory is the previous status: its `lastSuccessfulImage`, its
//! `desiredImage` and its `Upgrading` condition.
//!
//! - `lastSuccessfulImage` only ever names an image that was Ready: a
//!   rollout completes, for the upgrade lifecycle, when the Deployment runs
//!   the desired image and every desired replica of it is ready and
//!   available, and at least one replica is desired. A rollout to zero
//!   replicas completes for Kubernetes at once, with no pod of the image
//!   ever started: it proves nothing about the image.
//! - Until a first rollout completes (`lastSuccessfulImage` unset) the runtime
//!   is being provisioned, which is never an upgrade: `NoUpgrade`, whatever
//!   the image does. The first completed rollout whose Deployment runs the
//!   desired image sets `lastSuccessfulImage`.
//! - After that, an upgrade starts when the desired image differs from the
//!   previous status's `desiredImage` (going back to an older image too,
//!   including the last successful one after a failure), or when it differs
//!   from `lastSuccessfulImage` while no upgrade is in flight (an image change
//!   that happened while the configuration was invalid, say).
//! - An upgrade is `UpgradeInProgress` until the Deployment runs the desired
//!   image and its rollout completes (`UpgradeComplete`; only now does
//!   `lastSuccessfulImage` move) or exceeds its progress deadline
//!   (`UpgradeFailed`; `lastSuccessfulImage` stays). Scaled to zero, it
//!   stays in progress until the runtime is scaled up and a replica is ready. A new desired image while
//!   in flight restarts the upgrade towards it.
//! - `UpgradeComplete` and `UpgradeFailed` persist, message included, until
//!   the next upgrade. A failed upgrade whose Deployment later completes after
//!   all (the controller kept trying) becomes `UpgradeComplete`: the image did
//!   roll out.
//! - Scaling or any other change that keeps the image is not an upgrade.

use trussium_api::{TrussiumRuntimeStatus, condition_type, reason};

use super::conditions::Verdict;
use super::rollout::Rollout;

/// How far the Deployment got, as far as the upgrade lifecycle cares.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// Owned objects are not applied (invalid configuration): an upgrade may
    /// be requested, but it can neither complete nor fail, so `Upgrading`
    /// keeps its previous value unless the desired image changes.
    Blocked,
    /// The Deployment as observed: the image it runs, its rollout outcome,
    /// and how many replicas are desired.
    Observed {
        current: Option<&'a str>,
        rollout: &'a Rollout,
        replicas: i32,
    },
}

impl Progress<'_> {
    /// The Deployment runs `desired` and its rollout completed with every
    /// desired replica ready, and there is at least one.
    fn completed(self, desired: &str) -> bool {
        matches!(self, Progress::Observed { current: Some(c), rollout, replicas } if c == desired && rollout.is_complete() && replicas > 0)
    }

    /// Scaled to zero: nothing can complete.
    fn at_zero(self) -> bool {
        matches!(self, Progress::Observed { replicas, .. } if replicas <= 0)
    }

    /// The Deployment runs `desired` and its rollout failed. A failure of a
    /// Deployment that still runs another image says nothing about `desired`.
    fn failed(self, desired: &str) -> bool {
        matches!(self, Progress::Observed { current: Some(c), rollout, .. } if c == desired && rollout.is_failed())
    }
}

/// The `Upgrading` verdict and the new `lastSuccessfulImage`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upgrade {
    pub verdict: Verdict,
    pub last_successful_image: Option<String>,
}

pub fn assess(previous: &TrussiumRuntimeStatus, desired: &str, progress: Progress) -> Upgrade {
    let previous_condition = previous.condition(condition_type::UPGRADING);
    let previous_reason = previous_condition.map(|c| c.reason.as_str());

    let Some(last) = previous.last_successful_image.as_deref() else {
        let first = progress.completed(desired).then(|| desired.to_string());
        return Upgrade {
            verdict: no_upgrade(first.as_deref()),
            last_successful_image: first,
        };
    };

    let target_changed = previous
        .desired_image
        .as_deref()
        .is_some_and(|p| p != desired);
    let in_flight = matches!(
        previous_reason,
        Some(reason::UPGRADE_IN_PROGRESS | reason::UPGRADE_FAILED)
    );
    if target_changed
        || (!in_flight && desired != last)
        || previous_reason == Some(reason::UPGRADE_IN_PROGRESS)
    {
        return towards(last, desired, progress);
    }
    match (previous_reason, previous_condition) {
        (Some(reason::UPGRADE_FAILED), _) if progress.completed(desired) => {
            completed(last, desired)
        }
        (Some(reason::UPGRADE_FAILED), Some(c)) => {
            carried(reason::UPGRADE_FAILED, &c.message, last, || {
                failed_message(last, desired)
            })
        }
        (Some(reason::UPGRADE_COMPLETE), Some(c)) => {
            carried(reason::UPGRADE_COMPLETE, &c.message, last, || {
                completed_message(last, desired)
            })
        }
        _ => Upgrade {
            verdict: no_upgrade(Some(last)),
            last_successful_image: Some(last.to_string()),
        },
    }
}

/// An upgrade from `last` towards `desired`, given how far it got.
fn towards(last: &str, desired: &str, progress: Progress) -> Upgrade {
    if progress.completed(desired) {
        return completed(last, desired);
    }
    let verdict = if progress.failed(desired) {
        Verdict::no(reason::UPGRADE_FAILED, failed_message(last, desired))
    } else {
        let mut message = if desired == last {
            format!("Returning to the last successful image {last}.")
        } else {
            format!("Upgrading from {last} to {desired}.")
        };
        if progress.at_zero() {
            message.push_str(" Scaled to zero: it completes once a replica runs it and is ready.");
        }
        Verdict::yes(reason::UPGRADE_IN_PROGRESS, message)
    };
    Upgrade {
        verdict,
        last_successful_image: Some(last.to_string()),
    }
}

fn completed(last: &str, desired: &str) -> Upgrade {
    Upgrade {
        verdict: Verdict::no(reason::UPGRADE_COMPLETE, completed_message(last, desired)),
        last_successful_image: Some(desired.to_string()),
    }
}

/// A persisting `UpgradeComplete`/`UpgradeFailed` keeps its message: the
/// image it was upgraded from is no longer known once it completed.
fn carried(
    reason: &'static str,
    message: &str,
    last: &str,
    fallback: impl FnOnce() -> String,
) -> Upgrade {
    let message = if message.is_empty() {
        fallback()
    } else {
        message.to_string()
    };
    Upgrade {
        verdict: Verdict::no(reason, message),
        last_successful_image: Some(last.to_string()),
    }
}

fn no_upgrade(last: Option<&str>) -> Verdict {
    let message = match last {
        Some(last) => format!("No upgrade in progress; the last successful image is {last}."),
        None => "No upgrade: the initial rollout is not an upgrade.".to_string(),
    };
    Verdict::no(reason::NO_UPGRADE, message)
}

fn completed_message(last: &str, desired: &str) -> String {
    if last == desired {
        format!("Returned to {desired}; its rollout completed.")
    } else {
        format!("Upgrade from {last} to {desired} completed.")
    }
}

fn failed_message(last: &str, desired: &str) -> String {
    format!(
        "Rollout of {desired} exceeded its progress deadline; {last} remains the last successful image."
    )
}
