//! The errors of the test support and of the tests: [`Error`] for what the
//! support itself reports, [`BoxError`] and [`TestResult`] for everything a
//! test body propagates with `?`.

use std::path::PathBuf;
use std::time::Duration;

/// Any error a test propagates: kube, I/O, serde, [`Error`], a message.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What a test (or a step of one) returns.
pub type TestResult = Result<(), BoxError>;

/// `Err` with `message` unless `ok`.
pub fn ensure(ok: bool, message: impl Into<String>) -> TestResult {
    if ok {
        Ok(())
    } else {
        Err(message.into().into())
    }
}

/// Everything that can go wrong while talking to the local test cluster.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The admin kubeconfig is missing or unusable: the cluster is not up.
    #[error(
        "cannot use the local cluster's kubeconfig {path}: {reason}; run `make cluster-up` (or `make test`)"
    )]
    NoCluster { path: PathBuf, reason: String },

    #[error("kubernetes API: {0}")]
    Kube(#[from] kube::Error),

    #[error("kubeconfig: {0}")]
    Kubeconfig(#[from] kube::config::KubeconfigError),

    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("audit log line at byte {offset} is not an audit event: {source}")]
    AuditLine {
        offset: u64,
        source: serde_json::Error,
    },

    #[error("audit log {path} shrank below the mark (rotated or recreated)")]
    AuditRotated { path: PathBuf },

    #[error("TokenRequest for ServiceAccount {namespace}/{name} returned no token")]
    NoToken { namespace: String, name: String },

    #[error("timed out after {timeout:?} waiting for {what}{}", last_error.as_ref().map(|e| format!(" (last error: {e})")).unwrap_or_default())]
    Timeout {
        what: String,
        timeout: Duration,
        last_error: Option<String>,
    },

    #[error("json: {0}")]
    Json(#[from] serde_json::Error),

    #[error("yaml: {0}")]
    Yaml(#[from] serde_yaml::Error),

    /// A test's own check inside a wait (any boxed error).
    #[error("{0}")]
    Check(String),
}

impl From<BoxError> for Error {
    fn from(e: BoxError) -> Self {
        Error::Check(e.to_string())
    }
}

impl From<String> for Error {
    fn from(message: String) -> Self {
        Error::Check(message)
    }
}

impl Error {
    /// What `.map_err` needs for an I/O error about `path`.
    pub fn io_at(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    /// An I/O error about `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
