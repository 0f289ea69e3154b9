//! Following a rollout of a new spec.image (`upgrade --wait`, `rollback
//! --wait`) until the operator reports it complete or failed, or time runs out.

use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::ResourceExt;
use kube::runtime::{WatchStreamExt, watcher};
use trussium_api::image::version_of;
use trussium_api::{TrussiumRuntime, condition_type, reason};

use crate::client::{Target, watch_error_is_fatal};
use crate::error::{Error, RUNTIMES, Request, Result};
use crate::interpret::desired_replicas;
use crate::output::{self, Palette};

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
            version_of(image),
            version_of(desired)
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

/// The live progress line: replicas, current version and what the operator says.
pub fn describe(rt: &TrussiumRuntime) -> String {
    let status = rt.status.clone().unwrap_or_default();
    let ready = status.ready_replicas.unwrap_or(0);
    let desired = desired_replicas(rt).map_or("?".to_string(), |d| d.to_string());
    let current = status
        .current_image
        .as_deref()
        .map_or("-".to_string(), version_of);
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
        line.push_str(&format!(", {}", c.reason));
        if !c.message.is_empty() {
            line.push_str(&format!(": {}", c.message));
        }
    }
    line
}

/// One status line that updates in place on a terminal and prints only
/// changes otherwise.
struct ProgressLine {
    tty: bool,
    last: String,
    started: Instant,
    tick: usize,
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl ProgressLine {
    fn update(&mut self, text: &str, palette: Palette) -> Result<()> {
        if self.tty {
            self.tick += 1;
            let spin = SPINNER[self.tick % SPINNER.len()];
            let elapsed = self.started.elapsed().as_secs();
            output::print(&format!(
                "\r\u{1b}[2K{} {text} {}",
                palette.warn(spin),
                palette.dim(&format!("({elapsed}s)"))
            ))?;
        } else if text != self.last {
            output::println(text)?;
        }
        self.last = text.to_string();
        Ok(())
    }

    fn clear(&self) -> Result<()> {
        if self.tty {
            output::print("\r\u{1b}[2K")?;
        }
        Ok(())
    }
}

/// Which command is waiting, for its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Upgrade,
    Rollback,
}

impl Action {
    /// The noun: "upgrade", "rollback".
    pub fn noun(self) -> &'static str {
        match self {
            Action::Upgrade => "upgrade",
            Action::Rollback => "rollback",
        }
    }

    fn doing(self) -> &'static str {
        match self {
            Action::Upgrade => "upgrading",
            Action::Rollback => "rolling back",
        }
    }

    fn done(self) -> &'static str {
        match self {
            Action::Upgrade => "upgraded",
            Action::Rollback => "rolled back",
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
    let name = patched.name_any();
    let version = version_of(image);
    let deadline = tokio::time::Instant::now() + timeout;
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut stream = watcher(target.runtimes(), config).default_backoff().boxed();
    let mut progress = ProgressLine {
        tty: output::stdout_is_tty(),
        last: String::new(),
        started: Instant::now(),
        tick: 0,
    };
    let mut ticker = tokio::time::interval(Duration::from_millis(250));
    let mut latest = patched;
    let request = Request::new("watch", RUNTIMES)
        .namespace(Some(&target.namespace))
        .name(&name);
    loop {
        match assess(&latest, generation, image) {
            Progress::Complete => {
                progress.clear()?;
                let ready = latest
                    .status
                    .as_ref()
                    .and_then(|s| s.ready_replicas)
                    .unwrap_or(0);
                let desired = desired_replicas(&latest).map_or("?".to_string(), |d| d.to_string());
                output::println(&format!(
                    "{} {name} {} to {version} ({ready}/{desired} ready) in {}s",
                    palette.good("✓"),
                    action.done(),
                    progress.started.elapsed().as_secs()
                ))?;
                return Ok(());
            }
            Progress::Failed(message) => {
                progress.clear()?;
                let kept = latest
                    .status
                    .as_ref()
                    .and_then(|s| s.last_successful_image.clone());
                output::println(&format!(
                    "{} {name}: {} to {version} failed",
                    palette.bad("✗"),
                    action.noun()
                ))?;
                if let Some(kept) = kept {
                    output::println(&format!("  last successful image is still {kept}"))?;
                }
                return Err(Error::RolloutFailed {
                    action: action.noun(),
                    name,
                    image: image.to_string(),
                    message,
                });
            }
            Progress::Waiting(text) => {
                progress.update(
                    &format!("{} {name} to {version}: {text}", action.doing()),
                    palette,
                )?;
            }
        }
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => {
                progress.clear()?;
                let last = match assess(&latest, generation, image) {
                    Progress::Waiting(text) => text,
                    _ => describe(&latest),
                };
                return Err(Error::Timeout {
                    rollout: format!("{} of {name} to {version}", action.noun()),
                    after: timeout,
                    name,
                    namespace: target.namespace.clone(),
                    last,
                });
            }
            _ = ticker.tick(), if progress.tty => {}
            item = stream.next() => match item {
                Some(Ok(watcher::Event::Apply(rt) | watcher::Event::InitApply(rt))) => latest = rt,
                Some(Ok(watcher::Event::Delete(_))) => {
                    progress.clear()?;
                    return Err(Error::Deleted { name, namespace: target.namespace.clone() });
                }
                Some(Ok(_)) => {}
                Some(Err(e)) if watch_error_is_fatal(&e) => {
                    progress.clear()?;
                    return Err(target.fail_watch(request, e));
                }
                Some(Err(_)) => {}
                None => {
                    return Err(Error::Api { request, code: 0, message: "the watch ended".to_string() });
                }
            },
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
            "apiVersion": "runtime.trussium.io/v1alpha1", "kind": "TrussiumRuntime",
            "metadata": {"name": "rt", "namespace": "ai", "generation": 7},
            "spec": {"image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.23.0"},
                     "replicas": 3, "provider": {"type": "ollama", "model": "m"}},
            "status": {"observedGeneration": observed, "desiredImage": desired, "currentImage": OLD,
                       "lastSuccessfulImage": OLD, "readyReplicas": 2, "desiredReplicas": 3,
                       "conditions": conditions}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
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
