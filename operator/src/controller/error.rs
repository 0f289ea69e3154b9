//! Errors of the reconciler, and short messages for status and Events.

use thiserror::Error;

use crate::events::Reason;

#[derive(Debug, Error)]
pub enum Error {
    #[error("writing status: {0}")]
    WriteStatus(#[source] kube::Error),
    #[error("reading the runtime: {0}")]
    ReadRuntime(#[source] kube::Error),
    #[error("applying: no answer from the API server: {0}")]
    Unanswered(#[source] kube::Error),
    #[error("applying: refused (retrying before reporting it): {0}")]
    RefusedOnce(String),
    #[error("publishing Event {reason}: {source}")]
    Publish {
        reason: Reason,
        #[source]
        source: kube::Error,
    },
    #[error("runtime has no namespace")]
    NoNamespace,
    #[error("the watches stopped: shutting down")]
    Stopping,
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
