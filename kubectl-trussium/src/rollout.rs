//! Following a rollout (`upgrade --wait`, `rollback --wait`, `create
//! --wait`: of a new spec.image; `restart --wait`: of a restart) until the
//! operator reports it complete or failed, or time runs out.

use std::time::Duration;

use kube::ResourceExt;
use trussium_api::image::{split_reference, version_of};
use trussium_api::{TrussiumRuntime, condition_type, reason};

use crate::client::Target;
use crate::error::{Error, RUNTIMES, Request, Result};
use crate::fetched::Fetched;
use crate::follow::{Ending, Judgment, Watching, follow};
use crate::interpret::desired_replicas;
use crate::output::{self, Palette};
use crate::terminal::safe;

/// Where a rollout stands, as far as `--wait` is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    Waiting(String),
    Complete,
    Failed(String),
}

/// Reads the status for `generation` (the one our patch produced) and the
/// `image` it asked for. Older status, or a status about another image, is
/// never taken for an answer.
pub fn assess(rt: &TrussiumRuntime, generation: i64, image: &str) -> Progress {
    let Some(status) = &rt.status else {
        return Progress::Waiting("waiting for the operator to report status".to_string());
    };
    let observed = status.observed_generation.unwrap_or(0);
    if observed < generation {
        return Progress::Waiting(format!(
            "waiting for the operator to observe generation {generation} (status is at {observed})"
        ));
    }
    if let Some(desired) = &status.desired_image
        && desired != image
    {
        return Progress::Waiting(format!(
            "waiting for the operator to pick up {} (status wants {})",
            safe(&version_of(image)),
            safe(&version_of(desired))
        ));
    }
    let upgrading = status
        .condition(condition_type::UPGRADING)
        .filter(|c| c.observed_generation.is_none_or(|g| g >= generation));
    let ready = status.condition(condition_type::READY).is_some_and(|c| {
        c.status == "True" && c.observed_generation.is_none_or(|g| g >= generation)
    });
    match upgrading.map(|c| c.reason.as_str()) {
        Some(reason::UPGRADE_FAILED) => Progress::Failed(
            upgrading
                .map(|c| c.message.clone())
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "the operator reported UpgradeFailed".to_string()),
        ),
        Some(reason::UPGRADE_COMPLETE) => Progress::Complete,
        // Not an upgrade (e.g. the first rollout, or the image was already
        // there): done once that image is the last successful one and Ready.
        Some(reason::NO_UPGRADE) | None
            if ready && status.last_successful_image.as_deref() == Some(image) =>
        {
            Progress::Complete
        }
        _ => Progress::Waiting(describe(rt)),
    }
}

/// Reads the status for the restart `at` (the value our patch wrote): done
/// once the pod template carries it and every desired replica runs that
/// template, failed once the rollout passed its progress deadline.
pub fn assess_restart(rt: &TrussiumRuntime, at: &str) -> Progress {
    let Some(status) = &rt.status else {
        return Progress::Waiting("waiting for the operator to report status".to_string());
    };
    let condition = |type_: &str| status.condition(type_).filter(|c| c.status == "True");
    if status.restarted_at.as_deref() != Some(at) {
        // Stalled on something that keeps the operator from applying
        // anything (a missing Secret, an invalid spec, a refused object):
        // the restart cannot reach the pods until that is fixed. A failed
        // rollout does not keep it from applying: the restart may mend it.
        if let Some(stalled) = condition(condition_type::STALLED)
            .filter(|c| c.reason != reason::PROGRESS_DEADLINE_EXCEEDED)
        {
            return Progress::Failed(format!(
                "the operator cannot apply the restart: {}",
                stalled.message
            ));
        }
        return Progress::Waiting(
            "waiting for the operator to put the restart into the pod template".to_string(),
        );
    }
    if let Some(degraded) = condition(condition_type::DEGRADED)
        .filter(|c| c.reason == reason::PROGRESS_DEADLINE_EXCEEDED)
    {
        return Progress::Failed(degraded.message.clone());
    }
    // The status that first carries the restart already reports its
    // rollout (the template differs from the one the counts describe), so
    // a Ready left over from before is never taken for the answer.
    match condition(condition_type::READY) {
        Some(ready) if ready.reason == reason::RUNTIME_READY => Progress::Complete,
        _ => Progress::Waiting(describe(rt)),
    }
}

