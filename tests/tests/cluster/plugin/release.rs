//! The release bundle (`make release`, scripts/release.sh; here with the
//! cheap `cross-check` profile): five archives, each holding a binary for its
//! own OS and CPU, the LICENSE and the man pages; the linux/arm64 binary runs
//! under Debian's qemu-user-static against the cluster; krew's own validate-krew-manifest
//! accepts the manifest, installing every platform from a local web server;
//! SHA256SUMS, the CRD bundle and the install manifests of this version.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    Error, PluginOutput, TestNamespace, VERSION, admin_kubeconfig_path, binary_kind, install_crd,
    path_with, plugin, release_dist, repo_root, require_cluster, run_to_end,
};

use super::support::*;

/// Platforms as krew names them, the archive suffix and the binary inside.
const PLATFORMS: [(&str, &str, &str); 5] = [
    ("linux_amd64", "tar.gz", "kubectl-trussium"),
    ("linux_arm64", "tar.gz", "kubectl-trussium"),
    ("darwin_amd64", "tar.gz", "kubectl-trussium"),
    ("darwin_arm64", "tar.gz", "kubectl-trussium"),
    ("windows_amd64", "zip", "kubectl-trussium.exe"),
];

fn fail(path: &Path, message: String) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(message),
    }
}

fn expected_kind(platform: &str) -> &'static str {
    match platform {
        "linux_amd64" => "ELF x86-64",
        "linux_arm64" => "ELF aarch64",
        "darwin_amd64" => "Mach-O x86-64",
        "darwin_arm64" => "Mach-O arm64",
        _ => "PE x86-64",
    }
}

async fn command(program: &Path, args: &[&str], dir: &Path) -> Result<PluginOutput, Error> {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("KUBECONFIG", admin_kubeconfig_path())
        .env("PATH", path_with(&[]))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    run_to_end(cmd).await
}

