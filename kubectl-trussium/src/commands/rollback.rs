//! `kubectl trussium rollback NAME [--to-image I | --to-revision N] [--wait
//! [--timeout D]]`: sets spec.image to an earlier image the runtime ran (see
//! [`crate::revisions::rollback_target`]), then optionally follows the rollout
//! like `upgrade --wait`. Only the runtime's spec changes, never its
//! Deployment (the operator owns that).

use std::time::Duration;

use clap::Args;
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_api::duration;
use trussium_api::image::split_reference;

use crate::cli::RuntimeName;
use crate::client::Target;
use crate::error::{Error, Result};
use crate::output::{self, Palette};
use crate::revisions::{self, Choice};
use crate::rollout::{self, Action};
use crate::suspension::{Guard, guard, recorded_note};

#[derive(Args, Debug)]
pub struct RollbackArgs {
    /// The runtime to roll back
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Follow the rollout until the operator reports it complete or failed
    #[arg(long)]
    pub wait: bool,

    /// On a suspended runtime: record the change in the spec anyway; it is applied once the runtime is resumed
    #[arg(long)]
    pub force: bool,

    /// How long --wait waits, e.g. 90s, 5m, 1h30m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration::parse, requires = "wait")]
    pub timeout: Duration,

    /// Go back to this image the runtime ran: a full reference, or its tag or digest
    #[arg(
        long,
        value_name = "IMAGE",
        conflicts_with = "to_revision",
        allow_hyphen_values = true
    )]
    pub to_image: Option<String>,

    /// Go back to the image of this revision (see `history`)
    #[arg(long, value_name = "REVISION", value_parser = clap::value_parser!(i64).range(1..), allow_negative_numbers = true)]
    pub to_revision: Option<i64>,
}

pub const HELP: &str = "\
Sets spec.image to an earlier image; the operator rolls it out. By default:
after a failed (or unfinished) upgrade, status.lastSuccessfulImage; after a
completed one, the image before it (as `kubectl rollout undo`). --to-image
and --to-revision pick any image the runtime ran (see `history`). Nothing
changes, and the exit code says why, when there is no earlier image, when
the image is already the desired one, when the runtime never ran it, when
the runtime is being deleted, or when it is suspended (--force records the
image for its resume).

Examples:
  kubectl trussium rollback private-ai
  kubectl trussium rollback private-ai --wait --timeout 10m
  kubectl trussium rollback private-ai --to-revision 3
  kubectl trussium rollback private-ai --to-image v1.22.0";

pub async fn run(target: &Target, args: &RollbackArgs, palette: Palette) -> Result<()> {
    let name = &args.name;
    let rt = target.get_runtime(name).await?;
    let guarded = guard(&rt, &target.namespace, "rolling back", args.force)?;
    let choice = match (&args.to_image, args.to_revision) {
        (Some(image), _) => Choice::Image(image.clone()),
        (None, Some(revision)) => Choice::Revision(revision),
        (None, None) => Choice::Previous,
    };
    let revisions = revisions::read(target, &rt).await?;
    let (image, revision) =
        revisions::rollback_target(&rt, &revisions, &choice).map_err(|refusal| {
            Error::RollbackRefused {
                name: name.to_string(),
                namespace: target.namespace.clone(),
                refusal,
            }
        })?;
    // The patch carries the resourceVersion we planned from: if the runtime
    // changed meanwhile, the API server refuses (409) and nothing changes.
    let patched = target
        .runtimes()
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(reference_patch_if_unchanged(&rt, &image)),
        )
        .await
        .map_err(|e| target.fail(target.runtime_request("patch", name), e))?;
    let generation = patched.metadata.generation.unwrap_or_default();
    let whence = match revision {
        Some(revision) => format!("rollback to revision {revision}"),
        None => "rollback to the last successful image".to_string(),
    };
    let (from, to) = rollout::image_change(&rt.spec.image.reference(), &image);
    output::println(&format!(
        "{name}: image {from} → {} ({whence}, generation {generation})",
        palette.bold(&to)
    ))?;
    if guarded == Guard::Recorded {
        // Nothing rolls out until it is resumed: there is nothing to wait for.
        return output::println(&palette.warn(&recorded_note(name, &target.namespace)));
    }
    if !args.wait {
        output::println(&palette.dim(&format!(
            "Follow the rollout with: kubectl trussium status {name} -n {} --watch",
            target.namespace
        )))?;
        return Ok(());
    }
    let image = patched.spec.image.reference();
    rollout::wait(
        Action::Rollback,
        target,
        patched,
        generation,
        &image,
        args.timeout,
        palette,
    )
    .await
}

/// The merge patch that sets spec.image to `image` (a tag removes the
/// digest and the other way round), if the runtime is still as read.
pub fn reference_patch_if_unchanged(rt: &TrussiumRuntime, image: &str) -> Value {
    let (repository, tag, digest) = split_reference(image);
    json!({
        "metadata": {"resourceVersion": rt.metadata.resource_version},
        "spec": {"image": {"repository": repository, "tag": tag, "digest": digest}},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Command, try_parse};
    use crate::fixtures::{UPGRADING, runtime};

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn sets_the_image_if_the_object_is_unchanged() {
        let mut rt = runtime(UPGRADING);
        rt.metadata.resource_version = Some("42".into());
        let patch = reference_patch_if_unchanged(&rt, "ghcr.io/trussiumhq/trussium:v1.22.0");
        assert_eq!(
            patch,
            json!({
                "metadata": {"resourceVersion": "42"},
                "spec": {"image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0", "digest": null}}
            })
        );
        // Back to a digest: the tag goes.
        let patch =
            reference_patch_if_unchanged(&rt, &format!("ghcr.io/trussiumhq/trussium@{DIGEST}"));
        assert_eq!(patch["spec"]["image"]["tag"], Value::Null);
        assert_eq!(patch["spec"]["image"]["digest"], DIGEST);
    }

    #[test]
    fn a_negative_revision_is_out_of_range() {
        for revision in ["-1", "0"] {
            let err = try_parse(&["rollback", "rt", "--to-revision", revision])
                .err()
                .unwrap_or_else(|| panic!("{revision} accepted"));
            assert_eq!(err.exit_code(), 2);
            let text = err.to_string();
            assert!(
                text.contains(&format!(
                    "invalid value '{revision}' for '--to-revision <REVISION>'"
                )) && text.contains("not in 1.."),
                "{text}"
            );
        }
    }

    #[test]
    fn rollback_takes_a_name_and_wait_like_upgrade() {
        let cli = try_parse(&["rollback", "rt", "--wait", "--timeout", "90s"])
            .unwrap_or_else(|e| panic!("{e}"));
        let Command::Rollback(args) = cli.command else {
            panic!("not rollback");
        };
        assert_eq!(&*args.name, "rt");
        assert!(args.wait);
        assert_eq!(args.timeout, Duration::from_secs(90));
        assert!(try_parse(&["rollback"]).is_err());
        assert!(try_parse(&["rollback", "rt", "--timeout", "1m"]).is_err());
    }

    #[test]
    fn rollback_picks_an_image_or_a_revision_not_both() {
        let cli =
            try_parse(&["rollback", "rt", "--to-revision", "3"]).unwrap_or_else(|e| panic!("{e}"));
        let Command::Rollback(args) = cli.command else {
            panic!("not rollback");
        };
        assert_eq!(args.to_revision, Some(3));
        assert!(try_parse(&["rollback", "rt", "--to-revision", "0"]).is_err());
        assert!(try_parse(&["rollback", "rt", "--to-image", "v1", "--to-revision", "2"]).is_err());
    }
}