/// The live progress line: replicas, current version and what the operator says.
pub fn describe(rt: &TrussiumRuntime) -> String {
    let status = rt.status.clone().unwrap_or_default();
    let ready = status.ready_replicas.unwrap_or(0);
    let desired = desired_replicas(rt).map_or("?".to_string(), |d| d.to_string());
    let current = status
        .current_image
        .as_deref()
        .map_or("-".to_string(), |i| safe(&version_of(i)));
    let mut line = format!("{ready}/{desired} ready, current {current}");
    let said = status
        .condition(condition_type::UPGRADING)
        .filter(|c| c.status == "True")
        .or_else(|| {
            status
                .condition(condition_type::DEGRADED)
                .filter(|c| c.status == "True")
        })
        .or_else(|| status.condition(condition_type::PROGRESSING));
    if let Some(c) = said {
        line.push_str(&format!(", {}", safe(&c.reason)));
        if !c.message.is_empty() {
            line.push_str(&format!(": {}", safe(&c.message)));
        }
    }
    line
}

/// The replicas of a completed rollout: the desired ones, all running the
/// new image (Ready says so), never more. The Deployment's ready count may
/// still include an old pod on its way out of a surge.
pub fn completed_replicas(rt: &TrussiumRuntime) -> String {
    let ready = rt
        .status
        .as_ref()
        .and_then(|s| s.ready_replicas)
        .unwrap_or(0);
    match desired_replicas(rt) {
        Some(desired) => format!("{}/{desired} ready", ready.min(desired)),
        None => format!("{ready} ready"),
    }
}

/// How a message names the change from one image to another: the versions
/// when only they differ, the whole references when the repository changes
/// too (a tag alone would hide where the image now comes from).
pub fn image_change(from: &str, to: &str) -> (String, String) {
    let (from_repository, _, _) = split_reference(from);
    let (to_repository, _, _) = split_reference(to);
    if from_repository == to_repository {
        (safe(&version_of(from)), safe(&version_of(to)))
    } else {
        (safe(from), safe(to))
    }
}

/// Which command is waiting, for its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Upgrade,
    Rollback,
    /// A new runtime's (`create --wait`).
    FirstRollout,
    Restart,
}

impl Action {
    /// The noun: "upgrade", "rollback".
    pub fn noun(self) -> &'static str {
        match self {
            Action::Upgrade => "upgrade",
            Action::Rollback => "rollback",
            Action::FirstRollout => "first rollout",
            Action::Restart => "restart",
        }
    }

    fn doing(self) -> &'static str {
        match self {
            Action::Upgrade => "upgrading",
            Action::Rollback => "rolling back",
            Action::FirstRollout => "rolling out",
            Action::Restart => "restarting",
        }
    }

    fn done(self) -> &'static str {
        match self {
            Action::Upgrade => "upgraded",
            Action::Rollback => "rolled back",
            Action::FirstRollout => "rolled out",
            Action::Restart => "restarted",
        }
    }
}

/// What a rollout is to reach.
#[derive(Debug, Clone, Copy)]
enum Goal<'a> {
    /// The status of `generation` reports `image` rolled out.
    Image { generation: i64, image: &'a str },
    /// The pods run the template of the restart `at`.
    Restart { at: &'a str },
}

impl Goal<'_> {
    fn assess(self, rt: &TrussiumRuntime) -> Progress {
        match self {
            Goal::Image { generation, image } => assess(rt, generation, image),
            Goal::Restart { at } => assess_restart(rt, at),
        }
    }

    /// Where it goes, for messages: " to v1.23.0", or nothing.
    fn to(self) -> String {
        match self {
            Goal::Image { image, .. } => format!(" to {}", version_of(image)),
            Goal::Restart { .. } => String::new(),
        }
    }

    /// As [`Goal::to`], with the whole image reference.
    fn to_image(self) -> String {
        match self {
            Goal::Image { image, .. } => format!(" to {image}"),
            Goal::Restart { .. } => String::new(),
        }
    }
}

