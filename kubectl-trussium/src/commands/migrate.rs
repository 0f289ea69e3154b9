//! `kubectl trussium migrate [--dry-run]`: the storage migration
//! ([`crate::migration`]) on its own, for Helm and kustomize users who
//! upgrade the CRD without `install`.

use clap::Args;

use crate::client::Target;
use crate::error::Result;
use crate::migration;
use crate::output::{self, Palette};

#[derive(Args, Debug)]
pub struct MigrateArgs {
    /// Say what would be rewritten, write nothing
    #[arg(long)]
    pub dry_run: bool,
}

pub const HELP: &str = "\
Rewrites every TrussiumRuntime in all namespaces once, as stored (guarded by
its resourceVersion: a runtime changed meanwhile is left to that change; no
spec, status or generation changes, no Event), then sets the CRD's
status.storedVersions to v1beta1, so that a later CRD may stop serving
v1alpha1. Needs get on customresourcedefinitions, list and update on
trussiumruntimes in all namespaces and patch on
customresourcedefinitions/status: your rights, not the operator's. Safe to
interrupt and run again; with nothing to migrate it writes nothing.
`install` runs it after applying the CRD; run it yourself after upgrading
the CRD with Helm or kustomize.

Examples:
  kubectl trussium migrate --dry-run
  kubectl trussium migrate";

pub async fn run(target: &Target, args: &MigrateArgs, palette: Palette) -> Result<()> {
    let report = migration::run(target, args.dry_run, |done, total| {
        eprintln!("migrate: {done} of {total} runtimes rewritten");
    })
    .await?;
    let mark = if args.dry_run {
        palette.dim("(dry run)")
    } else {
        palette.good("✓")
    };
    output::println(&format!("{mark} {}", report.summary(args.dry_run)))
}
