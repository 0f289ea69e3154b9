//! The operator image of the release bundle (`make release`; here with the
//! cheap `cross-check` profile): one OCI image index for linux/amd64 and
//! linux/arm64, each image a static binary of its CPU with its SBOM attached
//! as a referrer; the arm64 binary taken out of the image reconciles a
//! runtime to Ready under qemu-user against the local cluster; every SBOM
//! names the crates compiled into its binary at their Cargo.lock versions,
//! and a mismatch fails the release naming the crate; `make publish` pushes
//! the index with its SBOMs to a registry.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use kube::Api;
use kube::api::PostParams;
use serde_json::{Value, json};
use tokio::time::Instant;
use trussium_api::TrussiumRuntime;
use trussium_e2e::oci::{
    Descriptor, IMAGE_INDEX, IMAGE_MANIFEST, ImageConfig, Index, Layout, Manifest,
};
use trussium_e2e::{
    BoxError, Operator, Registry, TestNamespace, TestResult, VERSION, binary_kind, cargo_lock,
    crates_named_in, e2e_dir, http_request, image_archive, is_ready, minimal, release_dist,
    repo_root, require_cluster, wait_for,
};

/// OCI architecture, cargo target, and what the binary's header must say.
const PLATFORMS: [(&str, &str, &str); 2] = [
    ("amd64", "x86_64-unknown-linux-musl", "ELF x86-64"),
    ("arm64", "aarch64-unknown-linux-musl", "ELF aarch64"),
];
const SBOM_TYPE: &str = "application/vnd.cyclonedx+json";
/// The config media type of a Helm chart pushed to an OCI registry.
const HELM_CONFIG: &str = "application/vnd.cncf.helm.config.v1+json";
const BINARY: &str = "trussium-operator";
/// An operator under qemu-user (a dev build, emulated) is slower than a native one.
const UNDER_QEMU: Duration = Duration::from_secs(180);

fn tag() -> String {
    format!("v{VERSION}")
}

/// A fresh work directory under target/e2e.
fn work_dir(name: &str) -> Result<PathBuf, BoxError> {
    let dir = e2e_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The bundle's image archive unpacked into `work`, and its image index.
fn unpacked(work: &Path) -> Result<(Layout, Index), BoxError> {
    let layout = Layout::unpack(&image_archive(&release_dist()?), &work.join("oci"))?;
    let tagged = layout.tagged(&tag())?;
    assert_eq!(
        tagged.media_type,
        IMAGE_INDEX,
        "{tag} is an image index",
        tag = tag()
    );
    let index: Index = layout.json(&tagged)?;
    Ok((layout, index))
}

/// The index's image for `arch`.
fn platform_image<'a>(index: &'a Index, arch: &str) -> Result<&'a Descriptor, BoxError> {
    Ok(index
        .manifests
        .iter()
        .find(|m| m.platform.as_ref().is_some_and(|p| p.architecture == arch))
        .ok_or_else(|| format!("the image index has no linux/{arch} image"))?)
}

/// The operator binary of one platform's image.
fn binary_of(layout: &Layout, image: &Descriptor) -> Result<Vec<u8>, BoxError> {
    let manifest: Manifest = layout.json(image)?;
    let [layer] = manifest.layers.as_slice() else {
        return Err(format!(
            "{}: {} layers, not one",
            image.digest,
            manifest.layers.len()
        )
        .into());
    };
    Ok(layout.file_in_layer(layer, BINARY)?)
}

/// The SBOM the release ships for one platform's image.
fn shipped_sbom(dist: &Path, arch: &str) -> PathBuf {
    dist.join(format!("trussium-operator_{VERSION}_linux_{arch}.cdx.json"))
}

