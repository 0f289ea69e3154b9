//! Running the real `kubectl-trussium` through the real `kubectl` (plugin
//! discovery on PATH): built once per test binary, run as the admin or with
//! another kubeconfig, and what it printed and how it exited.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use crate::{Error, admin_kubeconfig_path, control_plane_bin_dir, kubectl_path, repo_root};

/// `target/debug` (or `$CARGO_TARGET_DIR/debug`).
pub fn target_debug_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
        .join("debug")
}

/// Builds the plugin once per test binary and returns the directory holding it.
pub fn plugin_dir() -> Result<PathBuf, Error> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        let mut cmd = std::process::Command::new(cargo);
        // This test crate's CARGO_MANIFEST_DIR & co would make ring's build
        // script (which tracks it) and all that depends on it rebuild here,
        // and again at the next plain cargo build.
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy().into_owned();
            if key.starts_with("CARGO_MANIFEST_")
                || key.starts_with("CARGO_PKG_")
                || [
                    "CARGO_CRATE_NAME",
                    "CARGO_PRIMARY_PACKAGE",
                    "CARGO_TARGET_TMPDIR",
                ]
                .contains(&key.as_str())
            {
                cmd.env_remove(key);
            }
        }
        let status = cmd
            .current_dir(repo_root())
            .args([
                "build",
                "--quiet",
                "-p",
                "kubectl-trussium",
                "--bin",
                "kubectl-trussium",
            ])
            .status()
            .map_err(|e| format!("cargo build: {e}"))?;
        if !status.success() {
            return Err(format!("cargo build -p kubectl-trussium failed: {status}"));
        }
        Ok(target_debug_dir())
    });
    built.clone().map_err(|e| Error::Io {
        path: target_debug_dir(),
        source: std::io::Error::other(e),
    })
}

/// PATH with the plugin, the kubectl completion helper and the cluster's kubectl first.
pub fn path_with(dirs: &[PathBuf]) -> OsString {
    let mut all: Vec<PathBuf> = dirs.to_vec();
    all.push(control_plane_bin_dir());
    if let Some(path) = std::env::var_os("PATH") {
        all.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(all).unwrap_or_default()
}

/// What a finished command said.
#[derive(Debug)]
pub struct PluginOutput {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl PluginOutput {
    /// The columns of the first row under a table's header (`status`'s
    /// list: the first runtime); empty when there is none.
    pub fn first_row(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .nth(1)
            .unwrap_or_default()
            .split_whitespace()
            .collect()
    }
}

impl std::fmt::Display for PluginOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit code {}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// `kubectl trussium ARGS…` as the admin of the local cluster.
pub fn kubectl_trussium(args: &[&str]) -> Result<tokio::process::Command, Error> {
    kubectl_trussium_as(&admin_kubeconfig_path(), args)
}

/// `kubectl trussium ARGS…` with the given kubeconfig (through KUBECONFIG).
pub fn kubectl_trussium_as(
    kubeconfig: &Path,
    args: &[&str],
) -> Result<tokio::process::Command, Error> {
    let dir = plugin_dir()?;
    let mut cmd = tokio::process::Command::new(kubectl_path());
    cmd.arg("trussium")
        .args(args)
        .env("PATH", path_with(&[dir, repo_root().join("completions")]))
        .env("KUBECONFIG", kubeconfig)
        .env("KUBECACHEDIR", crate::kubectl::discovery_cache_dir())
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    Ok(cmd)
}

/// Runs a command to the end (at most two minutes).
pub async fn run_to_end(mut cmd: tokio::process::Command) -> Result<PluginOutput, Error> {
    let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .map_err(|_| Error::Timeout {
            what: format!("{cmd:?}"),
            timeout: Duration::from_secs(120),
            last_error: None,
        })?
        .map_err(Error::io_at(kubectl_path()))?;
    Ok(PluginOutput {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// `kubectl trussium ARGS…` as the admin, to the end.
pub async fn plugin(args: &[&str]) -> Result<PluginOutput, Error> {
    run_to_end(kubectl_trussium(args)?).await
}

/// `kubectl trussium ARGS… -n NAMESPACE` as the admin, to the end.
pub async fn plugin_in(namespace: &str, args: &[&str]) -> Result<PluginOutput, Error> {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["-n", namespace]);
    plugin(&all).await
}

/// `Err` (saying `what` and showing the output) unless the command ended
/// with exit code `code`.
pub fn ensure_exit(out: &PluginOutput, code: i32, what: &str) -> Result<(), String> {
    if out.code == code {
        Ok(())
    } else {
        Err(format!("{what}: expected exit code {code}\n{out}"))
    }
}

/// `Err` (showing the whole output) unless `text` holds every one of `needles`.
pub fn ensure_contains(text: &str, needles: &[&str], context: &PluginOutput) -> Result<(), String> {
    match needles.iter().find(|n| !text.contains(**n)) {
        None => Ok(()),
        Some(missing) => Err(format!("expected {missing:?} in the output\n{context}")),
    }
}

#[cfg(test)]
mod tests {
    use super::PluginOutput;

    #[test]
    fn the_first_row_is_the_one_under_the_header() {
        let out = |stdout: &str| PluginOutput {
            code: 0,
            stdout: stdout.into(),
            stderr: String::new(),
        };
        let table = out("NAME  READY  IMAGE\nweb   1/1    v1\napi   0/1    v2\n");
        assert_eq!(table.first_row(), ["web", "1/1", "v1"]);
        assert!(out("NAME  READY\n").first_row().is_empty());
        assert!(out("").first_row().is_empty());
    }
}
