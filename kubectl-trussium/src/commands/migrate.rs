//! `kubectl trussium migrate [--dry-run]`: the storage migration
//! ([`crate::migration`]) on its own, for Helm and kustomize users who
//! upgrade the CRD without `install`.

use crate::cli::MigrateArgs;
use crate::client::Target;
use crate::error::Result;
use crate::migration;
use crate::output::{self, Palette};

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