#[tokio::test]
#[ignore = "needs the release bundle (make test)"]
async fn the_image_index_holds_a_static_binary_of_each_cpu_with_its_sbom() -> TestResult {
    let dist = release_dist()?;
    let work = work_dir("image-index")?;
    let (layout, index) = unpacked(&work)?;

    let platforms: BTreeSet<(String, String)> = index
        .manifests
        .iter()
        .filter_map(|m| m.platform.as_ref())
        .map(|p| (p.os.clone(), p.architecture.clone()))
        .collect();
    let expected: BTreeSet<(String, String)> = PLATFORMS
        .iter()
        .map(|(arch, _, _)| ("linux".to_string(), arch.to_string()))
        .collect();
    assert_eq!(platforms, expected);
    assert_eq!(
        index.manifests.len(),
        PLATFORMS.len(),
        "{:?}",
        index.manifests
    );

    let mut report = vec![format!("index {}", layout.tagged(&tag())?.digest)];
    for (arch, _, kind) in PLATFORMS {
        let image = platform_image(&index, arch)?;
        assert_eq!(image.media_type, IMAGE_MANIFEST);
        let manifest: Manifest = layout.json(image)?;
        let config: ImageConfig = layout.json(&manifest.config)?;
        assert_eq!(
            (config.os.as_str(), config.architecture.as_str()),
            ("linux", arch)
        );
        assert_eq!(config.config.user.as_deref(), Some("65532:65532"), "{arch}");
        assert_eq!(
            config.config.entrypoint,
            Some(vec![format!("/{BINARY}")]),
            "{arch}"
        );
        let binary = binary_of(&layout, image)?;
        assert_eq!(binary_kind(&binary), kind, "linux/{arch}: the binary's CPU");

        // Its SBOM, attached as a referrer: the very file the release ships.
        let referrers = layout.referrers(&image.digest)?;
        let [sbom] = referrers.as_slice() else {
            return Err(format!("linux/{arch}: {} referrers, not one", referrers.len()).into());
        };
        assert_eq!(sbom.artifact_type.as_deref(), Some(SBOM_TYPE), "{arch}");
        let [sbom_layer] = sbom.layers.as_slice() else {
            return Err(format!(
                "linux/{arch}: the SBOM artifact has {} layers",
                sbom.layers.len()
            )
            .into());
        };
        assert_eq!(sbom_layer.media_type, SBOM_TYPE);
        let shipped = std::fs::read(shipped_sbom(&dist, arch))?;
        assert!(
            layout.blob(&sbom_layer.digest)? == shipped,
            "linux/{arch}: the attached SBOM is the shipped one"
        );
        let size =
            image.size + manifest.config.size + manifest.layers.iter().map(|l| l.size).sum::<u64>();
        report.push(format!(
            "linux/{arch} {}: {size} bytes ({:.1} MiB compressed), binary {} bytes",
            image.digest,
            size as f64 / 1_048_576.0,
            binary.len()
        ));
    }
    eprintln!(
        "operator image (cross-check profile):\n  {}",
        report.join("\n  ")
    );
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// `scripts/image.sh` run again on the same sources gives the same index
/// and the same SBOM referrers, byte for byte.
#[tokio::test]
#[ignore = "needs the release bundle (make test)"]
async fn the_image_is_reproducible() -> TestResult {
    let dist = release_dist()?;
    let work = work_dir("image-again")?;
    let (layout, _) = unpacked(&work)?;
    let again = work.join("again");
    let out = tokio::process::Command::new(repo_root().join("scripts/image.sh"))
        .current_dir(repo_root())
        .env("IMAGE_PROFILE", "cross-check")
        .env("IMAGE_DIR", &again)
        .env("IMAGE_TAG", tag())
        .stdin(Stdio::null())
        .output()
        .await?;
    assert!(
        out.status.success(),
        "scripts/image.sh: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let rebuilt = Layout {
        dir: again.join("oci"),
    };
    assert_eq!(
        rebuilt.tagged(&tag())?,
        layout.tagged(&tag())?,
        "the index digest"
    );
    // The release's layout also holds the index's signature and provenance
    // (scripts/sign.sh; new with each signing): the rest is the same.
    let descriptors = |index: Index| -> BTreeSet<String> {
        index.manifests.into_iter().map(|d| d.digest).collect()
    };
    let signatures: BTreeSet<String> = layout
        .sigstore_bundles(&layout.tagged(&tag())?.digest)?
        .into_iter()
        .map(|(d, _)| d.digest)
        .collect();
    assert_eq!(
        descriptors(rebuilt.index()?),
        &descriptors(layout.index()?) - &signatures,
        "the index and the SBOM referrers of index.json"
    );
    for (arch, _, _) in PLATFORMS {
        assert!(
            std::fs::read(shipped_sbom(&again, arch))? == std::fs::read(shipped_sbom(&dist, arch))?,
            "linux/{arch}: the SBOM"
        );
    }
    eprintln!("{}", String::from_utf8_lossy(&out.stdout));
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_arm64_binary_of_the_image_reconciles_a_runtime_under_qemu() -> TestResult {
    require_cluster();
    let ns = TestNamespace::create("image-arm64").await?;
    let work = work_dir(&ns.name)?;
    let (layout, index) = unpacked(&work)?;
    let binary = work.join(BINARY);
    std::fs::write(
        &binary,
        binary_of(&layout, platform_image(&index, "arm64")?)?,
    )?;
    std::fs::set_permissions(&binary, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    // Debian's qemu-user-static (make test installs it; scripts/cross-tools.sh --qemu).
    let qemu = PathBuf::from("/usr/bin/qemu-aarch64-static");
    let command: Vec<OsString> = vec![qemu.clone().into(), binary.clone().into()];

    let runtimes: Api<TrussiumRuntime> = ns.api();
    let started = Instant::now();
    let mut operator = Operator::start_program(&ns.client, &command, &ns.name, &[]).await?;
    let outcome = async {
        // The process is the emulator, running the binary from the image.
        let pid = operator.pid().ok_or("the operator exited at once")?;
        let exe = std::fs::read_link(format!("/proc/{pid}/exe"))?;
        assert_eq!(exe, qemu, "the operator runs under qemu-user");
        runtimes
            .create(
                &PostParams::default(),
                &serde_json::from_value(minimal("on-arm64", json!({}))?)?,
            )
            .await?;
        wait_for("runtime on-arm64 to be Ready", UNDER_QEMU, async || {
            let rt = runtimes.get("on-arm64").await?;
            Ok(is_ready(&rt).then_some(()))
        })
        .await?;
        eprintln!(
            "linux/arm64 operator under qemu-user: runtime Ready {:.1}s after the start",
            started.elapsed().as_secs_f64()
        );
        Ok::<(), BoxError>(())
    }
    .await;
    if outcome.is_err() {
        eprintln!("---- operator log ----\n{}", operator.log_text());
    }
    operator.stop().await;
    ns.delete().await;
    let _ = std::fs::remove_dir_all(&work);
    outcome
}

/// An SBOM the release ships, and the binary it describes.
struct ShippedSbom {
    file: PathBuf,
    package: &'static str,
    target: &'static str,
    binary: Vec<u8>,
}

/// The SBOMs of the image's two binaries and of the plugin's Linux archives.
fn shipped_sboms(dist: &Path, work: &Path) -> Result<Vec<ShippedSbom>, BoxError> {
    let (layout, index) = unpacked(work)?;
    let mut sboms = Vec::new();
    for (arch, target, _) in PLATFORMS {
        sboms.push(ShippedSbom {
            file: shipped_sbom(dist, arch),
            package: BINARY,
            target,
            binary: binary_of(&layout, platform_image(&index, arch)?)?,
        });
    }
    for (platform, target) in [
        ("linux_amd64", "x86_64-unknown-linux-musl"),
        ("linux_arm64", "aarch64-unknown-linux-musl"),
    ] {
        // The plugin's Linux archives: the binary beside the LICENSE.
        let archive = dist.join(format!("kubectl-trussium_{VERSION}_{platform}.tar.gz"));
        let out = std::process::Command::new("tar")
            .arg("-xzOf")
            .arg(&archive)
            .arg("kubectl-trussium")
            .output()?;
        assert!(out.status.success(), "{}", archive.display());
        sboms.push(ShippedSbom {
            file: dist.join(format!("kubectl-trussium_{VERSION}_{platform}.cdx.json")),
            package: "kubectl-trussium",
            target,
            binary: out.stdout,
        });
    }
    Ok(sboms)
}

/// `scripts/sbom-check.sh` on an SBOM: its exit status and stderr.
async fn sbom_check(sbom: &Path, package: &str, target: &str) -> Result<(bool, String), BoxError> {
    let out = tokio::process::Command::new(repo_root().join("scripts/sbom-check.sh"))
        .current_dir(repo_root())
        .arg(sbom)
        .args([package, target])
        .stdin(Stdio::null())
        .output()
        .await?;
    Ok((
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The SBOM's crates (name, version) of scope `required` and the
/// described package itself.
fn required_components(sbom: &Value) -> BTreeSet<(String, String)> {
    let top = std::iter::once(&sbom["metadata"]["component"]);
    let components = sbom["components"].as_array().into_iter().flatten();
    top.chain(components)
        .filter(|c| c["scope"] != "excluded")
        .filter_map(|c| {
            Some((
                c["name"].as_str()?.to_string(),
                c["version"].as_str()?.to_string(),
            ))
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs the release bundle (make test)"]
async fn every_sbom_names_the_crates_compiled_into_its_binary() -> TestResult {
    let dist = release_dist()?;
    let work = work_dir("sbom-crates")?;
    let locked = cargo_lock()?;
    let mut report = Vec::new();
    for ShippedSbom {
        file: sbom,
        package,
        target,
        binary,
    } in shipped_sboms(&dist, &work)?
    {
        let name = sbom
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let document: Value = serde_json::from_slice(&std::fs::read(&sbom)?)?;
        assert_eq!(document["bomFormat"], "CycloneDX", "{name}");
        assert_eq!(document["metadata"]["component"]["name"], package, "{name}");
        let listed = required_components(&document);
        // From the binary itself: every crate whose sources its panic
        // locations name was compiled in, and must be listed at that version.
        let named = crates_named_in(&binary, &locked);
        let missing: Vec<_> = named.difference(&listed).collect();
        assert!(
            missing.is_empty(),
            "{name} lacks crates its binary names: {missing:?}"
        );
        assert!(
            named.len() > 30,
            "{name}: only {} crates found in the binary",
            named.len()
        );
        // From cargo: every crate compiled for that target, and every listed
        // version in Cargo.lock (the release's own check).
        let (ok, stderr) = sbom_check(&sbom, package, target).await?;
        assert!(ok, "{name}: {stderr}");
        let everything = document["components"].as_array().map(Vec::len).unwrap_or(0);
        report.push(format!(
            "{name}: {everything} components, {} required; {} found in the binary; {}",
            listed.len(),
            named.len(),
            stderr.trim()
        ));
    }
    eprintln!("SBOMs:\n  {}", report.join("\n  "));
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

#[tokio::test]
#[ignore = "needs the release bundle (make test)"]
async fn a_release_whose_sbom_does_not_match_cargo_lock_fails_naming_the_crate() -> TestResult {
    let dist = release_dist()?;
    let work = work_dir("sbom-mismatch")?;
    let (arch, target, _) = PLATFORMS[1];
    let shipped: Value = serde_json::from_slice(&std::fs::read(shipped_sbom(&dist, arch))?)?;
    let doctored = |change: &dyn Fn(&mut Vec<Value>)| -> Result<PathBuf, BoxError> {
        let mut sbom = shipped.clone();
        let components = sbom["components"]
            .as_array_mut()
            .ok_or("the SBOM has no components")?;
        change(components);
        let path = work.join("doctored.cdx.json");
        std::fs::write(&path, serde_json::to_vec(&sbom)?)?;
        Ok(path)
    };

    // A crate compiled into the binary, left out.
    let sbom = doctored(&|components| components.retain(|c| c["name"] != "tokio"))?;
    let (ok, stderr) = sbom_check(&sbom, BINARY, target).await?;
    assert!(!ok, "a missing crate is refused");
    assert!(
        stderr.contains("crate tokio ") && stderr.contains("does not list it"),
        "{stderr}"
    );

    // A version other than Cargo.lock's.
    let sbom = doctored(&|components| {
        for c in components.iter_mut().filter(|c| c["name"] == "serde_json") {
            c["version"] = json!("0.0.1");
        }
    })?;
    let (ok, stderr) = sbom_check(&sbom, BINARY, target).await?;
    assert!(!ok, "a wrong version is refused");
    assert!(
        stderr.contains("crate serde_json 0.0.1 is not in Cargo.lock")
            && stderr.contains("lists version 0.0.1"),
        "{stderr}"
    );
    eprintln!("sbom-check on a doctored SBOM:\n{stderr}");
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

#[tokio::test]
#[ignore = "needs the release bundle (make test)"]
async fn make_publish_pushes_the_index_and_its_sboms_to_a_registry() -> TestResult {
    let dist = release_dist()?;
    let work = work_dir("publish")?;
    let (layout, index) = unpacked(&work)?;
    let registry = Registry::start()?;
    let repository = format!("{}/trussium/operator", registry.address);
    let outputs = work.join("github-output");

    let out = tokio::process::Command::new("make")
        .arg("--no-print-directory")
        .arg("publish")
        .current_dir(repo_root())
        .env("DIST_DIR", &dist)
        .env("IMAGE_REPOSITORY", &repository)
        .env(
            "CHART_REPOSITORY",
            format!("oci://{}/charts", registry.address),
        )
        .env("PLAIN_HTTP", "1")
        .env("GITHUB_OUTPUT", &outputs)
        .stdin(Stdio::null())
        .output()
        .await?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "make publish: {}\n{stderr}",
        out.status
    );
    let digest = layout.tagged(&tag())?.digest;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{repository}:{}@{digest}", tag())),
        "{stdout}"
    );
    let outputs = std::fs::read_to_string(&outputs)?;
    assert!(
        outputs.contains(&format!("image={repository}\n"))
            && outputs.contains(&format!("image-digest={digest}\n")),
        "{outputs}"
    );

    // Read back through the distribution API: the tag names the same index,
    let get = async |path: String, accept: &str| {
        http_request(registry.address, &path, &[("Accept", accept)]).await
    };
    let tagged = get(
        format!("/v2/trussium/operator/manifests/{}", tag()),
        IMAGE_INDEX,
    )
    .await?;
    assert_eq!(tagged.status, 200);
    assert_eq!(
        tagged.header("docker-content-digest"),
        Some(digest.as_str())
    );
    // and the registry lists each image's SBOM as its referrer.
    for (arch, _, _) in PLATFORMS {
        let image = platform_image(&index, arch)?;
        let pulled = get(
            format!("/v2/trussium/operator/manifests/{}", image.digest),
            IMAGE_MANIFEST,
        )
        .await?;
        assert_eq!(pulled.status, 200, "linux/{arch}");
        let referrers = get(
            format!("/v2/trussium/operator/referrers/{}", image.digest),
            IMAGE_INDEX,
        )
        .await?;
        assert_eq!(referrers.status, 200, "linux/{arch}");
        let listed: Index = serde_json::from_slice(&referrers.body)?;
        let [sbom] = listed.manifests.as_slice() else {
            return Err(format!(
                "linux/{arch}: the registry lists {} referrers",
                listed.manifests.len()
            )
            .into());
        };
        // (This registry lists the config's media type as the referrer's
        // artifactType, not the manifest's own: read the manifest.)
        let manifest = get(
            format!("/v2/trussium/operator/manifests/{}", sbom.digest),
            IMAGE_MANIFEST,
        )
        .await?;
        let manifest: Manifest = serde_json::from_slice(&manifest.body)?;
        assert_eq!(
            manifest.artifact_type.as_deref(),
            Some(SBOM_TYPE),
            "linux/{arch}"
        );
        assert_eq!(
            manifest.subject.map(|s| s.digest),
            Some(image.digest.clone()),
            "linux/{arch}"
        );
        let layer = manifest
            .layers
            .first()
            .ok_or("the SBOM artifact has no layer")?;
        let blob = get(
            format!("/v2/trussium/operator/blobs/{}", layer.digest),
            "*/*",
        )
        .await?;
        assert_eq!(blob.status, 200);
        assert!(
            blob.body == std::fs::read(shipped_sbom(&dist, arch))?,
            "linux/{arch}: the registry serves the shipped SBOM"
        );
    }
    // The Helm chart went to the chart repository, tagged with its version,
    // its one layer the release's package byte for byte.
    let chart = get(
        format!("/v2/charts/trussium-operator/manifests/{VERSION}"),
        IMAGE_MANIFEST,
    )
    .await?;
    assert_eq!(chart.status, 200, "the chart in the registry");
    // (Helm's manifest has no mediaType of its own: read it as JSON.)
    let chart: Value = serde_json::from_slice(&chart.body)?;
    assert_eq!(chart["config"]["mediaType"], HELM_CONFIG, "{chart}");
    let layers = chart["layers"].as_array().map_or(&[][..], Vec::as_slice);
    let [package] = layers else {
        return Err(format!("the chart has {} layers: {chart}", layers.len()).into());
    };
    let digest = package["digest"]
        .as_str()
        .ok_or_else(|| format!("the chart's layer has no digest: {chart}"))?;
    let blob = get(
        format!("/v2/charts/trussium-operator/blobs/{digest}"),
        "*/*",
    )
    .await?;
    assert_eq!(blob.status, 200);
    assert!(
        blob.body == std::fs::read(dist.join(format!("trussium-operator-{VERSION}.tgz")))?,
        "the registry serves the release's chart package"
    );
    eprintln!("make publish:\n{stdout}{stderr}");
    drop(registry);
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}
