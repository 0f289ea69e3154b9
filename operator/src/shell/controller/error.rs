//! Errors of the reconciler, and short messages for status and Events.

use thiserror::Error;

use crate::pure::events::Reason;

#[derive(Debug, Error)]
pub enum Error {
    #[error("writing status: {0}")]
    WriteStatus(#[source] kube::Error),
    #[error("reading the runtime: {0}")]
    ReadRuntime(#[source] kube::Error),
    #[error("applying: no answer from the API server: {0}")]
    Unanswered(#[source] kube::Error),
    #[error("applying: {0} (retrying before reporting it)")]
    FailedOnce(String),
    #[error("publishing Event {reason}: {source}")]
    Publish {
        reason: Reason,
        #[source]
        source: kube::Error,
    },
    #[error("runtime has no namespace")]
    NoNamespace,
    #[error("the reconcile took longer than its deadline ({0:?}); abandoned, to be retried")]
    Deadline(std::time::Duration),
    #[error("the watches stopped: shutting down")]
    Stopping,
}

impl Error {
    /// Whether the API server refused the request because the runtime's
    /// namespace is being deleted (see [`super::terminating`]).
    pub fn refused_for_namespace_deletion(&self) -> bool {
        match self {
            Error::WriteStatus(source)
            | Error::ReadRuntime(source)
            | Error::Publish { source, .. } => {
                super::terminating::refused_for_namespace_deletion(source)
            }
            Error::Unanswered(_)
            | Error::FailedOnce(_)
            | Error::NoNamespace
            | Error::Deadline(_)
            | Error::Stopping => false,
        }
    }
}

/// A one-line, human message for a Kubernetes client error: the API server's
/// own message when there is one (it names the object and the problem).
pub fn one_line(err: &kube::Error) -> String {
    match err {
        kube::Error::Api(status) if !status.message.is_empty() => {
            format!("{} ({})", status.message, status.code)
        }
        other => other.to_string(),
    }
}
