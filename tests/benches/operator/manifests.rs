//! What the benchmark applies: N runtimes, the same owned objects for the
//! `kubectl apply` baseline (built by the operator's own builders), and
//! large Secrets.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{ObjectMeta, PostParams};
use kube::{Api, Resource};
use trussium_api::TrussiumRuntime;
use trussium_e2e::{admin_kubeconfig_path, kubectl_path};
use trussium_operator::pure::config::OperatorConfig;
use trussium_operator::pure::resources::{BuildContext, build};

use super::Result;

pub const MINIMAL: &str = r#"
apiVersion: runtime.trussium.io/v1beta1
kind: TrussiumRuntime
metadata:
  name: placeholder
spec:
  image:
    repository: ghcr.io/trussiumhq/trussium
    tag: v1.22.0
  provider:
    type: ollama
    model: llama3.2
"#;

pub fn runtime_name(i: usize) -> String {
    format!("rt-{i:04}")
}

/// The minimal runtimes numbered `range` in `namespace`.
fn runtimes_in(namespace: &str, range: Range<usize>) -> Result<Vec<TrussiumRuntime>> {
    let template: TrussiumRuntime = serde_yaml::from_str(MINIMAL)?;
    Ok(range
        .map(|i| {
            let mut rt = template.clone();
            rt.metadata.name = Some(runtime_name(i));
            rt.metadata.namespace = Some(namespace.to_string());
            rt
        })
        .collect())
}

/// The ConfigMap, ServiceAccount, Service, Deployment and PodDisruptionBudget
/// the operator would apply for each runtime, without the owner reference
/// (there is no runtime to own them), as YAML documents, for the runtimes
/// numbered `range`.
pub fn owned_objects_yaml(namespace: &str, range: Range<usize>) -> Result<String> {
    let config = OperatorConfig::default();
    let versions = BTreeMap::new();
    let ctx = BuildContext {
        config: &config,
        secret_versions: &versions,
        observed_replicas: None,
    };
    let mut docs = Vec::new();
    for mut rt in runtimes_in(namespace, range)? {
        rt.metadata.uid = Some("00000000-0000-0000-0000-000000000000".into());
        let desired = build(&rt, &ctx)?;
        let mut push = |mut meta: ObjectMeta, value: serde_json::Value| -> Result<()> {
            meta.owner_references = None;
            let mut value = value;
            value["metadata"] = serde_json::to_value(&meta)?;
            docs.push(serde_yaml::to_string(&value)?);
            Ok(())
        };
        push(
            desired.config_map.meta().clone(),
            serde_json::to_value(&desired.config_map)?,
        )?;
        push(
            desired.service_account.meta().clone(),
            serde_json::to_value(&desired.service_account)?,
        )?;
        push(
            desired.service.meta().clone(),
            serde_json::to_value(&desired.service)?,
        )?;
        push(
            desired.deployment.meta().clone(),
            serde_json::to_value(&desired.deployment)?,
        )?;
        push(
            desired.pod_disruption_budget.meta().clone(),
            serde_json::to_value(&desired.pod_disruption_budget)?,
        )?;
    }
    Ok(docs.join("---\n"))
}

/// The minimal runtimes numbered `range` as YAML documents.
pub fn runtimes_yaml(namespace: &str, range: Range<usize>) -> Result<String> {
    let docs: std::result::Result<Vec<String>, _> = runtimes_in(namespace, range)?
        .iter()
        .map(serde_yaml::to_string)
        .collect();
    Ok(docs?.join("---\n"))
}

/// Writes `yaml` to a file under the target directory.
pub fn write(name: &str, yaml: &str) -> Result<PathBuf> {
    let dir = trussium_e2e::repo_root().join("target").join("bench");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(name);
    std::fs::write(&path, yaml)?;
    Ok(path)
}

/// One `kubectl apply --server-side -f <file>` per file, all at once; returns
/// how long until the last one finished.
pub fn kubectl_apply_at_once(files: &[PathBuf]) -> Result<Duration> {
    let started = Instant::now();
    let children = files
        .iter()
        .map(|file| {
            std::process::Command::new(kubectl_path())
                .env("KUBECONFIG", admin_kubeconfig_path())
                .args(["apply", "--server-side", "--force-conflicts", "-f"])
                .arg(file)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map(|child| (file, child))
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut failures = Vec::new();
    for (file, child) in children {
        let output = child.wait_with_output()?;
        if !output.status.success() {
            failures.push(format!(
                "kubectl apply -f {}: {}",
                file.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    if !failures.is_empty() {
        return Err(failures.join("\n").into());
    }
    Ok(started.elapsed())
}

/// Creates `n` Secrets `secret-<i>` of `kib` KiB each, as client-side
/// `kubectl apply` leaves them: the data a second time (base64) in the
/// last-applied-configuration annotation, which metadata requests return.
pub async fn create_large_secrets(secrets: &Api<Secret>, n: usize, kib: usize) -> Result<()> {
    let value: String = (0..kib * 1024)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    for i in 0..n {
        let name = format!("secret-{i:04}");
        let last_applied = serde_json::json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": name},
            "stringData": {"api-key": value},
        })
        .to_string();
        let secret = Secret {
            metadata: ObjectMeta {
                name: Some(name),
                annotations: Some(BTreeMap::from([(
                    "kubectl.kubernetes.io/last-applied-configuration".to_string(),
                    last_applied,
                )])),
                ..ObjectMeta::default()
            },
            data: Some(BTreeMap::from([(
                "api-key".to_string(),
                ByteString(value.clone().into_bytes()),
            )])),
            ..Secret::default()
        };
        secrets.create(&PostParams::default(), &secret).await?;
    }
    Ok(())
}
