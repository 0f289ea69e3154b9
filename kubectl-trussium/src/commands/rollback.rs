//! `kubectl trussium rollback NAME [--wait [--timeout D]]`: sets spec.image
//! back to status.lastSuccessfulImage, then optionally follows the rollout
//! like `upgrade --wait`.

use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_api::image::version_of;

use crate::cli::RollbackArgs;
use crate::client::Target;
use crate::error::{Error, Refusal, Result};
use crate::output::{self, Palette};
use crate::rollout::{self, Action};

pub async fn run(target: &Target, args: &RollbackArgs, palette: Palette) -> Result<()> {
    let name = &args.name;
    let rt = target.get_runtime(name).await?;
    let (image, patch) = plan(&rt).map_err(|refusal| Error::RollbackRefused {
        name: name.to_string(),
        namespace: target.namespace.clone(),
        refusal,
    })?;
    // The patch carries the resourceVersion we planned from: if the runtime
    // changed meanwhile, the API server refuses (409) and nothing changes.
    let patched = target
        .runtimes()
        .patch(name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .map_err(|e| target.fail(target.runtime_request("patch", name), e))?;
    let generation = patched.metadata.generation.unwrap_or_default();
    output::println(&format!(
        "{name}: image {} → {} (rollback to the last successful image, generation {generation})",
        rt.spec.image.version(),
        palette.bold(&version_of(&image))
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

/// The image to go back to and the merge patch that does it, or why not.
pub fn plan(rt: &TrussiumRuntime) -> Result<(String, Value), Refusal> {
    if rt.metadata.deletion_timestamp.is_some() {
        return Err(Refusal::BeingDeleted);
    }
    let last = rt
        .status
        .as_ref()
        .and_then(|s| s.last_successful_image.clone())
        .filter(|i| !i.is_empty())
        .ok_or(Refusal::NoLastSuccessfulImage)?;
    if last == rt.spec.image.reference() {
        return Err(Refusal::AlreadyDesired(last));
    }
    let (repository, tag, digest) = split_reference(&last);
    let patch = json!({
        "metadata": {"resourceVersion": rt.metadata.resource_version},
        "spec": {"image": {"repository": repository, "tag": tag, "digest": digest}},
    });
    Ok((last, patch))
}

/// `repo:tag` → (repo, tag, -); `repo@sha256:…` → (repo, -, digest); a
/// registry port (`host:5000/repo`) is not a tag.
fn split_reference(reference: &str) -> (&str, Option<&str>, Option<&str>) {
    if let Some((repository, digest)) = reference.split_once('@') {
        return (repository, None, Some(digest));
    }
    let name_start = reference.rfind('/').map_or(0, |i| i + 1);
    match reference[name_start..].rfind(':') {
        Some(i) => (
            &reference[..name_start + i],
            Some(&reference[name_start + i + 1..]),
            None,
        ),
        None => (reference, None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{UPGRADING, runtime};

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn splits_tags_digests_and_registry_ports() {
        assert_eq!(
            split_reference("ghcr.io/trussiumhq/trussium:v1.22.0"),
            ("ghcr.io/trussiumhq/trussium", Some("v1.22.0"), None)
        );
        assert_eq!(
            split_reference(&format!("localhost:5000/t@{DIGEST}")),
            ("localhost:5000/t", None, Some(DIGEST))
        );
        assert_eq!(
            split_reference("localhost:5000/t:v1"),
            ("localhost:5000/t", Some("v1"), None)
        );
        assert_eq!(
            split_reference("localhost:5000/t"),
            ("localhost:5000/t", None, None)
        );
    }

    #[test]
    fn goes_back_to_the_last_successful_image_if_the_object_is_unchanged() {
        let mut rt = runtime(UPGRADING);
        rt.metadata.resource_version = Some("42".into());
        let (image, patch) = plan(&rt).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(image, "ghcr.io/trussiumhq/trussium:v1.22.0");
        assert_eq!(
            patch,
            json!({
                "metadata": {"resourceVersion": "42"},
                "spec": {"image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0", "digest": null}}
            })
        );
        // Back to a digest: the tag goes.
        if let Some(s) = rt.status.as_mut() {
            s.last_successful_image = Some(format!("ghcr.io/trussiumhq/trussium@{DIGEST}"));
        }
        let (_, patch) = plan(&rt).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(patch["spec"]["image"]["tag"], Value::Null);
        assert_eq!(patch["spec"]["image"]["digest"], DIGEST);
    }

    #[test]
    fn refusals() {
        let mut rt = runtime(UPGRADING);
        if let Some(s) = rt.status.as_mut() {
            s.last_successful_image = Some("ghcr.io/trussiumhq/trussium:v1.23.0".into());
        }
        assert_eq!(
            plan(&rt).err(),
            Some(Refusal::AlreadyDesired(
                "ghcr.io/trussiumhq/trussium:v1.23.0".into()
            ))
        );
        if let Some(s) = rt.status.as_mut() {
            s.last_successful_image = None;
        }
        assert_eq!(plan(&rt).err(), Some(Refusal::NoLastSuccessfulImage));
        rt.status = None;
        assert_eq!(plan(&rt).err(), Some(Refusal::NoLastSuccessfulImage));
        rt.metadata.deletion_timestamp = Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(crate::fixtures::at(0)),
        );
        assert_eq!(plan(&rt).err(), Some(Refusal::BeingDeleted));
    }
}