/// Unpacks an archive into `into`.
async fn unpack(archive: &Path, into: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(into).map_err(Error::io_at(into))?;
    let text = archive.to_string_lossy().into_owned();
    let target = into.to_string_lossy().into_owned();
    let out = if text.ends_with(".zip") {
        command(
            Path::new("python3"),
            &["-m", "zipfile", "-e", &text, &target],
            into,
        )
        .await?
    } else {
        command(Path::new("tar"), &["-xzf", &text, "-C", &target], into).await?
    };
    if out.code != 0 {
        return Err(fail(archive, format!("cannot unpack: {out}")));
    }
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn release_archives_hold_a_binary_for_each_platform() -> Result<(), Error> {
    require_cluster();
    let dist = release_dist()?;
    let ns = TestNamespace::create("plugin-release").await?;
    install_crd(&ns.client).await?;
    let api = ns.api::<TrussiumRuntime>();
    create(&api, &ollama_runtime("on-arm", "v4.5.6", 1)?).await?;

    let work = std::env::temp_dir().join(format!("{}-unpacked", ns.name));
    let mut sizes = Vec::new();
    for (platform, ext, exe) in PLATFORMS {
        let archive = dist.join(format!("kubectl-trussium_{VERSION}_{platform}.{ext}"));
        let size = std::fs::metadata(&archive)
            .map_err(Error::io_at(&archive))?
            .len();
        sizes.push(format!("{platform}: {size} bytes"));
        let into = work.join(platform);
        unpack(&archive, &into).await?;
        let license =
            std::fs::read(into.join("LICENSE")).map_err(Error::io_at(&into.join("LICENSE")))?;
        assert!(!license.is_empty(), "{platform}: empty LICENSE");
        // The man pages of the plugin and of each of its commands.
        for page in ["kubectl-trussium.1", "kubectl-trussium-status.1"] {
            let path = into.join("man").join(page);
            let text = std::fs::read_to_string(&path).map_err(Error::io_at(&path))?;
            assert!(
                text.starts_with(".ie"),
                "{platform}: {page} is not a man page"
            );
        }
        let bin = into.join(exe);
        let bytes = std::fs::read(&bin).map_err(Error::io_at(&bin))?;
        assert_eq!(
            binary_kind(&bytes),
            expected_kind(platform),
            "{platform}: {}",
            bin.display()
        );
    }
    eprintln!("release archives:\n  {}", sizes.join("\n  "));

    // linux/arm64 under qemu (static, so no arm64 libc needed).
    let qemu = PathBuf::from("/usr/bin/qemu-aarch64-static");
    let arm = work.join("linux_arm64").join("kubectl-trussium");
    let arm_text = arm.to_string_lossy().into_owned();
    let out = command(&qemu, &[&arm_text, "version"], &work).await?;
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(
        out.stdout.trim(),
        format!("kubectl-trussium {VERSION} (linux/arm64)"),
        "{out}"
    );
    let out = command(&qemu, &[&arm_text, "status", "-n", &ns.name], &work).await?;
    assert_eq!(out.code, 0, "{out}");
    let row = out.first_row();
    assert_eq!(row.first(), Some(&"on-arm"), "{out}");
    assert!(row.contains(&"v4.5.6"), "{out}");
    eprintln!("linux/arm64 under qemu:\n{}", out.stdout);

    // SHA256SUMS covers every file and holds (but the signatures, made after
    // it, of it among others: signing.rs).
    let out = command(Path::new("sha256sum"), &["-c", "SHA256SUMS"], &dist).await?;
    assert_eq!(out.code, 0, "{out}");
    let mut files: Vec<String> = std::fs::read_dir(&dist)
        .map_err(Error::io_at(&dist))?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "SHA256SUMS" && !name.ends_with(".sigstore.json"))
        .collect();
    files.sort();
    let mut summed: Vec<String> = out
        .stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": OK"))
        .map(str::to_string)
        .collect();
    summed.sort();
    assert_eq!(summed, files, "SHA256SUMS lists every file of the release");
    for (platform, _, _) in PLATFORMS {
        let sbom = format!("kubectl-trussium_{VERSION}_{platform}.cdx.json");
        assert!(files.contains(&sbom), "{sbom} missing: {files:?}");
    }
    let chart = format!("trussium-operator-{VERSION}.tgz");
    assert!(files.contains(&chart), "{chart} missing: {files:?}");

    // The manifest names the release layout with the default base URL.
    let manifest = std::fs::read_to_string(dist.join("trussium.yaml"))
        .map_err(Error::io_at(&dist.join("trussium.yaml")))?;
    let base =
        format!("https://github.com/trussiumhq/trussium-operator/releases/download/v{VERSION}");
    for (platform, ext, _) in PLATFORMS {
        let name = format!("kubectl-trussium_{VERSION}_{platform}.{ext}");
        assert!(
            manifest.contains(&format!("uri: {base}/{name}")),
            "{manifest}"
        );
        let sums = std::fs::read_to_string(dist.join("SHA256SUMS"))
            .map_err(Error::io_at(&dist.join("SHA256SUMS")))?;
        let sha = sums
            .lines()
            .find(|l| l.ends_with(&name))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_default();
        assert!(
            manifest.contains(&format!("sha256: {sha}")) && sha.len() == 64,
            "{platform}: {sha}"
        );
    }
    assert!(
        manifest.contains(&format!("{base}/crds.yaml")),
        "the caveats name the CRD bundle: {manifest}"
    );

    // The plugin's "CRD not installed" hint is built on the same base URL
    // (compiled in from RELEASE_BASE_URL; the hint's text is unit-tested).
    for (platform, _, exe) in PLATFORMS {
        let bin = work.join(platform).join(exe);
        let bytes = std::fs::read(&bin).map_err(Error::io_at(&bin))?;
        assert!(
            bytes.windows(base.len()).any(|w| w == base.as_bytes()),
            "{platform}: the binary does not carry {base}"
        );
    }

    // The CRD bundle and the install manifests of this version.
    let crds = std::fs::read_to_string(dist.join("crds.yaml"))
        .map_err(Error::io_at(&dist.join("crds.yaml")))?;
    assert!(
        crds.contains("name: trussiumruntimes.runtime.trussium.io"),
        "crds.yaml"
    );
    let install = std::fs::read_to_string(dist.join("install.yaml"))
        .map_err(Error::io_at(&dist.join("install.yaml")))?;
    assert!(
        install.contains(&format!(
            "image: ghcr.io/trussiumhq/trussium-operator:v{VERSION}"
        )),
        "{install}"
    );
    for kind in [
        "kind: Namespace",
        "kind: ServiceAccount",
        "kind: ClusterRole",
        "kind: ClusterRoleBinding",
        "kind: Deployment",
    ] {
        assert!(install.contains(kind), "{kind} missing from install.yaml");
    }

    // What `kubectl trussium install` applies is what the release ships.
    let mut shipped = yaml_objects(&crds)?;
    shipped.extend(yaml_objects(&install)?);
    let out = plugin(&["install", "-o", "yaml"]).await?;
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(
        yaml_objects(&out.stdout)?,
        shipped,
        "install -o yaml is crds.yaml and install.yaml"
    );

    let _ = std::fs::remove_dir_all(&work);
    ns.delete().await;
    Ok(())
}

