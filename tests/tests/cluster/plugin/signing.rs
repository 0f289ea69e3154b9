//! The release bundle's signatures (`make release` with a key; here the
//! throw-away key `make test` made): `make verify` (scripts/verify.sh) checks
//! SHA256SUMS, the chart, the five plugin archives, and the image index's
//! signature and SLSA provenance, offline; a changed byte, a missing
//! signature or another key fails, naming what.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use sha2::{Digest as _, Sha256};
use trussium_e2e::oci::{Layout, REF_NAME};
use trussium_e2e::{
    BoxError, VERSION, e2e_dir, image_archive, release_dist, release_key, repo_root,
};

type TestResult = Result<(), BoxError>;

/// What the release signs, one Sigstore bundle each.
fn signed_files() -> Vec<String> {
    let mut files = vec![
        "SHA256SUMS".to_string(),
        format!("trussium-operator-{VERSION}.tgz"),
    ];
    for platform in ["linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"] {
        files.push(format!("kubectl-trussium_{VERSION}_{platform}.tar.gz"));
    }
    files.push(format!("kubectl-trussium_{VERSION}_windows_amd64.zip"));
    files
}

struct Verified {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Verified {
    /// The ✓ or ✗ line about `what`.
    fn line(&self, what: &str) -> Option<&str> {
        self.stdout.lines().find(|l| {
            l.strip_prefix("✓ ")
                .or(l.strip_prefix("✗ "))
                .is_some_and(|r| r.starts_with(what))
        })
    }

    fn passed(&self, what: &str) -> bool {
        self.line(what).is_some_and(|l| l.starts_with('✓'))
    }

    fn failed(&self, what: &str) -> bool {
        self.line(what).is_some_and(|l| l.starts_with('✗'))
    }
}

impl std::fmt::Display for Verified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {}\n{}{}", self.code, self.stdout, self.stderr)
    }
}