/// Follows the runtime from the object our patch returned (`patched`, at
/// `generation`, asking for `image`) until [`assess`] has an answer or
/// `timeout` elapses: exit codes 0, 3 (failed), 4 (timeout).
pub async fn wait(
    action: Action,
    target: &Target,
    patched: TrussiumRuntime,
    generation: i64,
    image: &str,
    timeout: Duration,
    palette: Palette,
) -> Result<()> {
    let goal = Goal::Image { generation, image };
    follow_to(action, target, patched, goal, timeout, palette).await
}

/// [`wait`] for the restart `at` (see [`assess_restart`]), with the same
/// exit codes.
pub async fn wait_restart(
    target: &Target,
    patched: TrussiumRuntime,
    at: &str,
    timeout: Duration,
    palette: Palette,
) -> Result<()> {
    let goal = Goal::Restart { at };
    follow_to(Action::Restart, target, patched, goal, timeout, palette).await
}

async fn follow_to(
    action: Action,
    target: &Target,
    patched: TrussiumRuntime,
    goal: Goal<'_>,
    timeout: Duration,
    palette: Palette,
) -> Result<()> {
    let name = patched.name_any();
    let request = Request::new("watch", RUNTIMES)
        .namespace(Some(&target.namespace))
        .name(&name);
    let watching = Watching {
        target,
        request,
        label: format!("{} {name}{}", action.doing(), goal.to()),
        timeout,
        palette,
    };
    // Read as far as it can be: a status that does not read (see
    // crate::fetched) is waited out, not an error.
    let first = Some(Fetched::from_runtime(patched));
    let ending = follow(&watching, target.fetched(), &name, first, |fetched| {
        judge(fetched, goal)
    })
    .await?;
    let rollout = Rollout {
        action,
        target,
        name,
        to: goal.to(),
        to_image: goal.to_image(),
        timeout,
        palette,
    };
    rollout.conclude(ending)
}

/// Where the followed runtime stands: done (completed or failed) or what it
/// waits for.
fn judge(fetched: &Fetched, goal: Goal) -> Judgment<Outcome> {
    let Some(rt) = fetched.whole_runtime() else {
        return Judgment::Waiting(format!(
            "cannot read its status: {}",
            safe(fetched.problem.as_deref().unwrap_or_default())
        ));
    };
    match goal.assess(rt) {
        Progress::Complete => Judgment::Done(Ok(rt.clone())),
        Progress::Failed(message) => Judgment::Done(Err((message, rt.clone()))),
        Progress::Waiting(text) => Judgment::Waiting(text),
    }
}

/// A rollout's end: the completed runtime, or the failure's message and the
/// runtime as it failed.
type Outcome = std::result::Result<TrussiumRuntime, (String, TrussiumRuntime)>;

/// The rollout [`wait`] followed, for its last words.
struct Rollout<'a> {
    action: Action,
    target: &'a Target,
    name: String,
    /// See [`Goal::to`] and [`Goal::to_image`].
    to: String,
    to_image: String,
    timeout: Duration,
    palette: Palette,
}