/// The objects of a multi-document YAML file.
fn yaml_objects(text: &str) -> Result<Vec<serde_json::Value>, Error> {
    use serde::Deserialize;
    let mut objects = Vec::new();
    for document in serde_yaml::Deserializer::from_str(text) {
        let value = serde_json::Value::deserialize(document)?;
        if !value.is_null() {
            objects.push(value);
        }
    }
    Ok(objects)
}

/// A static file server on an ephemeral port (Python's http.server), stopped
/// when dropped.
struct FileServer {
    child: std::process::Child,
    url: String,
}

impl Drop for FileServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path) -> Result<FileServer, Error> {
    use std::io::BufRead;
    let mut child = std::process::Command::new("python3")
        .args(["-u", "-m", "http.server", "--bind", "127.0.0.1", "0"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(Error::io_at(Path::new("python3")))?;
    let stdout = child.stdout.take();
    let mut server = FileServer {
        child,
        url: String::new(),
    };
    // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
    let mut first = String::new();
    if let Some(stdout) = stdout {
        std::io::BufReader::new(stdout)
            .read_line(&mut first)
            .map_err(Error::io_at(dir))?;
    }
    let port = first
        .split_whitespace()
        .skip_while(|w| *w != "port")
        .nth(1)
        .ok_or_else(|| fail(dir, format!("http.server said {first:?}")))?;
    server.url = format!("http://127.0.0.1:{port}");
    Ok(server)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn krews_validate_krew_manifest_accepts_the_manifest() -> Result<(), Error> {
    require_cluster();
    let dist = release_dist()?;
    // The same archives under another base URL (RELEASE_BASE_URL's job): a
    // local server, so that the validator really downloads and installs each
    // platform's archive.
    let work = std::env::temp_dir().join(format!("trussium-krew-validate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(Error::io_at(&work))?;
    for (platform, ext, _) in PLATFORMS {
        let name = format!("kubectl-trussium_{VERSION}_{platform}.{ext}");
        std::fs::copy(dist.join(&name), work.join(&name))
            .map_err(Error::io_at(&work.join(&name)))?;
    }
    let server = serve(&work)?;
    let script = repo_root().join("scripts/krew-manifest.sh");
    let work_text = work.to_string_lossy().into_owned();
    let out = command(&script, &[&work_text, &server.url], &repo_root()).await?;
    assert_eq!(out.code, 0, "{out}");
    let manifest = work.join("trussium.yaml");
    let text = std::fs::read_to_string(&manifest).map_err(Error::io_at(&manifest))?;
    assert!(
        text.contains(&format!(
            "uri: {}/kubectl-trussium_{VERSION}_windows_amd64.zip",
            server.url
        )),
        "{text}"
    );

    let krew_dir = {
        let build = repo_root().join("tests/krew/build.sh");
        let out = command(&build, &[], &repo_root()).await?;
        assert_eq!(out.code, 0, "{out}");
        PathBuf::from(out.stdout.trim())
    };
    let mut cmd = tokio::process::Command::new(krew_dir.join("validate-krew-manifest"));
    cmd.arg(format!("-manifest={}", manifest.display()))
        .env("PATH", path_with(std::slice::from_ref(&krew_dir)))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let out = run_to_end(cmd).await?;
    eprintln!("validate-krew-manifest:\n{}{}", out.stdout, out.stderr);
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stderr.contains("all 5 spec.platforms installed fine"),
        "{out}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}
