//! `kubectl trussium upgrade NAME --tag T | --digest sha256:… [--wait [--timeout D]]`:
//! changes only spec.image, then optionally follows the rollout.

use std::time::Duration;

use clap::{ArgGroup, Args};
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};
use trussium_api::duration;
use trussium_api::image::{check_digest, check_tag};

use crate::cli::RuntimeName;
use crate::client::Target;
use crate::error::{Error, Result};
use crate::output::{self, Palette};
use crate::rollout::{self, Action};
use crate::suspension::{Guard, guard, recorded_note};
use crate::terminal::safe;

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("image").required(true).args(["tag", "digest"])))]
pub struct UpgradeArgs {
    /// The runtime to upgrade
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// New image tag (replaces a digest)
    #[arg(long, value_name = "TAG", value_parser = parse_tag, allow_hyphen_values = true)]
    pub tag: Option<String>,

    /// New image digest, sha256:<64 hex> (replaces a tag)
    #[arg(long, value_name = "DIGEST", value_parser = parse_digest, allow_hyphen_values = true)]
    pub digest: Option<String>,

    /// Follow the rollout until the operator reports the upgrade complete or failed
    #[arg(long)]
    pub wait: bool,

    /// On a suspended runtime: record the change in the spec anyway; it is applied once the runtime is resumed
    #[arg(long)]
    pub force: bool,

    /// How long --wait waits, e.g. 90s, 5m, 1h30m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration::parse, requires = "wait")]
    pub timeout: Duration,
}

impl UpgradeArgs {
    /// The requested change as an image selector.
    pub fn target(&self) -> ImageTarget {
        match (&self.tag, &self.digest) {
            (_, Some(digest)) => ImageTarget::Digest(digest.clone()),
            (Some(tag), None) => ImageTarget::Tag(tag.clone()),
            // The required ArgGroup makes this unreachable through clap.
            (None, None) => ImageTarget::Tag(String::new()),
        }
    }
}

/// A new tag or a new digest, never both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageTarget {
    Tag(String),
    Digest(String),
}

pub const HELP: &str = "\
Only spec.image changes: --digest removes the tag and --tag removes the digest.
A suspended runtime is refused; --force records the new image for its resume.

Examples:
  kubectl trussium upgrade private-ai --tag v1.23.0
  kubectl trussium upgrade private-ai --digest sha256:<64 hex> --wait --timeout 10m";

fn parse_tag(value: &str) -> Result<String, String> {
    check_tag(value).map_err(|e| e.to_string())?;
    Ok(value.to_string())
}

fn parse_digest(value: &str) -> Result<String, String> {
    check_digest(value).map_err(|e| e.to_string())?;
    Ok(value.to_string())
}

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
    let guarded = guard(&before, &target.namespace, "upgrading", args.force)?;
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
    use crate::cli::{Command, try_parse};

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

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

    #[test]
    fn upgrade_needs_exactly_one_of_tag_and_digest() {
        assert!(try_parse(&["upgrade", "rt"]).is_err());
        assert!(try_parse(&["upgrade", "rt", "--tag", "v1", "--digest", DIGEST]).is_err());
        let cli =
            try_parse(&["upgrade", "rt", "--digest", DIGEST]).unwrap_or_else(|e| panic!("{e}"));
        let Command::Upgrade(args) = cli.command else {
            panic!("not upgrade");
        };
        assert_eq!(args.target(), ImageTarget::Digest(DIGEST.into()));
        assert_eq!(args.timeout, Duration::from_secs(300));
    }

    #[test]
    fn invalid_tag_and_digest_are_usage_errors() {
        for args in [
            &["upgrade", "rt", "--tag", "-bad"][..],
            &["upgrade", "rt", "--tag", "v1/2"][..],
            &["upgrade", "rt", "--digest", "sha256:abc"][..],
            &["upgrade", "rt", "--digest", "v1.2"][..],
        ] {
            let err = try_parse(args)
                .err()
                .unwrap_or_else(|| panic!("{args:?} accepted"));
            assert_eq!(err.exit_code(), 2, "{args:?}");
        }
        let err = try_parse(&["upgrade", "rt", "--digest", "sha256:abc"])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("64 lowercase hexadecimal"), "{err}");
        // A tag that starts with '-' is a bad tag, not an unknown flag.
        let err = try_parse(&["upgrade", "rt", "--tag", "-x"])
            .err()
            .unwrap_or_else(|| panic!("-x accepted"));
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("invalid tag \"-x\""), "{err}");
    }

    #[test]
    fn timeout_requires_wait() {
        assert!(try_parse(&["upgrade", "rt", "--tag", "v1", "--timeout", "1m"]).is_err());
        assert!(try_parse(&["upgrade", "rt", "--tag", "v1", "--wait", "--timeout", "1m"]).is_ok());
        assert!(
            try_parse(&[
                "upgrade",
                "rt",
                "--tag",
                "v1",
                "--wait",
                "--timeout",
                "soon"
            ])
            .is_err()
        );
    }
}