impl Rollout<'_> {
    /// Prints how it ended; a failure, a timeout or a deletion is an error
    /// (see `Error::exit`).
    fn conclude(self, ending: Ending<Outcome>) -> Result<()> {
        let Rollout {
            action,
            target,
            name,
            to,
            to_image,
            timeout,
            palette,
        } = self;
        match ending {
            Ending::Done {
                outcome: Ok(rt),
                seconds,
                ..
            } => output::println(&format!(
                "{} {name} {}{to} ({}) in {seconds}s",
                palette.good("✓"),
                action.done(),
                completed_replicas(&rt),
            )),
            Ending::Done {
                outcome: Err((message, rt)),
                ..
            } => {
                output::println(&format!(
                    "{} {name}: {}{to} failed",
                    palette.bad("✗"),
                    action.noun()
                ))?;
                let kept = rt.status.and_then(|s| s.last_successful_image);
                if let Some(kept) = kept {
                    output::println(&format!("  last successful image is still {}", safe(&kept)))?;
                }
                Err(Error::RolloutFailed {
                    action: action.noun(),
                    name,
                    to: to_image,
                    message,
                })
            }
            Ending::TimedOut { last } => Err(Error::Timeout {
                rollout: format!("{} of {name}{to}", action.noun()),
                after: timeout,
                last,
                follow: format!(
                    "kubectl trussium status {name} -n {} --watch",
                    target.namespace
                ),
            }),
            Ending::Deleted => Err(Error::Deleted {
                object: format!(
                    "TrussiumRuntime {name:?} in namespace {:?}",
                    target.namespace
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const IMAGE: &str = "ghcr.io/trussiumhq/trussium:v1.23.0";
    const OLD: &str = "ghcr.io/trussiumhq/trussium:v1.22.0";

    fn rt(observed: i64, desired: &str, upgrading: Option<(&str, &str, i64)>) -> TrussiumRuntime {
        let mut conditions = vec![json!({
            "type": "Ready", "status": "True", "reason": "RuntimeReady", "message": "",
            "lastTransitionTime": "2023-11-14T22:00:00Z", "observedGeneration": observed
        })];
        if let Some((status, reason, gen_)) = upgrading {
            conditions.push(json!({
                "type": "Upgrading", "status": status, "reason": reason, "message": format!("{reason} message"),
                "lastTransitionTime": "2023-11-14T22:00:00Z", "observedGeneration": gen_
            }));
        }
        serde_json::from_value(json!({
            "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
            "metadata": {"name": "rt", "namespace": "ai", "generation": 7},
            "spec": {"image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.23.0"},
                     "replicas": 3, "provider": {"type": "ollama", "model": "m"}},
            "status": {"observedGeneration": observed, "desiredImage": desired, "currentImage": OLD,
                       "lastSuccessfulImage": OLD, "readyReplicas": 2, "desiredReplicas": 3,
                       "conditions": conditions}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn restarted(at: Option<&str>, conditions: &[(&str, &str, &str)]) -> TrussiumRuntime {
        let conditions: Vec<_> = conditions
            .iter()
            .map(|(t, s, r)| {
                json!({"type": t, "status": s, "reason": r, "message": format!("{r} message"),
                                    "lastTransitionTime": "2023-11-14T22:00:00Z"})
            })
            .collect();
        serde_json::from_value(json!({
            "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
            "metadata": {"name": "rt", "namespace": "ai", "generation": 7},
            "spec": {"image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.23.0"},
                     "replicas": 3, "provider": {"type": "ollama", "model": "m"}},
            "status": {"observedGeneration": 7, "restartedAt": at, "conditions": conditions}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_restart_is_done_once_the_operator_carries_it_and_ready_follows() {
        const AT: &str = "2026-12-04T10:00:00Z";
        let ready = [("Ready", "True", "RuntimeReady")];
        // Ready from before the restart reached the template: not an answer.
        assert!(matches!(
            assess_restart(&restarted(None, &ready), AT),
            Progress::Waiting(_)
        ));
        assert!(matches!(
            assess_restart(&restarted(Some("2026-12-01T00:00:00Z"), &ready), AT),
            Progress::Waiting(_)
        ));
        let rolling = [
            ("Ready", "False", "RuntimeNotReady"),
            ("Progressing", "True", "DeploymentProgressing"),
        ];
        assert!(matches!(
            assess_restart(&restarted(Some(AT), &rolling), AT),
            Progress::Waiting(_)
        ));
        assert_eq!(
            assess_restart(&restarted(Some(AT), &ready), AT),
            Progress::Complete
        );
        let failed = [
            ("Ready", "False", "DeploymentFailed"),
            ("Degraded", "True", "ProgressDeadlineExceeded"),
        ];
        assert_eq!(
            assess_restart(&restarted(Some(AT), &failed), AT),
            Progress::Failed("ProgressDeadlineExceeded message".into())
        );
        // Stalled on a missing Secret before the restart reached the pods:
        // it never will by itself.
        let stalled = [("Stalled", "True", "SecretNotFound")];
        assert_eq!(
            assess_restart(&restarted(None, &stalled), AT),
            Progress::Failed(
                "the operator cannot apply the restart: SecretNotFound message".into()
            )
        );
        // A failed rollout does not keep the restart from the pods.
        let deadline = [("Stalled", "True", "ProgressDeadlineExceeded")];
        assert!(matches!(
            assess_restart(&restarted(None, &deadline), AT),
            Progress::Waiting(_)
        ));
        // Scaled to zero meanwhile: Ready for another reason, still waiting.
        let zero = [("Ready", "True", "ScaledToZero")];
        assert!(matches!(
            assess_restart(&restarted(Some(AT), &zero), AT),
            Progress::Waiting(_)
        ));
    }

    #[test]
    fn the_completion_line_never_counts_more_than_desired() {
        let mut surge = rt(7, IMAGE, Some(("False", "UpgradeComplete", 7)));
        if let Some(s) = surge.status.as_mut() {
            s.ready_replicas = Some(2);
            s.desired_replicas = Some(1);
        }
        assert_eq!(completed_replicas(&surge), "1/1 ready");
        if let Some(s) = surge.status.as_mut() {
            s.ready_replicas = Some(3);
            s.desired_replicas = Some(3);
        }
        assert_eq!(completed_replicas(&surge), "3/3 ready");
        if let Some(s) = surge.status.as_mut() {
            s.ready_replicas = Some(0);
            s.desired_replicas = Some(0);
        }
        assert_eq!(completed_replicas(&surge), "0/0 ready");
    }

    #[test]
    fn old_generations_are_not_answers() {
        // UpgradeComplete, but for generation 6: our patch made 7.
        let p = assess(&rt(6, OLD, Some(("False", "UpgradeComplete", 6))), 7, IMAGE);
        assert!(
            matches!(p, Progress::Waiting(ref t) if t.contains("generation 7")),
            "{p:?}"
        );
        // Status at 7 but the condition is still about 6.
        let p = assess(
            &rt(7, IMAGE, Some(("False", "UpgradeComplete", 6))),
            7,
            IMAGE,
        );
        assert!(matches!(p, Progress::Waiting(_)), "{p:?}");
        // Status about another image.
        let p = assess(&rt(7, OLD, Some(("False", "UpgradeComplete", 7))), 7, IMAGE);
        assert!(
            matches!(p, Progress::Waiting(ref t) if t.contains("pick up v1.23.0")),
            "{p:?}"
        );
    }

    #[test]
    fn a_new_repository_is_named_whole() {
        assert_eq!(
            image_change("r/a:v1", "r/a:v2"),
            ("v1".to_string(), "v2".to_string())
        );
        assert_eq!(
            image_change("ghcr.io/trussiumhq/trussium:v1", "evil.io/backdoor:v1"),
            (
                "ghcr.io/trussiumhq/trussium:v1".to_string(),
                "evil.io/backdoor:v1".to_string()
            )
        );
    }

    #[test]
    fn outcomes() {
        assert_eq!(
            assess(
                &rt(7, IMAGE, Some(("False", "UpgradeComplete", 7))),
                7,
                IMAGE
            ),
            Progress::Complete
        );
        assert_eq!(
            assess(&rt(8, IMAGE, Some(("False", "UpgradeFailed", 8))), 7, IMAGE),
            Progress::Failed("UpgradeFailed message".into())
        );
        let p = assess(
            &rt(7, IMAGE, Some(("True", "UpgradeInProgress", 7))),
            7,
            IMAGE,
        );
        assert_eq!(
            p,
            Progress::Waiting(
                "2/3 ready, current v1.22.0, UpgradeInProgress: UpgradeInProgress message".into()
            )
        );
        let mut first = rt(7, IMAGE, Some(("False", "NoUpgrade", 7)));
        assert!(matches!(assess(&first, 7, IMAGE), Progress::Waiting(_)));
        if let Some(s) = first.status.as_mut() {
            s.last_successful_image = Some(IMAGE.into());
        }
        assert_eq!(assess(&first, 7, IMAGE), Progress::Complete);
        let mut none = rt(7, IMAGE, None);
        none.status = None;
        assert!(matches!(assess(&none, 7, IMAGE), Progress::Waiting(_)));
    }
}
