//! Watches the API server refuses (403: our permission was revoked).
//!
//! An open watch outlives a revoked permission; the refusal shows when the
//! watch is opened again (every `--watch-timeout-seconds`). Until then the
//! store still answers, from what it had: it may be stale, and the operator
//! may no longer be allowed to know.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use futures::channel::mpsc;
use futures::stream::BoxStream;
use kube::runtime::watcher;

use crate::shell::controller::lock::lock;

/// One item each time a watch turns from accepted to refused.
pub type Refusals = BoxStream<'static, ()>;

/// Whether the API server refuses one kind's watch right now.
pub struct Refusal {
    /// Why, as the API server said it; `None` while the watch is accepted.
    message: Mutex<Option<String>>,
    /// One item each time the watch turns from accepted to refused.
    began: mpsc::UnboundedSender<()>,
}

impl Refusal {
    /// An accepted watch, and the stream that tells when it is refused.
    pub(super) fn new() -> (Arc<Refusal>, Refusals) {
        let (began, refusals) = mpsc::unbounded();
        let refusal = Refusal {
            message: Mutex::new(None),
            began,
        };
        (Arc::new(refusal), refusals.boxed())
    }

    /// Why the API server refuses the watch, if it does now.
    pub(super) fn message(&self) -> Option<String> {
        lock(&self.message).clone()
    }

    /// Records a watch error: a refusal, or nothing (the API server is away).
    pub(super) fn saw_error(&self, err: &watcher::Error) {
        if let Some(message) = refused(err) {
            let mut current = lock(&self.message);
            if current.is_none() {
                // Nobody listening (the controller stopped) is no error.
                let _ = self.began.unbounded_send(());
            }
            *current = Some(message);
        }
    }

    /// Records that the watch (or a fresh read of its kind) was allowed.
    pub(super) fn accepted(&self) {
        *lock(&self.message) = None;
    }
}

/// Whether `err` says the API server refused us (rather than being away).
fn refused(err: &watcher::Error) -> Option<String> {
    let forbidden = match err {
        watcher::Error::InitialListFailed(kube::Error::Api(status))
        | watcher::Error::WatchStartFailed(kube::Error::Api(status))
        | watcher::Error::WatchFailed(kube::Error::Api(status))
        | watcher::Error::WatchError(status) => status.is_forbidden(),
        _ => false,
    };
    forbidden.then(|| err.to_string())
}