/// `make verify` as a user runs it: `KEY=… DIST_DIR=…` (and `EXPECT_TAG`),
/// offline: every proxy variable points at a closed port, so that a request
/// anywhere but loopback (Sigstore's TUF repository, Rekor) would fail it.
async fn verify(dist: &Path, key: &Path, expect_tag: Option<&str>) -> Result<Verified, BoxError> {
    let mut cmd = tokio::process::Command::new(repo_root().join("scripts/verify.sh"));
    for proxy in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
    ] {
        cmd.env(proxy, "http://127.0.0.1:9");
    }
    for no_proxy in ["NO_PROXY", "no_proxy"] {
        cmd.env(no_proxy, "127.0.0.1,localhost");
    }
    match expect_tag {
        Some(tag) => cmd.env("EXPECT_TAG", tag),
        None => cmd.env_remove("EXPECT_TAG"),
    };
    let out = cmd
        .current_dir(repo_root())
        .env("KEY", key)
        .env("DIST_DIR", dist)
        .env_remove("IMAGE")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await?;
    Ok(Verified {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// A fresh copy of the bundle under target/e2e.
fn copy_of_bundle(name: &str) -> Result<PathBuf, BoxError> {
    let dist = release_dist()?;
    let copy = e2e_dir().join(name);
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&copy)?;
    for entry in std::fs::read_dir(&dist)? {
        let entry = entry?;
        if entry.path().is_file() {
            std::fs::copy(entry.path(), copy.join(entry.file_name()))?;
        }
    }
    Ok(copy)
}

/// Flips one byte in the middle of a file.
fn change_a_byte(path: &Path) -> TestResult {
    let mut bytes = std::fs::read(path)?;
    let middle = bytes.len() / 2;
    let Some(byte) = bytes.get_mut(middle) else {
        return Err(format!("{} is empty", path.display()).into());
    };
    *byte ^= 0x01;
    std::fs::write(path, bytes)?;
    Ok(())
}

/// Rewrites the image archive so that its tag names an index with one more
/// annotation (what a swapped or altered image would be): a new digest, which
/// no signature names. Returns that digest.
fn alter_the_image_index(archive: &Path, work: &Path) -> Result<String, BoxError> {
    let layout = Layout::unpack(archive, &work.join("layout"))?;
    let tag = format!("v{VERSION}");
    let tagged = layout.tagged(&tag)?;
    let mut index: serde_json::Value = serde_json::from_slice(&layout.blob(&tagged.digest)?)?;
    index["annotations"] = serde_json::json!({"org.opencontainers.image.description": "altered"});
    let bytes = serde_json::to_vec(&index)?;
    let digest = format!("sha256:{:x}", Sha256::digest(&bytes));
    let hex = digest.trim_start_matches("sha256:");
    std::fs::write(layout.dir.join("blobs/sha256").join(hex), &bytes)?;
    let mut listed = layout.index()?;
    for descriptor in &mut listed.manifests {
        if descriptor.annotations.get(REF_NAME) == Some(&tag) {
            descriptor.digest = digest.clone();
            descriptor.size = bytes.len() as u64;
            descriptor.annotations = BTreeMap::from([(REF_NAME.to_string(), tag.clone())]);
        }
    }
    std::fs::write(layout.dir.join("index.json"), serde_json::to_vec(&listed)?)?;
    let out = std::process::Command::new("tar")
        .arg("-C")
        .arg(&layout.dir)
        .arg("-cf")
        .arg(archive)
        .args(["oci-layout", "index.json", "blobs"])
        .output()?;
    if !out.status.success() {
        return Err(format!("tar: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(digest)
}

#[tokio::test]
#[ignore = "needs the release bundle (make test)"]
async fn the_release_verifies_offline_with_its_key() -> TestResult {
    let dist = release_dist()?;
    let verified = verify(&dist, &release_key(), None).await?;
    assert_eq!(verified.code, 0, "{verified}");
    for file in signed_files() {
        assert!(
            verified.passed(&format!("{file}: signature verified")),
            "{file}: {verified}"
        );
    }
    assert!(
        verified.passed("every file matches SHA256SUMS"),
        "{verified}"
    );
    // The image index, by the digest its archive tags: signed, with provenance
    // that names this commit.
    let layout = Layout::unpack(&image_archive(&dist), &e2e_dir().join("signing-layout"))?;
    let tagged = layout.tagged(&format!("v{VERSION}"))?;
    // ... which the archive carries as two referrers of the index, so that
    // `make publish` and `make push` copy them with it.
    let mut predicates: Vec<String> = layout
        .sigstore_bundles(&tagged.digest)?
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    predicates.sort();
    assert_eq!(
        predicates,
        [
            "https://sigstore.dev/cosign/sign/v1",
            "https://slsa.dev/provenance/v1"
        ]
    );
    let image = format!(
        "trussium-operator_{VERSION}.oci.tar, index {}",
        tagged.digest
    );
    assert!(
        verified.passed(&format!("{image}: signature verified")),
        "{verified}"
    );
    let head = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(repo_root())
        .output()?;
    let commit = String::from_utf8_lossy(&head.stdout).trim().to_string();
    let provenance = verified
        .line(&format!("{image}: SLSA provenance verified"))
        .unwrap_or_default();
    assert!(
        provenance.starts_with('✓')
            && provenance.contains(&format!("(commit {})", commit.get(..12).unwrap_or("?")))
            && provenance.contains("git+https://github.com/trussiumhq/trussium-operator@"),
        "{verified}"
    );
    // Each signature is the throw-away key's own: nothing of Sigstore's
    // public services (no transparency log entry, no certificate).
    let bundle: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dist.join("SHA256SUMS.sigstore.json"))?)?;
    let material = &bundle["verificationMaterial"];
    assert!(
        material.get("publicKey").is_some()
            && material
                .get("tlogEntries")
                .is_none_or(|e| e.as_array().is_some_and(Vec::is_empty))
            && material.get("certificate").is_none(),
        "{bundle}"
    );
    eprintln!("{}", verified.stdout);
    // Built from no tag (make test's bundle): a release workflow's check
    // for its tag tells it apart.
    let tag = format!("v{VERSION}");
    let untagged = verify(&dist, &release_key(), Some(&tag)).await?;
    assert_eq!(untagged.code, 1, "{untagged}");
    assert!(
        untagged.failed(&format!(
            "{image}: the provenance does not name {tag} built from a clean tree"
        )),
        "{untagged}"
    );
    let _ = std::fs::remove_dir_all(e2e_dir().join("signing-layout"));
    Ok(())
}

#[tokio::test]
#[ignore = "needs the release tools (make test)"]
async fn a_tagged_release_is_never_unsigned_and_a_key_never_in_reach_of_git() -> TestResult {
    let release = |key: Option<&str>| {
        let mut cmd = std::process::Command::new(repo_root().join("scripts/release.sh"));
        cmd.current_dir(repo_root())
            .env("RELEASE_TAG", format!("v{VERSION}"))
            .env("DIST_DIR", e2e_dir().join("signing-refused"))
            .env_remove("COSIGN_PASSWORD")
            .env_remove("TRUSSIUM_UNSET_KEY")
            .stdin(Stdio::null());
        match key {
            Some(key) => cmd.env("COSIGN_KEY", key),
            None => cmd.env_remove("COSIGN_KEY"),
        };
        cmd.output()
    };
    for (key, says) in [
        (None, "a tagged release is signed: set COSIGN_KEY"),
        (
            Some("env://TRUSSIUM_UNSET_KEY"),
            "TRUSSIUM_UNSET_KEY is empty or unset",
        ),
        (Some("/nonexistent/cosign.key"), "COSIGN_KEY: no file"),
    ] {
        let out = release(key)?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(says),
            "{key:?}: {}\n{stderr}",
            out.status
        );
    }
    // A key file in the checkout that git would add.
    let inside = repo_root().join("signing-test-key.pem");
    std::fs::copy(e2e_dir().join("signing").join("cosign.key"), &inside)?;
    let out = std::process::Command::new(repo_root().join("scripts/sign.sh"))
        .args(["files".as_ref(), release_dist()?.as_os_str()])
        .current_dir(repo_root())
        .env("COSIGN_KEY", &inside)
        .env("COSIGN_PASSWORD", "")
        .stdin(Stdio::null())
        .output();
    let _ = std::fs::remove_file(&inside);
    let out = out?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("inside the checkout and not ignored by git"),
        "{}\n{stderr}",
        out.status
    );
    Ok(())
}

