//! `kubectl trussium upgrade NAME --tag T | --digest sha256:… [--wait [--timeout D]]`:
//! changes only spec.image, then optionally follows the rollout.

use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

use crate::cli::{ImageTarget, UpgradeArgs};
use crate::client::Target;
use crate::error::{Error, Result};
use crate::output::{self, Palette};
use crate::rollout::{self, Action};
use crate::terminal::safe;

pub async fn run(target: &Target, args: &UpgradeArgs, palette: Palette) -> Result<()> {
    let name = &args.name;
    let api = target.runtimes();
    let before = target.get_runtime_spec(name).await?;
    if before.metadata.deletion_timestamp.is_some() {
        return Err(Error::BeingDeleted {
            doing: "upgrading",
            name: name.to_string(),
        });
    }
    let patched = api
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(tag_or_digest_patch(&args.target())),
        )
        .await
        .map_err(|e| target.fail(target.runtime_request("patch", name), e))?;
    let generation = patched.metadata.generation.unwrap_or_default();
    let image = patched.spec.image.reference();
    let previous = before.spec.image.reference();
    if previous == image {
        output::println(&format!(
            "{name}: spec.image is already {}; nothing changed",
            safe(&image)
        ))?;
    } else {
        let (from, to) = rollout::image_change(&previous, &image);
        output::println(&format!(
            "{name}: image {from} → {} (generation {generation})",
            palette.bold(&to)
        ))?;
    }
    if !args.wait {
        output::println(&palette.dim(&format!(
            "Follow the rollout with: kubectl trussium status {name} -n {} --watch",
            target.namespace
        )))?;
        return Ok(());
    }
    rollout::wait(
        Action::Upgrade,
        target,
        patched,
        generation,
        &image,
        args.timeout,
        palette,
    )
    .await
}

/// The JSON merge patch: set the one, remove the other.
pub fn tag_or_digest_patch(target: &ImageTarget) -> Value {
    match target {
        ImageTarget::Tag(tag) => json!({"spec": {"image": {"tag": tag, "digest": null}}}),
        ImageTarget::Digest(digest) => {
            json!({"spec": {"image": {"digest": digest, "tag": null}}})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_patch_sets_one_and_nulls_the_other() {
        assert_eq!(
            tag_or_digest_patch(&ImageTarget::Tag("v2".into())).to_string(),
            r#"{"spec":{"image":{"digest":null,"tag":"v2"}}}"#
        );
        assert_eq!(
            tag_or_digest_patch(&ImageTarget::Digest("sha256:ab".into())).to_string(),
            r#"{"spec":{"image":{"digest":"sha256:ab","tag":null}}}"#
        );
    }
}
