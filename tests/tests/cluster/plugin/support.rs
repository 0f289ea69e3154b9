//! What only the plugin tests use (running the plugin itself, and the release
//! bundle, are trussium_e2e's): a command's lines as they come, and putting
//! TrussiumRuntimes into known states by writing their status as the admin,
//! the way the operator would.

use std::process::Stdio;
use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use serde_json::{Value, json};
use std::io::BufRead;
use std::sync::mpsc;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{Error, REPOSITORY, image, kubectl_path};

pub const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

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
            .map_err(Error::io_at(kubectl_path()))?;
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

    /// Waits for a line containing `needle`, unless one was read already
    /// (lines of several sources arrive in any order).
    pub async fn wait_until_seen(&mut self, needle: &str, timeout: Duration) -> Result<(), Error> {
        if self.seen.lines().any(|l| l.contains(needle)) {
            return Ok(());
        }
        self.wait_for_line(needle, timeout).await
    }

    /// Stops the command (it is ours: started by `spawn`).
    pub fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TrussiumRuntime of our image at `tag` with `replicas`, its provider a
/// local Ollama (what the plugin shows of it, the tests check).
pub fn ollama_runtime(name: &str, tag: &str, replicas: i32) -> Result<TrussiumRuntime, Error> {
    Ok(serde_json::from_value(json!({
        "apiVersion": "runtime.trussium.io/v1beta1",
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

/// A condition as the operator writes it, as JSON.
pub fn written_condition(
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    generation: i64,
) -> Value {
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
            written_condition("ConfigurationValid", "True", "ReferencesResolved", "All referenced Secrets are available.", generation),
            written_condition("Progressing", "False", "ReconciliationComplete", "The Deployment is up to date.", generation),
            written_condition("Available", "True", "RuntimeAvailable", "At least one replica is available.", generation),
            written_condition("Ready", "True", "RuntimeReady", "All requested runtime replicas are ready and available.", generation),
            written_condition("Degraded", "False", "AsExpected", "The runtime is healthy.", generation),
            written_condition("Upgrading", "False", "NoUpgrade", "No image upgrade is active.", generation),
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
            "apiVersion": "runtime.trussium.io/v1beta1",
            "kind": "TrussiumRuntime",
            "name": rt.name_any(),
            "namespace": namespace,
            "uid": rt.uid(),
        }
    }))?;
    let api: Api<Event> = Api::namespaced(client.clone(), &namespace);
    Ok(api.create(&PostParams::default(), &event).await?)
}