#[tokio::test]
#[ignore = "needs the release bundle (make test)"]
async fn a_changed_byte_a_missing_signature_or_another_key_fails() -> TestResult {
    let copy = copy_of_bundle("signing-changed")?;
    let chart = format!("trussium-operator-{VERSION}.tgz");
    let darwin = format!("kubectl-trussium_{VERSION}_darwin_arm64.tar.gz");
    let windows = format!("kubectl-trussium_{VERSION}_windows_amd64.zip");
    change_a_byte(&copy.join(&chart))?;
    change_a_byte(&copy.join(&darwin))?;
    std::fs::remove_file(copy.join(format!("{windows}.sigstore.json")))?;
    let work = e2e_dir().join("signing-changed-image");
    let _ = std::fs::remove_dir_all(&work);
    let altered = alter_the_image_index(&image_archive(&copy), &work)?;

    let verified = verify(&copy, &release_key(), None).await?;
    assert_eq!(verified.code, 1, "{verified}");
    for changed in [&chart, &darwin] {
        assert!(
            verified.failed(&format!("{changed}: does not match its signature")),
            "{changed}: {verified}"
        );
    }
    assert!(
        verified.failed(&format!("{windows}: unsigned")),
        "{verified}"
    );
    let sums = verified
        .line("files differ from SHA256SUMS")
        .unwrap_or_default();
    for changed in [
        &chart,
        &darwin,
        &format!("trussium-operator_{VERSION}.oci.tar"),
    ] {
        assert!(
            sums.starts_with('✗') && sums.contains(&format!("{changed}: FAILED")),
            "{changed}: {verified}"
        );
    }
    assert!(!sums.contains(&windows), "{verified}");
    let image = format!("trussium-operator_{VERSION}.oci.tar, index {altered}");
    assert!(
        verified.failed(&format!("{image}: no valid signature")),
        "{verified}"
    );
    assert!(
        verified.failed(&format!("{image}: no valid SLSA provenance")),
        "{verified}"
    );
    // What was not touched still verifies: each file stands on its own.
    for untouched in [
        "SHA256SUMS".to_string(),
        format!("kubectl-trussium_{VERSION}_linux_amd64.tar.gz"),
    ] {
        assert!(
            verified.passed(&format!("{untouched}: signature verified")),
            "{untouched}: {verified}"
        );
    }
    eprintln!("changed:\n{}", verified.stdout);

    // The untouched bundle against a key that did not sign it: every
    // signature fails.
    let other = e2e_dir().join("signing-other-key");
    let made = std::process::Command::new(repo_root().join("scripts/throwaway-key.sh"))
        .arg(&other)
        .status()?;
    assert!(made.success(), "scripts/throwaway-key.sh: {made}");
    let verified = verify(&release_dist()?, &other.join("cosign.pub"), None).await?;
    assert_eq!(verified.code, 1, "{verified}");
    for file in signed_files() {
        assert!(
            verified.failed(&format!("{file}: does not match its signature")),
            "{file}: {verified}"
        );
    }
    assert!(
        verified.passed("every file matches SHA256SUMS"),
        "{verified}"
    );
    let failed = verified
        .stdout
        .lines()
        .filter(|l| l.starts_with('✗'))
        .count();
    assert_eq!(failed, signed_files().len() + 2, "{verified}");
    eprintln!("another key:\n{}", verified.stdout);

    for dir in [copy, work, other] {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(())
}
