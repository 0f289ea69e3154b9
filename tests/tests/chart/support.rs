//! What the chart tests share: Helm against the local cluster, one cluster
//! test at a time, and generated files.

use std::path::{Path, PathBuf};
use std::process::Command;

use trussium_e2e::manifests::{CHART_DIR, tool};
use trussium_e2e::{admin_kubeconfig_path, repo_root};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub type TestResult = Result<(), BoxError>;

/// Set to rewrite generated files instead of failing on a stale one (`make generate`).
pub const UPDATE_GENERATED_ENV: &str = "UPDATE_GENERATED";

pub fn updating() -> bool {
    std::env::var(UPDATE_GENERATED_ENV).as_deref() == Ok("1")
}

/// Serializes the cluster tests of this binary: one release, one cluster-wide
/// operator and one CRD owner at a time.
pub async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

pub fn chart_dir() -> PathBuf {
    repo_root().join(CHART_DIR)
}

/// What a finished `helm` command said.
pub struct Outcome {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs Helm with `args` against the local cluster (the admin kubeconfig).
pub fn helm(args: &[&str]) -> Result<Outcome, BoxError> {
    let output = Command::new(tool("helm")?)
        .args(args)
        .env("KUBECONFIG", admin_kubeconfig_path())
        // Helm's own caches and repositories, out of the user's home.
        .env("HELM_CACHE_HOME", repo_root().join("target/e2e/helm/cache"))
        .env(
            "HELM_CONFIG_HOME",
            repo_root().join("target/e2e/helm/config"),
        )
        .env("HELM_DATA_HOME", repo_root().join("target/e2e/helm/data"))
        .output()?;
    Ok(Outcome {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).to_string(),
        stderr: String::from_utf8_lossy(&output.stderr).to_string(),
    })
}

/// Runs Helm and fails unless it succeeds; its standard output.
pub fn helm_ok(args: &[&str]) -> Result<String, BoxError> {
    let outcome = helm(args)?;
    if !outcome.success {
        return Err(format!("helm {}: {}", args.join(" "), outcome.stderr.trim()).into());
    }
    Ok(outcome.stdout)
}

/// Compares `path` with `expected`; under `UPDATE_GENERATED=1` writes it.
pub fn check_generated(path: &Path, expected: &str) -> TestResult {
    let current = std::fs::read_to_string(path).unwrap_or_default();
    if current == expected {
        return Ok(());
    }
    if updating() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, expected)?;
        return Ok(());
    }
    Err(format!(
        "{} is stale: run `make generate` and commit the result",
        path.strip_prefix(repo_root()).unwrap_or(path).display()
    )
    .into())
}
