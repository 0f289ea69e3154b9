//! `kubectl trussium resume NAME`: removes the suspend annotation; the
//! operator's next reconcile puts every object back to the spec and says
//! in an Event how many it changed.

use clap::Args;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use trussium_api::suspension::{SUSPEND_REASON, SUSPENDED, Suspension, suspension};

use crate::cli::RuntimeName;
use crate::client::Target;
use crate::error::Result;
use crate::output::{self, Palette};
use crate::terminal::safe;

#[derive(Args, Debug)]
pub struct ResumeArgs {
    /// The runtime to resume
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,
}

pub const HELP: &str = "\
Hands a suspended runtime back to the operator: its next reconcile puts
every object back to the spec (hand changes made meanwhile are undone) and
the RuntimeResumed Event says how many objects it changed.

Examples:
  kubectl trussium resume private-ai
  kubectl trussium events private-ai";

pub async fn run(target: &Target, args: &ResumeArgs, palette: Palette) -> Result<()> {
    let name = &args.name;
    let rt = target.get_runtime_spec(name).await?;
    let ns = &target.namespace;
    let message = match suspension(&rt.metadata) {
        Suspension::Active => {
            return output::println(&format!("{name} is not suspended; nothing changed"));
        }
        Suspension::Ignored { value } => format!(
            "{name}: removed the annotation {SUSPENDED}={:?}, which suspended nothing (only \"true\" does)",
            safe(value)
        ),
        Suspension::Suspended { .. } => format!(
            "{name} {}: the operator puts its objects back to the spec now",
            palette.bold("resumed")
        ),
    };
    let patch = json!({"metadata": {"annotations": {SUSPENDED: null, SUSPEND_REASON: null}}});
    target
        .runtimes()
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| target.fail(target.runtime_request("patch", name), e))?;
    output::println(&message)?;
    output::println(&palette.dim(&format!(
        "What it changed: kubectl trussium events {name} -n {ns}"
    )))
}
