//! Running the real `kubectl-trussium` through the real `kubectl` (plugin
//! discovery on PATH), and putting TrussiumRuntimes into known states by
//! writing their status as the admin, the way the operator would.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use serde_json::{Value, json};
use std::io::BufRead;
use std::sync::mpsc;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{Error, control_plane_bin_dir, kubectl_path, repo_root};

pub const REPOSITORY: &str = "ghcr.io/trussiumhq/trussium";
pub const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

pub fn image(tag: &str) -> String {
    format!("{REPOSITORY}:{tag}")
}

fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}

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

/// PATH with the plugin, the kubectl completion helper and kubectl 1.36 first.
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
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl std::fmt::Display for Output {
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
    kubectl_trussium_as(&trussium_e2e::admin_kubeconfig_path(), args)
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
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    Ok(cmd)
}

/// Runs a command to the end (at most two minutes).
pub async fn output(mut cmd: tokio::process::Command) -> Result<Output, Error> {
    let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .map_err(|_| Error::Timeout {
            what: format!("{cmd:?}"),
            timeout: Duration::from_secs(120),
            last_error: None,
        })?
        .map_err(io(kubectl_path()))?;
    Ok(Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// `kubectl trussium ARGS…` as the admin, to the end.
pub async fn run(args: &[&str]) -> Result<Output, Error> {
    output(kubectl_trussium(args)?).await
}

/// A running command whose stdout arrives line by line (read by a thread).
pub struct Running {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
    /// Everything read so far.
    pub seen: String,
}

impl Running {
    pub fn spawn(cmd: tokio::process::Command) -> Result<Self, Error> {
        let mut cmd = cmd.into_std();
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(io(kubectl_path()))?;
        let (tx, lines) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Ok(Running {
            child,
            lines,
            seen: String::new(),
        })
    }

    /// Reads lines until one contains `needle`, or fails after `timeout`.
    pub async fn wait_for_line(&mut self, needle: &str, timeout: Duration) -> Result<(), Error> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match self.lines.try_recv() {
                Ok(line) => {
                    self.seen.push_str(&line);
                    self.seen.push('\n');
                    if line.contains(needle) {
                        return Ok(());
                    }
                }
                Err(mpsc::TryRecvError::Empty) if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(_) => {
                    return Err(Error::Timeout {
                        what: format!(
                            "a line containing {needle:?}; output so far:\n{}",
                            self.seen
                        ),
                        timeout,
                        last_error: None,
                    });
                }
            }
        }
    }

    /// Stops the command (it is ours: started by `spawn`).
    pub fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Applies crds/ (server-side, idempotent) and waits until it is served.
pub async fn ensure_crd(client: &Client) -> Result<(), Error> {
    trussium_e2e::install_crd(client).await?;
    Ok(())
}

/// A TrussiumRuntime with the given tag and replicas.
pub fn runtime(name: &str, tag: &str, replicas: i32) -> Result<TrussiumRuntime, Error> {
    Ok(serde_json::from_value(json!({
        "apiVersion": "runtime.trussium.io/v1alpha1",
        "kind": "TrussiumRuntime",
        "metadata": {"name": name},
        "spec": {
            "image": {"repository": REPOSITORY, "tag": tag},
            "replicas": replicas,
            "provider": {"type": "ollama", "model": "llama3.2",
                         "baseURL": "http://ollama.ollama.svc.cluster.local:11434/v1"},
            "runtime": {"providerRequestTimeoutSeconds": 60}
        }
    }))?)
}

pub async fn create(
    api: &Api<TrussiumRuntime>,
    rt: &TrussiumRuntime,
) -> Result<TrussiumRuntime, Error> {
    Ok(api.create(&PostParams::default(), rt).await?)
}

/// A condition as the operator writes it.
pub fn condition(type_: &str, status: &str, reason: &str, message: &str, generation: i64) -> Value {
    json!({
        "type": type_, "status": status, "reason": reason, "message": message,
        "lastTransitionTime": Timestamp::now().to_string(),
        "observedGeneration": generation
    })
}

/// The status of a runtime that runs `tag` healthily at `generation`.
pub fn healthy_status(
    name: &str,
    namespace: &str,
    tag: &str,
    replicas: i32,
    generation: i64,
) -> Value {
    json!({
        "observedGeneration": generation,
        "desiredReplicas": replicas,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
        "desiredImage": image(tag),
        "currentImage": image(tag),
        "lastSuccessfulImage": image(tag),
        "endpoint": format!("http://{name}.{namespace}.svc.cluster.local:9000"),
        "conditions": [
            condition("ConfigurationValid", "True", "ReferencesResolved", "All referenced Secrets are available.", generation),
            condition("Progressing", "False", "ReconciliationComplete", "The Deployment is up to date.", generation),
            condition("Available", "True", "RuntimeAvailable", "At least one replica is available.", generation),
            condition("Ready", "True", "RuntimeReady", "All requested runtime replicas are ready and available.", generation),
            condition("Degraded", "False", "AsExpected", "The runtime is healthy.", generation),
            condition("Upgrading", "False", "NoUpgrade", "No image upgrade is active.", generation),
        ]
    })
}

/// Writes (merges) the status through the status subresource, as the operator would.
pub async fn set_status(
    api: &Api<TrussiumRuntime>,
    name: &str,
    status: Value,
) -> Result<(), Error> {
    api.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({ "status": status })),
    )
    .await?;
    Ok(())
}

/// Publishes an events.k8s.io/v1 Event about the runtime, `age` ago.
pub async fn publish_event(
    client: &Client,
    rt: &TrussiumRuntime,
    type_: &str,
    reason: &str,
    note: &str,
    age: Duration,
) -> Result<Event, Error> {
    let namespace = rt.namespace().unwrap_or_default();
    let when = Timestamp::now()
        .checked_sub(k8s_openapi::jiff::SignedDuration::try_from(age).unwrap_or_default())
        .unwrap_or_else(|_| Timestamp::now());
    let event: Event = serde_json::from_value(json!({
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"generateName": format!("{}-", rt.name_any()), "namespace": namespace},
        "eventTime": when.to_string(),
        "type": type_,
        "reason": reason,
        "action": "Reconcile",
        "note": note,
        "reportingController": "runtime.trussium.io/operator",
        "reportingInstance": "plugin-tests",
        "regarding": {
            "apiVersion": "runtime.trussium.io/v1alpha1",
            "kind": "TrussiumRuntime",
            "name": rt.name_any(),
            "namespace": namespace,
            "uid": rt.uid(),
        }
    }))?;
    let api: Api<Event> = Api::namespaced(client.clone(), &namespace);
    Ok(api.create(&PostParams::default(), &event).await?)
}
