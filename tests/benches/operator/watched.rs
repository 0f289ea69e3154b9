//! A watch of one kind in the bench namespace, kept in memory: waiting and
//! timing read it instead of listing N objects four times a second, which
//! would load the API server the benchmark measures.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use kube::runtime::reflector::{self, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio::time::Instant;

const FIRST_LIST: Duration = Duration::from_secs(60);

pub struct Watched<K: Resource<DynamicType = ()> + Clone + 'static> {
    store: Store<K>,
    /// When each object (by name) first passed `done`.
    firsts: Arc<Mutex<HashMap<String, Instant>>>,
    task: tokio::task::JoinHandle<()>,
}

impl<K> Watched<K>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
{
    /// Starts watching; `done` says when an object counts as finished (its
    /// first such moment is recorded).
    /// Fails when the first list does not finish in a minute (the resource
    /// is not served, or the cluster is gone) rather than waiting forever.
    pub async fn start(api: Api<K>, done: fn(&K) -> bool) -> Result<Self, String> {
        let (store, writer) = reflector::store();
        let firsts = Arc::new(Mutex::new(HashMap::new()));
        let seen = firsts.clone();
        let stream = watcher(api, watcher::Config::default())
            .default_backoff()
            .reflect(writer)
            .applied_objects();
        let task = tokio::spawn(async move {
            let mut stream = std::pin::pin!(stream);
            while let Some(event) = stream.next().await {
                let Ok(object) = event else { continue };
                if done(&object)
                    && let Ok(mut firsts) = seen.lock()
                {
                    firsts.entry(object.name_any()).or_insert_with(Instant::now);
                }
            }
        });
        let watched = Watched {
            store,
            firsts,
            task,
        };
        match tokio::time::timeout(FIRST_LIST, watched.store.wait_until_ready()).await {
            Ok(Ok(())) => Ok(watched),
            _ => Err(format!(
                "watching {}: no first list within {} s",
                K::plural(&()),
                FIRST_LIST.as_secs()
            )),
        }
    }

    /// How many objects `check` accepts right now.
    pub fn count(&self, check: impl Fn(&K) -> bool) -> usize {
        self.store.state().iter().filter(|o| check(o)).count()
    }

    /// Waits until `check` accepts `n` objects.
    pub async fn wait_for(
        &self,
        what: &str,
        n: usize,
        timeout: Duration,
        check: impl Fn(&K) -> bool,
    ) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            let seen = self.count(&check);
            if seen >= n {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("{what}: {seen} of {n} after {timeout:?}"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// When each object first counted as done.
    pub fn firsts(&self) -> HashMap<String, Instant> {
        self.firsts.lock().map(|f| f.clone()).unwrap_or_default()
    }
}

impl<K: Resource<DynamicType = ()> + Clone + 'static> Drop for Watched<K> {
    fn drop(&mut self) {
        self.task.abort();
    }
}
