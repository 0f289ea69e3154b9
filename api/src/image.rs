//! Rendering and checking image references.
//!
//! The checks mirror the CEL rules on [`ImageSpec`] so the plugin can refuse a
//! bad `--tag`/`--digest` before sending anything.

use std::fmt;

use crate::runtime::ImageSpec;

const DIGEST_PREFIX: &str = "sha256:";

impl ImageSpec {
    /// The full reference: `repository:tag` or `repository@sha256:…`.
    /// The API server guarantees exactly one of tag or digest; should both be
    /// present anyway, the digest wins because it is the stronger pin.
    pub fn reference(&self) -> String {
        match (&self.digest, &self.tag) {
            (Some(digest), _) => format!("{}@{}", self.repository, digest),
            (None, Some(tag)) => format!("{}:{}", self.repository, tag),
            (None, None) => self.repository.clone(),
        }
    }

    /// What a person calls this version: the tag, or a short digest.
    pub fn version(&self) -> String {
        match (&self.digest, &self.tag) {
            (Some(digest), _) => short_digest(digest),
            (None, Some(tag)) => tag.clone(),
            (None, None) => String::new(),
        }
    }
}

/// `sha256:0123456789ab` — the first 12 hex characters, like `docker images`.
pub fn short_digest(digest: &str) -> String {
    let hex = digest.strip_prefix(DIGEST_PREFIX).unwrap_or(digest);
    format!(
        "{DIGEST_PREFIX}{}",
        hex.chars().take(12).collect::<String>()
    )
}

/// The version part of a full image reference (`repo:tag` → `tag`,
/// `repo@sha256:…` → short digest); empty when there is none.
pub fn version_of(reference: &str) -> String {
    if let Some((_, digest)) = reference.split_once('@') {
        return short_digest(digest);
    }
    let last = reference.rsplit('/').next().unwrap_or(reference);
    last.split_once(':')
        .map(|(_, tag)| tag.to_string())
        .unwrap_or_default()
}

/// `repo:tag` → (repo, tag, -); `repo@sha256:…` → (repo, -, digest); a
/// registry port (`host:5000/repo`) is not a tag.
pub fn split_reference(reference: &str) -> (&str, Option<&str>, Option<&str>) {
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

/// Why a tag or digest was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidImage(String);

impl fmt::Display for InvalidImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidImage {}

/// Checks a tag the way the API server will.
pub fn check_tag(tag: &str) -> Result<(), InvalidImage> {
    let mut chars = tag.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !first_ok || !rest_ok || tag.len() > 128 {
        return Err(InvalidImage(format!(
            "invalid tag {tag:?}: a tag starts with a letter, digit or '_', has only letters, digits, '_', '.' and '-', and is at most 128 characters"
        )));
    }
    Ok(())
}

/// Checks a digest the way the API server will.
pub fn check_digest(digest: &str) -> Result<(), InvalidImage> {
    let ok = digest.strip_prefix(DIGEST_PREFIX).is_some_and(|hex| {
        hex.len() == 64
            && hex
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    });
    if !ok {
        return Err(InvalidImage(format!(
            "invalid digest {digest:?}: expected sha256: followed by 64 lowercase hexadecimal characters"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::PullPolicy;

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

    fn image(tag: Option<&str>, digest: Option<&str>) -> ImageSpec {
        ImageSpec {
            repository: "ghcr.io/trussiumhq/trussium".into(),
            tag: tag.map(Into::into),
            digest: digest.map(Into::into),
            pull_policy: PullPolicy::IfNotPresent,
        }
    }

    #[test]
    fn renders_tag_reference() {
        let i = image(Some("v1.22.0"), None);
        assert_eq!(i.reference(), "ghcr.io/trussiumhq/trussium:v1.22.0");
        assert_eq!(i.version(), "v1.22.0");
    }

    #[test]
    fn renders_digest_reference() {
        let i = image(None, Some(DIGEST));
        assert_eq!(
            i.reference(),
            format!("ghcr.io/trussiumhq/trussium@{DIGEST}")
        );
        assert_eq!(i.version(), "sha256:0123456789ab");
    }

    #[test]
    fn digest_wins_over_tag() {
        let i = image(Some("v1"), Some(DIGEST));
        assert_eq!(
            i.reference(),
            format!("ghcr.io/trussiumhq/trussium@{DIGEST}")
        );
    }

    #[test]
    fn registry_port_is_not_a_tag() {
        let mut i = image(Some("v2"), None);
        i.repository = "registry.local:5000/ai/trussium".into();
        assert_eq!(i.reference(), "registry.local:5000/ai/trussium:v2");
        assert_eq!(version_of(&i.reference()), "v2");
        assert_eq!(version_of("registry.local:5000/ai/trussium"), "");
    }

    #[test]
    fn version_of_references() {
        assert_eq!(version_of("ghcr.io/x/y:v1.0"), "v1.0");
        assert_eq!(
            version_of(&format!("ghcr.io/x/y@{DIGEST}")),
            "sha256:0123456789ab"
        );
        assert_eq!(version_of("nginx"), "");
    }

    #[test]
    fn tags() {
        for ok in ["v1.22.0", "latest", "_x", "1", "a-b.c_d", &"a".repeat(128)] {
            assert_eq!(check_tag(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "-v1",
            ".v1",
            "v1/2",
            "v1:2",
            "v 1",
            "v1@x",
            &"a".repeat(129),
        ] {
            assert!(check_tag(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn digests() {
        assert_eq!(check_digest(DIGEST), Ok(()));
        for bad in [
            "",
            "sha256:",
            "sha256:abc",
            "sha512:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "sha256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
            "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0",
        ] {
            assert!(check_digest(bad).is_err(), "{bad}");
        }
    }
}
