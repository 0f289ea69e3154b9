//! The real `kubectl`: the one built with the control plane, of the
//! cluster's Kubernetes version (the machine's may be older), run as the
//! cluster admin.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde::Deserialize;

use crate::{Error, admin_kubeconfig_path, cluster_dir, control_plane_bin_dir, repo_root};

/// How long one request of [`kubectl`] may take: a request the API server
/// never answers fails the test instead of hanging it. A command that watches
/// for longer (`kubectl wait`) passes `--request-timeout=0` (no limit) after it.
pub const KUBECTL_REQUEST_TIMEOUT: &str = "--request-timeout=30s";

/// The kubectl built with the control plane (`tests/cluster/build.sh`).
pub fn kubectl_path() -> PathBuf {
    control_plane_bin_dir().join("kubectl")
}

/// kubectl's discovery cache for this cluster only. The default
/// (`~/.kube/cache`, kept ten minutes, keyed by host and port) outlives a
/// cluster: the next one on the same port would be read through the last
/// one's API versions (`kubectl explain` of a version no longer preferred).
pub fn discovery_cache_dir() -> PathBuf {
    cluster_dir().join("kube-cache")
}

/// What one `kubectl` run printed.
#[derive(Debug)]
pub struct Kubectl {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Kubectl {
    fn from_output(output: Output) -> Self {
        Kubectl {
            success: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Stdout and stderr, for messages.
    pub fn both(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs `kubectl ARGS…` as the cluster admin, feeding `stdin` if given.
pub async fn kubectl(args: &[&str], stdin: Option<&str>) -> Result<Kubectl, Error> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let stdin = stdin.map(str::to_string);
    tokio::task::spawn_blocking(move || run(&args, stdin.as_deref()))
        .await
        .map_err(|e| Error::Check(format!("kubectl did not finish: {e}")))?
}

/// Like [`kubectl`], but a failure is an error carrying kubectl's output.
pub async fn kubectl_ok(args: &[&str], stdin: Option<&str>) -> Result<String, Error> {
    let run = kubectl(args, stdin).await?;
    if !run.success {
        return Err(Error::Check(format!(
            "kubectl {} failed:\n{}",
            args.join(" "),
            run.both()
        )));
    }
    Ok(run.stdout)
}

fn run(args: &[String], stdin: Option<&str>) -> Result<Kubectl, Error> {
    use std::io::Write;

    let binary = kubectl_path();
    let mut child = Command::new(&binary)
        .arg("--kubeconfig")
        .arg(admin_kubeconfig_path())
        .arg("--cache-dir")
        .arg(discovery_cache_dir())
        .arg(KUBECTL_REQUEST_TIMEOUT)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::io(&binary, e))?;
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(input.as_bytes())
            .map_err(|e| Error::io(&binary, e))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| Error::io(&binary, e))?;
    Ok(Kubectl::from_output(output))
}

/// `kubectl kustomize <dir>` (relative to the checkout, or absolute): the
/// objects a kustomization really produces, as JSON.
pub fn kustomize(dir: &str) -> Result<Vec<serde_json::Value>, Error> {
    let binary = kubectl_path();
    let output = Command::new(&binary)
        .args(["kustomize", &repo_root().join(dir).to_string_lossy()])
        .output()
        .map_err(|e| Error::io(&binary, e))?;
    if !output.status.success() {
        return Err(Error::Check(format!(
            "kubectl kustomize {dir}: {}",
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut objects = Vec::new();
    for document in serde_yaml::Deserializer::from_str(&text) {
        objects.push(serde_json::Value::deserialize(document)?);
    }
    Ok(objects)
}
