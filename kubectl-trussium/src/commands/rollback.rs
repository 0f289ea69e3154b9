//! `kubectl trussium rollback NAME [--to-image I | --to-revision N] [--wait
//! [--timeout D]]`: sets spec.image to an earlier image the runtime ran (see
//! [`crate::revisions::rollback_target`]), then optionally follows the rollout
//! like `upgrade --wait`. Only the runtime's spec changes, never its
//! Deployment (the operator owns that).

use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_api::image::split_reference;

use crate::cli::RollbackArgs;
use crate::client::Target;
use crate::error::{Error, Result};
use crate::output::{self, Palette};
use crate::revisions::{self, Choice};
use crate::rollout::{self, Action};

pub async fn run(target: &Target, args: &RollbackArgs, palette: Palette) -> Result<()> {
    let name = &args.name;
    let rt = target.get_runtime(name).await?;
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
        let patch = reference_patch_if_unchanged(&rt, &format!("ghcr.io/trussiumhq/trussium@{DIGEST}"));
        assert_eq!(patch["spec"]["image"]["tag"], Value::Null);
        assert_eq!(patch["spec"]["image"]["digest"], DIGEST);
    }
}
