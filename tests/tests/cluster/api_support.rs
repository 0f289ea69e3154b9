//! Shared by the `api_*` cluster tests: installing the CRD from `crds/`,
//! running the real `kubectl`, and reading the manifest corpus in
//! `tests/fixtures/`.

use std::path::{Path, PathBuf};
use std::process::Output;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ApiResource, DynamicObject};
use kube::{Api, Client, ResourceExt};
use trussium_api::TrussiumRuntime;
use trussium_e2e::{admin_kubeconfig_path, repo_root};

pub type TestResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub const CRD_NAME: &str = "trussiumruntimes.runtime.trussium.io";

/// Applies `crds/` as committed and waits until it is served.
pub async fn install_crd(client: &Client) -> Result<CustomResourceDefinition, BoxError> {
    Ok(trussium_e2e::install_crd(client).await?)
}

/// The TrussiumRuntime resource, for `Api<DynamicObject>`.
pub fn runtime_resource() -> ApiResource {
    ApiResource::erase::<TrussiumRuntime>(&())
}

pub fn dynamic_api(client: &Client, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), namespace, &runtime_resource())
}

/// The `kubectl` to run: `$TRUSSIUM_BIN/kubectl` (the cluster's own, 1.36)
/// when `tests/cluster/env.sh` was sourced, else the first on `PATH`.
pub fn kubectl_binary() -> PathBuf {
    match std::env::var_os("TRUSSIUM_BIN") {
        Some(bin) if !bin.is_empty() => PathBuf::from(bin).join("kubectl"),
        _ => PathBuf::from("kubectl"),
    }
}

/// What one `kubectl` run printed.
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

/// Runs the real `kubectl` as the cluster admin, feeding `stdin` if given.
pub async fn kubectl(args: &[&str], stdin: Option<&str>) -> Result<Kubectl, BoxError> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let stdin = stdin.map(str::to_string);
    tokio::task::spawn_blocking(move || run_kubectl(&args, stdin.as_deref())).await?
}

fn run_kubectl(args: &[String], stdin: Option<&str>) -> Result<Kubectl, BoxError> {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let binary = kubectl_binary();
    let mut child = Command::new(&binary)
        .arg("--kubeconfig")
        .arg(admin_kubeconfig_path())
        .arg("--request-timeout=30s")
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run {}: {e} (source tests/cluster/env.sh first)",
                binary.display()
            )
        })?;
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(input.as_bytes())?;
    }
    Ok(Kubectl::from_output(child.wait_with_output()?))
}

/// Like [`kubectl`], but a failure is an error carrying kubectl's output.
pub async fn kubectl_ok(args: &[&str], stdin: Option<&str>) -> Result<String, BoxError> {
    let run = kubectl(args, stdin).await?;
    if !run.success {
        return Err(format!("kubectl {} failed:\n{}", args.join(" "), run.both()).into());
    }
    Ok(run.stdout)
}

/// Whitespace collapsed to single spaces (kubectl wraps long descriptions).
pub fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One manifest of the corpus in `tests/fixtures/{invalid,valid}/`.
///
/// The header comment documents it:
/// ```yaml
/// # Refused: image.tag and image.digest are both set.
/// # expect: exactly one of image.tag or image.digest must be set
/// # api: pruned
/// ```
/// Every `expect:` line is a substring the API server's message must contain.
/// `api: pruned` marks an unknown field: `kubectl apply` (strict field
/// validation) refuses it, a client that does not ask for strict validation
/// gets it dropped with a warning.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub case: String,
    pub path: PathBuf,
    pub expects: Vec<String>,
    pub pruned_by_default: bool,
    pub text: String,
}

impl Fixture {
    /// The manifest as a dynamic object.
    pub fn object(&self) -> Result<DynamicObject, BoxError> {
        Ok(
            serde_yaml::from_str(&self.text)
                .map_err(|e| format!("{}: {e}", self.path.display()))?,
        )
    }

    /// The manifest as JSON.
    pub fn value(&self) -> Result<serde_json::Value, BoxError> {
        Ok(
            serde_yaml::from_str(&self.text)
                .map_err(|e| format!("{}: {e}", self.path.display()))?,
        )
    }

    /// The object name (the file stem).
    pub fn name(&self) -> Result<String, BoxError> {
        Ok(self.object()?.name_any())
    }
}

pub fn fixtures_dir() -> PathBuf {
    repo_root().join("tests/fixtures")
}

/// The fixtures of one directory (`invalid` or `valid`), sorted by name.
pub fn load_fixtures(kind: &str) -> Result<Vec<Fixture>, BoxError> {
    let dir = fixtures_dir().join(kind);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    paths.iter().map(|p| read_fixture(p)).collect()
}

fn read_fixture(path: &Path) -> Result<Fixture, BoxError> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let case = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let mut expects = Vec::new();
    let mut pruned_by_default = false;
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        let line = line.trim_start_matches('#').trim();
        if let Some(expect) = line.strip_prefix("expect:") {
            expects.push(expect.trim().to_string());
        } else if let Some(mode) = line.strip_prefix("api:") {
            pruned_by_default = mode.trim() == "pruned";
        }
    }
    Ok(Fixture {
        case,
        path: path.to_path_buf(),
        expects,
        pruned_by_default,
        text,
    })
}

/// The sample manifests in `deploy/samples/`, sorted by name.
pub fn samples() -> Result<Vec<(String, PathBuf)>, BoxError> {
    let dir = repo_root().join("deploy/samples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    Ok(paths
        .into_iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            (stem, p)
        })
        .collect())
}

/// The API server's message for a refused request.
pub fn refusal_message(error: &kube::Error) -> Option<String> {
    match error {
        kube::Error::Api(status) => Some(status.message.clone()),
        _ => None,
    }
}
