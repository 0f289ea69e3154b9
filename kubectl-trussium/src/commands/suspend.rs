//! `kubectl trussium suspend NAME [--reason TEXT]`: hands off. Sets the
//! suspend annotation; the operator then changes none of the runtime's
//! objects until `resume`.

use clap::Args;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use trussium_api::suspension::{
    SUSPEND_REASON, SUSPENDED, SUSPENDED_VALUE, Suspension, suspension,
};

use crate::cli::RuntimeName;
use crate::client::Target;
use crate::error::{Error, Result};
use crate::output::{self, Palette};
use crate::terminal::safe;

#[derive(Args, Debug)]
pub struct SuspendArgs {
    /// The runtime to suspend
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Why, for whoever finds it suspended (shown by status and in the Event)
    #[arg(long, value_name = "TEXT", value_parser = parse_reason)]
    pub reason: Option<String>,
}

pub const HELP: &str = "\
While suspended the operator creates, changes and deletes none of the
runtime's objects: changes made by hand (kubectl scale, kubectl set image)
stay. Its status stays honest: Suspended=True, Progressing=False/Suspended,
Ready as the Deployment is. upgrade, scale, rollback and restart refuse (--force
records the change for later). Deleting the runtime still works.
resume hands the runtime back: one reconcile puts every object back to the spec.

Examples:
  kubectl trussium suspend private-ai --reason 'hotfix by hand, INC-4211'
  kubectl trussium resume private-ai";

/// The longest reason: it goes into an annotation, a condition message and
/// an Event note, which must stay readable.
const MAX_REASON: usize = 256;

fn parse_reason(value: &str) -> Result<String, String> {
    let reason = value.trim();
    if reason.is_empty() {
        return Err("the reason is empty: say why, or leave --reason out".to_string());
    }
    if reason.chars().any(char::is_control) {
        return Err("the reason must be one line of text, without control characters".to_string());
    }
    if reason.len() > MAX_REASON {
        return Err(format!(
            "the reason is {} bytes; at most {MAX_REASON}",
            reason.len()
        ));
    }
    Ok(reason.to_string())
}

pub async fn run(target: &Target, args: &SuspendArgs, palette: Palette) -> Result<()> {
    let name = &args.name;
    let rt = target.get_runtime_spec(name).await?;
    if rt.metadata.deletion_timestamp.is_some() {
        return Err(Error::BeingDeleted {
            doing: "suspending",
            name: name.to_string(),
        });
    }
    let wanted = args.reason.as_deref();
    if let Suspension::Suspended { reason } = suspension(&rt.metadata)
        && reason == wanted
    {
        return output::println(&format!(
            "{name} is already suspended{}; nothing changed",
            reason.map_or(String::new(), |r| format!(" (reason: {})", safe(r)))
        ));
    }
    let patch = json!({"metadata": {"annotations": {
        SUSPENDED: SUSPENDED_VALUE,
        SUSPEND_REASON: wanted,
    }}});
    target
        .runtimes()
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| target.fail(target.runtime_request("patch", name), e))?;
    let ns = &target.namespace;
    output::println(&format!(
        "{name} {}: the operator changes none of its objects until it is resumed",
        palette.bold("suspended")
    ))?;
    output::println(&palette.dim(&format!(
        "Hand changes to its objects stay until then. Resume with: kubectl trussium resume {name} -n {ns}"
    )))
}

#[cfg(test)]
mod tests {
    use crate::cli::{Command, try_parse};

    #[test]
    fn the_reason_is_one_trimmed_line_of_bounded_length() {
        let cli = try_parse(&["suspend", "rt", "--reason", "  INC-4211 "])
            .unwrap_or_else(|e| panic!("{e}"));
        let Command::Suspend(args) = cli.command else {
            panic!("not suspend");
        };
        assert_eq!(args.reason.as_deref(), Some("INC-4211"));
        for (bad, says) in [
            ("", "the reason is empty"),
            ("  ", "the reason is empty"),
            ("a\nb", "one line"),
            (&"x".repeat(300), "at most 256"),
        ] {
            let err = try_parse(&["suspend", "rt", "--reason", bad])
                .err()
                .unwrap_or_else(|| panic!("{bad:?} accepted"));
            assert_eq!(err.exit_code(), 2);
            assert!(err.to_string().contains(says), "{err}");
        }
        assert!(try_parse(&["suspend"]).is_err(), "a name is required");
    }
}
