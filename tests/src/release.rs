//! The release bundle (`make release`, scripts/release.sh) as the tests read
//! it, and what a shipped binary says about itself.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use crate::cluster::env_path;
use crate::{Error, e2e_dir, repo_root};

/// Set by `make test` to the bundle it built, so that tests read that one
/// instead of building their own.
pub const RELEASE_DIST_ENV: &str = "TRUSSIUM_RELEASE_DIST";
/// The version in the release's file names and tags (the workspace's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The public half of the throw-away key the test bundle is signed with
/// (scripts/throwaway-key.sh, by `make test` or by `release_dist`).
pub fn release_key() -> PathBuf {
    e2e_dir().join("signing").join("cosign.pub")
}

/// The release bundle as `make release` writes it, signed with a throw-away
/// key (`release_key`): the one `make test` built (`TRUSSIUM_RELEASE_DIST`),
/// or else built once per test binary with the cheap `cross-check` profile
/// into `target/e2e/release-dist` (the cross target dir is cached outside
/// the checkout; `TRUSSIUM_RELEASE_PROFILE` picks another profile).
pub fn release_dist() -> Result<PathBuf, Error> {
    if let Some(dist) = env_path(RELEASE_DIST_ENV) {
        return Ok(dist);
    }
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dist = e2e_dir().join("release-dist");
    let script = repo_root().join("scripts/release.sh");
    let built = BUILT.get_or_init(|| {
        let profile =
            std::env::var("TRUSSIUM_RELEASE_PROFILE").unwrap_or_else(|_| "cross-check".into());
        let keys = e2e_dir().join("signing");
        let made = std::process::Command::new(repo_root().join("scripts/throwaway-key.sh"))
            .arg(&keys)
            .stdin(Stdio::null())
            .status()
            .map_err(|e| format!("scripts/throwaway-key.sh: {e}"))?;
        if !made.success() {
            return Err(format!("scripts/throwaway-key.sh failed ({made})"));
        }
        let out = std::process::Command::new(&script)
            .current_dir(repo_root())
            .env("PROFILE", profile)
            .env("DIST_DIR", &dist)
            .env("COSIGN_KEY", keys.join("cosign.key"))
            .env("COSIGN_PASSWORD", "")
            .env_remove("RELEASE_BASE_URL")
            .env_remove("RELEASE_TAG")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{}: {e}", script.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{} failed ({}):\n{}",
                script.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(dist.clone())
    });
    built
        .clone()
        .map_err(|e| Error::io(&script, std::io::Error::other(e)))
}

/// The operator image of a bundle: an OCI layout in one tar.
pub fn image_archive(dist: &Path) -> PathBuf {
    dist.join(format!("trussium-operator_{VERSION}.oci.tar"))
}

/// The binary format and CPU a file's header declares, e.g. "ELF x86-64".
pub fn binary_kind(bytes: &[u8]) -> String {
    let u16le = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32le = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if bytes.starts_with(b"\x7fELF") {
        // e_machine, little-endian 64-bit ELF.
        return match u16le(18) {
            Some(62) => "ELF x86-64".into(),
            Some(183) => "ELF aarch64".into(),
            other => format!("ELF machine {other:?}"),
        };
    }
    if u32le(0) == Some(0xfeed_facf) {
        // Mach-O 64-bit: cputype right after the magic.
        return match u32le(4) {
            Some(0x0100_0007) => "Mach-O x86-64".into(),
            Some(0x0100_000c) => "Mach-O arm64".into(),
            other => format!("Mach-O cputype {other:?}"),
        };
    }
    if bytes.starts_with(b"MZ") {
        let pe = u32le(0x3c).map(|o| o as usize).unwrap_or(0);
        if bytes.get(pe..pe + 4) == Some(b"PE\0\0") {
            return match u16le(pe + 4) {
                Some(0x8664) => "PE x86-64".into(),
                other => format!("PE machine {other:?}"),
            };
        }
    }
    "unknown".into()
}

/// A crate of `Cargo.lock`: name and version.
pub type LockedCrate = (String, String);

/// Every `[[package]]` of the workspace's `Cargo.lock`.
pub fn cargo_lock() -> Result<BTreeSet<LockedCrate>, Error> {
    let path = repo_root().join("Cargo.lock");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    Ok(locked_crates(&text))
}

fn locked_crates(lock: &str) -> BTreeSet<LockedCrate> {
    let mut crates = BTreeSet::new();
    let mut name = None;
    for line in lock.lines() {
        let value = |key: &str| {
            line.strip_prefix(key)
                .and_then(|v| v.strip_prefix(" = \""))
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string)
        };
        if line == "[[package]]" {
            name = None;
        } else if let Some(n) = value("name") {
            name = Some(n);
        } else if let (Some(version), Some(n)) = (value("version"), name.take()) {
            crates.insert((n, version));
        }
    }
    crates
}

/// The crates of `locked` whose sources a binary names: Rust keeps the
/// source path of every panic location (`…/index.crates.io-…/<name>-<version>/src/…`)
/// in the binary, stripped or not. A lower bound of what was compiled in,
/// read from the binary itself.
pub fn crates_named_in(binary: &[u8], locked: &BTreeSet<LockedCrate>) -> BTreeSet<LockedCrate> {
    const REGISTRY: &[u8] = b"/index.crates.io-";
    let mut dirs = BTreeSet::new();
    let mut rest = binary;
    while let Some(at) = find(rest, REGISTRY) {
        rest = &rest[at + REGISTRY.len()..];
        // Past the registry's hash: "<name>-<version>/".
        let Some(slash) = rest.iter().position(|&b| b == b'/') else {
            break;
        };
        let dir = &rest[slash + 1..];
        let end = dir
            .iter()
            .position(|&b| b == b'/' || b == 0)
            .unwrap_or(dir.len());
        dirs.insert(String::from_utf8_lossy(&dir[..end]).into_owned());
    }
    locked
        .iter()
        .filter(|(name, version)| dirs.contains(&format!("{name}-{version}")))
        .cloned()
        .collect()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_lock_packages_are_read_with_their_versions() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\nsource = \"x\"\n\n[[package]]\nname = \"b-c\"\nversion = \"0.2.0-rc.1\"\ndependencies = [\n \"a\",\n]\n";
        let crates = locked_crates(lock);
        assert_eq!(
            crates.into_iter().collect::<Vec<_>>(),
            vec![
                ("a".to_string(), "1.0.0".to_string()),
                ("b-c".to_string(), "0.2.0-rc.1".to_string())
            ]
        );
    }

    #[test]
    fn crates_are_found_by_their_source_paths_and_exact_versions() {
        let locked: BTreeSet<LockedCrate> =
            [("serde", "1.0.1"), ("serde", "1.0.10"), ("h2", "0.4.5")]
                .into_iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
        let binary = b"\x00junk/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serde-1.0.10/src/de.rs\x00\
            /index.crates.io-1949cf8c6b5b557f/h2-0.4.5/src/frame.rsmore";
        let found = crates_named_in(binary, &locked);
        assert_eq!(
            found.into_iter().collect::<Vec<_>>(),
            vec![
                ("h2".to_string(), "0.4.5".to_string()),
                ("serde".to_string(), "1.0.10".to_string())
            ]
        );
    }
}
