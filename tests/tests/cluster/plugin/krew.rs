//! The plugin installs with krew itself (built from its Go module by
//! tests/krew/build.sh) from the manifest and archive that `make release`
//! (scripts/release.sh) produces, and then works through kubectl.

use std::path::{Path, PathBuf};
use std::time::Duration;

use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    Error, TestNamespace, admin_kubeconfig_path, install_crd, kubectl_path, release_dist,
    repo_root, require_cluster, run_to_end, target_debug_dir,
};

use super::support::*;

/// Runs a script of the repository and returns its stdout.
async fn script(path: &str, env: &[(&str, &Path)]) -> Result<String, Error> {
    let full = repo_root().join(path);
    let mut cmd = tokio::process::Command::new(&full);
    cmd.current_dir(repo_root()).kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_secs(900), cmd.output())
        .await
        .map_err(|_| Error::Timeout {
            what: path.to_string(),
            timeout: Duration::from_secs(900),
            last_error: None,
        })?
        .map_err(Error::io_at(&full))?;
    if !out.status.success() {
        return Err(Error::Io {
            path: full,
            source: std::io::Error::other(format!(
                "{}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn krew_installs_the_plugin_from_the_local_manifest_and_archive() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("plugin-krew").await?;
    install_crd(&ns.client).await?;
    let api = ns.api::<TrussiumRuntime>();
    create(&api, &ollama_runtime("via-krew", "v1.2.3", 1)?).await?;
    set_status(
        &api,
        "via-krew",
        healthy_status("via-krew", &ns.name, "v1.2.3", 1, 1),
    )
    .await?;

    let work = std::env::temp_dir().join(format!("{}-krew", ns.name));
    let krew_root = work.join("krew-root");
    std::fs::create_dir_all(&krew_root).map_err(Error::io_at(&krew_root))?;

    // krew, from its Go module (cached outside the checkout).
    let krew_dir = PathBuf::from(script("tests/krew/build.sh", &[]).await?.trim());
    // The release's manifest and linux/amd64 archive (cross-built, static).
    let dist = release_dist()?;
    let manifest = dist.join("trussium.yaml");
    let archive = std::fs::read_dir(&dist)
        .map_err(Error::io_at(&dist))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.to_string_lossy().ends_with("_linux_amd64.tar.gz"))
        .ok_or_else(|| Error::Io {
            path: dist.clone(),
            source: std::io::Error::other("no linux_amd64 archive"),
        })?;
    let text = std::fs::read_to_string(&manifest).map_err(Error::io_at(&manifest))?;
    assert!(
        !text.contains("${SHA256_") && !text.contains("${BASE_URL}"),
        "{text}"
    );

    // Only krew and what it installs on PATH (not target/debug).
    let path = std::env::join_paths(
        [
            krew_dir,
            krew_root.join("bin"),
            trussium_e2e::control_plane_bin_dir(),
        ]
        .into_iter()
        .chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ))
        .filter(|p| !p.starts_with(target_debug_dir())),
    )
    .unwrap_or_default();
    let kubectl = |args: &[&str]| {
        let mut cmd = tokio::process::Command::new(kubectl_path());
        cmd.args(args)
            .env("PATH", &path)
            .env("KREW_ROOT", &krew_root)
            .env("KUBECONFIG", admin_kubeconfig_path())
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        cmd
    };

    let out = run_to_end(kubectl(&[
        "krew",
        "install",
        &format!("--manifest={}", manifest.display()),
        &format!("--archive={}", archive.display()),
    ]))
    .await?;
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stderr.contains("Installed plugin: trussium"), "{out}");
    assert!(
        out.stderr.contains("kubectl_complete-trussium"),
        "the caveats are shown: {out}"
    );
    let installed = krew_root.join("bin").join("kubectl-trussium");
    assert!(installed.exists(), "{}", installed.display());
    let store = krew_root.join("store").join("trussium");
    let license = std::fs::read_dir(&store)
        .map_err(Error::io_at(&store))?
        .filter_map(|e| e.ok())
        .any(|v| v.path().join("LICENSE").exists());
    assert!(license, "the LICENSE ships in the archive");
    let man_pages = std::fs::read_dir(&store)
        .map_err(Error::io_at(&store))?
        .filter_map(|e| e.ok())
        .any(|v| v.path().join("man").join("kubectl-trussium.1").exists());
    assert!(man_pages, "krew installs the man pages");

    let out = run_to_end(kubectl(&["trussium", "status", "-n", &ns.name])).await?;
    assert_eq!(out.code, 0, "{out}");
    let row = out.first_row();
    assert_eq!(
        row[..6],
        ["via-krew", "1", "1", "ollama", "llama3.2", "v1.2.3"],
        "{out}"
    );

    // Help names the plugin as users type it, through krew's symlink too.
    let out = run_to_end(kubectl(&["trussium", "--help"])).await?;
    assert!(
        out.stdout
            .contains("Usage: kubectl trussium [OPTIONS] <COMMAND>"),
        "{out}"
    );

    // The caveats' completion recipe, then kubectl's plugin completion.
    let helper = krew_root.join("bin").join("kubectl_complete-trussium");
    let out = run_to_end(kubectl(&["trussium", "completion", "kubectl"])).await?;
    std::fs::write(&helper, &out.stdout).map_err(Error::io_at(&helper))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755))
            .map_err(Error::io_at(&helper))?;
    }
    let out = run_to_end(kubectl(&[
        "__complete",
        "trussium",
        "status",
        "-n",
        &ns.name,
        "via",
    ]))
    .await?;
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stdout.starts_with("via-krew\tollama v1.2.3"), "{out}");

    let _ = std::fs::remove_dir_all(&work);
    ns.delete().await;
    Ok(())
}
