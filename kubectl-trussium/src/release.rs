//! This release's version, and how another release's compares to it.

use std::cmp::Ordering;

/// The plugin's version, which is the version of the CRD and operator it
/// installs.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Semantic-version order of two versions (a leading `v` allowed); `None`
/// when either is no version.
pub fn compare(a: &str, b: &str) -> Option<Ordering> {
    let parse = |v: &str| semver::Version::parse(v.strip_prefix('v').unwrap_or(v)).ok();
    Some(parse(a)?.cmp(&parse(b)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_versions() {
        assert_eq!(compare("0.1.0", "v0.1.0"), Some(Ordering::Equal));
        assert_eq!(compare("0.0.9", "0.1.0"), Some(Ordering::Less));
        assert_eq!(compare("0.10.0", "0.9.0"), Some(Ordering::Greater));
        assert_eq!(compare("1.0.0-rc.1", "1.0.0"), Some(Ordering::Less));
        assert_eq!(compare("latest", "0.1.0"), None);
        assert_eq!(VERSION, trussium_api::crd::VERSION);
    }
}
