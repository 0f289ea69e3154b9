//! Every status each soak runtime has stored, from a watch of the soak's
//! own: the story its Events must tell exactly once.
//!
//! Each status write carries `reportSequence`, one more than the status it
//! replaced, and the Events of that step are named from the uid, the
//! replaced status's sequence and the reason (`announcement`). So the
//! statuses in sequence order are the whole story, and a sequence missing
//! from the record (the watch fell behind and listed again) is a gap the
//! checks skip and the summary counts.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::StreamExt;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, ResourceExt};
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus};

/// One runtime's record.
#[derive(Clone, Debug, Default)]
pub struct History {
    pub namespace: String,
    pub name: String,
    /// Stored statuses by `reportSequence`; 0 is "no status yet".
    pub statuses: BTreeMap<i64, Option<TrussiumRuntimeStatus>>,
}

impl History {
    /// Sequences that should be recorded and are not.
    pub fn gaps(&self) -> usize {
        let (Some(first), Some(last)) = (
            self.statuses.keys().next(),
            self.statuses.keys().next_back(),
        ) else {
            return 0;
        };
        (last - first + 1) as usize - self.statuses.len()
    }
}

/// Histories by runtime uid, filled by a watch until dropped.
pub struct Recorder {
    histories: Arc<Mutex<BTreeMap<String, History>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Recorder {
    /// Starts recording every runtime in namespaces whose name starts with
    /// `prefix`.
    pub fn start(admin: &Client, prefix: &str) -> Recorder {
        let histories: Arc<Mutex<BTreeMap<String, History>>> = Arc::default();
        let sink = histories.clone();
        let prefix = prefix.to_string();
        let runtimes: Api<TrussiumRuntime> = Api::all(admin.clone());
        let task = tokio::spawn(async move {
            let mut stream = watcher(runtimes, watcher::Config::default())
                .default_backoff()
                .applied_objects()
                .boxed();
            while let Some(event) = stream.next().await {
                let Ok(rt) = event else { continue };
                let namespace = rt.namespace().unwrap_or_default();
                if !namespace.starts_with(&prefix) {
                    continue;
                }
                let Some(uid) = rt.uid() else { continue };
                // A new runtime may carry an empty status: sequence 0 too.
                let sequence = rt
                    .status
                    .as_ref()
                    .and_then(|s| s.report_sequence)
                    .unwrap_or(0);
                let mut histories = lock(&sink);
                let history = histories.entry(uid).or_insert_with(|| History {
                    namespace,
                    name: rt.name_any(),
                    statuses: BTreeMap::new(),
                });
                history.statuses.insert(sequence, rt.status.clone());
            }
        });
        Recorder { histories, task }
    }

    /// The histories of the runtimes of `namespace`.
    pub fn of_namespace(&self, namespace: &str) -> Vec<(String, History)> {
        lock(&self.histories)
            .iter()
            .filter(|(_, h)| h.namespace == namespace)
            .map(|(uid, h)| (uid.clone(), h.clone()))
            .collect()
    }

    /// Forgets the runtimes of a namespace that is gone.
    pub fn forget_namespace(&self, namespace: &str) {
        lock(&self.histories).retain(|_, h| h.namespace != namespace);
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
