//! `kubectl trussium restart NAME [--wait [--timeout D]] [--force]`: rolls
//! the runtime's pods, declaratively. Sets `runtime.trussium.io/restartedAt`
//! on the runtime (the time, as `kubectl rollout restart` writes it); the
//! operator copies it into the pod template, and the pods roll like for any
//! template change.

use std::time::Duration;

use clap::Args;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use trussium_api::duration;
use trussium_api::restart::RESTARTED_AT;

use crate::cli::RuntimeName;
use crate::client::Target;
use crate::error::{Error, Result};
use crate::interpret::desired_replicas;
use crate::output::{self, Palette};
use crate::rollout;
use crate::suspension::{Guard, guard, recorded_note};

#[derive(Args, Debug)]
pub struct RestartArgs {
    /// The runtime whose pods to restart
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Follow the rollout until every desired replica runs the restarted pod template
    #[arg(long)]
    pub wait: bool,

    /// How long --wait waits, e.g. 90s, 5m, 1h30m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration::parse, requires = "wait")]
    pub timeout: Duration,

    /// On a suspended runtime: record the restart anyway; it happens once the runtime is resumed
    #[arg(long)]
    pub force: bool,
}

pub const HELP: &str = "\
Sets the annotation runtime.trussium.io/restartedAt on the runtime to the
current time; the operator copies it into the pod template, so the pods roll
as for any change of it (maxUnavailable 0: the old pods serve until new ones
are ready). GitOps can set the same annotation. The Events say
RuntimeRestartRequested. A runtime scaled to zero has nothing to restart.
`kubectl rollout restart deploy/NAME` keeps working too.

Examples:
  kubectl trussium restart private-ai
  kubectl trussium restart private-ai --wait --timeout 10m";

pub async fn run(target: &Target, args: &RestartArgs, palette: Palette) -> Result<()> {
    let name = &args.name;
    let rt = target.get_runtime_spec(name).await?;
    if rt.metadata.deletion_timestamp.is_some() {
        return Err(Error::BeingDeleted {
            doing: "restarting",
            name: name.to_string(),
        });
    }
    let guarded = guard(&rt, &target.namespace, "restarting", args.force)?;
    if desired_replicas(&rt) == Some(0) {
        return output::println(&format!(
            "{name} runs no replica (scaled to zero): nothing to restart"
        ));
    }
    // Two restarts within a second would write the same value, which is
    // no new restart: the second waits for the next second.
    let mut at = now();
    if trussium_api::restart::restarted_at(&rt.metadata) == Some(at.as_str()) {
        tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
        at = now();
    }
    let patch = json!({"metadata": {"annotations": {RESTARTED_AT: at}}});
    let patched = target
        .runtimes()
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| target.fail(target.runtime_request("patch", name), e))?;
    output::println(&format!(
        "{name}: {} at {at}",
        palette.bold("restart requested")
    ))?;
    if guarded == Guard::Recorded {
        return output::println(&palette.warn(&recorded_note(name, &target.namespace)));
    }
    if !args.wait {
        return output::println(&palette.dim(&format!(
            "Follow the rollout with: kubectl trussium status {name} -n {} --watch",
            target.namespace
        )));
    }
    rollout::wait_restart(target, patched, &at, args.timeout, palette).await
}

/// The time now, to the second, as kubectl writes its restartedAt (RFC 3339).
fn now() -> String {
    let now = k8s_openapi::jiff::Timestamp::now();
    k8s_openapi::jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Command, try_parse};

    #[test]
    fn restart_takes_a_name_and_wait_like_upgrade() {
        let cli = try_parse(&["restart", "rt", "--wait", "--timeout", "90s"])
            .unwrap_or_else(|e| panic!("{e}"));
        let Command::Restart(args) = cli.command else {
            panic!("not restart");
        };
        assert_eq!(&*args.name, "rt");
        assert!(args.wait);
        assert_eq!(args.timeout, Duration::from_secs(90));
        assert!(try_parse(&["restart"]).is_err(), "a name is required");
        let err = try_parse(&["restart", "rt", "--timeout", "1m"])
            .err()
            .unwrap_or_else(|| panic!("--timeout without --wait accepted"));
        assert_eq!(err.exit_code(), 2);
        let err = try_parse(&["restart", "rt", "--wait", "--timeout", "soon"])
            .err()
            .unwrap_or_else(|| panic!("a bad duration accepted"));
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn the_time_is_whole_seconds_in_rfc_3339() {
        let at = now();
        assert!(at.ends_with('Z') && !at.contains('.'), "{at}");
        assert!(at.parse::<k8s_openapi::jiff::Timestamp>().is_ok(), "{at}");
    }
}
