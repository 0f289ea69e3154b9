//! The operator's view of the cluster: reflector stores fed by its watches,
//! plus what the operator itself has just written, until the watches catch up.
//!
//! Reconciles decide from here and send no read of their own: a reconcile
//! that finds nothing to change sends no request at all.
//!
//! One file per job: [`watches`] declares each watched kind once (which of
//! its objects are watched, the cache it fills, the reconciles it triggers);
//! [`overlay`] shows our own writes until a watch catches up; [`refusal`]
//! notices a watch the API server refuses; [`trust`] tells whether a cache
//! may miss someone else's recent write; [`trim`] decides what a cache
//! keeps of each object; [`lists`] streams each watch's full lists where
//! the API server can; [`relist`] tells what a full list changed once the
//! store holds it. Every cache counts towards [`Readiness`] from the
//! moment it is made.

mod lists;
mod overlay;
mod own;
mod readable;
mod refusal;
mod relist;
mod trim;
mod trust;
mod watches;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use futures::future::{BoxFuture, Shared};
use futures::stream::BoxStream;
use futures::{FutureExt, Stream, StreamExt, TryStreamExt};
use kube::Resource;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use serde::de::DeserializeOwned;

use overlay::{Overlay, version};
pub use own::{Own, steering};
pub use readable::Unreadable;
use refusal::{Refusal, Refusals};
pub use trim::Kept;
pub use trust::Trust;
pub use watches::{Caches, watch};

/// A watch's event stream, boxed: the streamed and the paged watch, and the
/// watch after its store has taken it in, are different types.
type Watch<K> = BoxStream<'static, Result<watcher::Event<K>, watcher::Error>>;

/// One kind's cache: the store, our writes it does not show yet, whether it
/// holds a first full list, whether its watch is refused, and whether it can
/// be taken at its word.
pub struct Cached<K: Resource<DynamicType = ()> + Clone + 'static> {
    store: Store<K>,
    overlay: Overlay<K>,
    /// Whether the store has taken in a first full list.
    listed: Arc<AtomicBool>,
    refusal: Arc<Refusal>,
    trust: Arc<Trust>,
}

impl<K> Cached<K>
where
    K: Resource<DynamicType = ()> + Clone + Kept + DeserializeOwned + std::fmt::Debug + Send + Sync,
{
    /// Starts reflecting `watch` into a new store, which joins `readiness`.
    /// The returned stream must be polled (by the controller) for the store
    /// to fill.
    fn reflect(
        watch: impl Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send + 'static,
        readiness: &mut Readiness,
    ) -> (Cached<K>, Watch<K>, Refusals) {
        let (store, writer) = reflector::store();
        let seen = Arc::new(AtomicU64::new(0));
        let listed = Arc::new(AtomicBool::new(false));
        let (refusal, refusals) = Refusal::new();
        let trust = Arc::new(Trust::new(seen.clone()));
        let stream = track_versions(
            watch.modify(Kept::keep_only_what_is_read).reflect(writer),
            seen.clone(),
            listed.clone(),
            refusal.clone(),
            trust.clone(),
        );
        let stream = relist::changes_after_lists(stream, store.clone()).boxed();
        readiness.join(store.clone(), listed.clone());
        let cached = Cached {
            store,
            overlay: Overlay::new(seen, trust.clone()),
            listed,
            refusal,
            trust,
        };
        (cached, stream, refusals)
    }

    /// The object as the operator last knew it: the cached one, or our own
    /// write when the cache does not show it yet.
    pub fn get(&self, namespace: &str, name: &str) -> Option<Arc<K>> {
        let key = ObjectRef::new(name).within(namespace);
        self.overlay.over(&key, self.store.get(&key))
    }

    /// Remembers `object` as the API server returned it (from our write, or
    /// a fresh read).
    pub fn remember(&self, mut object: K) -> Arc<K> {
        object.keep_only_what_is_read();
        self.overlay.remember(Arc::new(object))
    }

    /// Forgets our write of `namespace/name` (after deleting it).
    pub fn forget(&self, namespace: &str, name: &str) {
        self.overlay.forget(&ObjectRef::new(name).within(namespace));
    }

    /// Whether the store has taken in its first full list.
    pub fn listed(&self) -> bool {
        self.listed.load(Ordering::Acquire)
    }

    /// Why the API server refuses this kind's watch, if it does now.
    pub fn refused(&self) -> Option<String> {
        self.refusal.message()
    }

    /// Records that a fresh read of this kind was allowed: the permission is
    /// back, and the watch, retrying, resumes where it stopped.
    pub fn read_allowed(&self) {
        self.refusal.accepted();
    }

    /// Whether the cache can be taken at its word (see [`Trust`]).
    pub fn trust(&self) -> &Trust {
        &self.trust
    }

    /// The same, to keep (the task that catches the cache up).
    pub fn trust_handle(&self) -> Arc<Trust> {
        self.trust.clone()
    }

    /// The store itself (what the controller looks triggers up in).
    pub fn store(&self) -> Store<K> {
        self.store.clone()
    }
}

/// Records in `seen` the highest resourceVersion the store reflects: Apply
/// and Delete events once the store has them, a (re-)list when it is done.
/// Records in `refusal` whether the API server refuses the watch; any error
/// makes `trust` doubt the cache (changes may be missing until the watch
/// delivers again).
fn track_versions<K: Resource>(
    stream: impl Stream<Item = Result<watcher::Event<K>, watcher::Error>>,
    seen: Arc<AtomicU64>,
    listed: Arc<AtomicBool>,
    refusal: Arc<Refusal>,
    trust: Arc<Trust>,
) -> impl Stream<Item = Result<watcher::Event<K>, watcher::Error>> {
    let mut last_listed = 0;
    let accepted = refusal.clone();
    stream
        .inspect_err(move |err| {
            refusal.saw_error(err);
            trust.doubt();
        })
        .inspect_ok(move |event| {
            accepted.accepted();
            track_version(event, &seen, &listed, &mut last_listed);
        })
}

fn track_version<K: Resource>(
    event: &watcher::Event<K>,
    seen: &AtomicU64,
    listed: &AtomicBool,
    last_listed: &mut u64,
) {
    match event {
        watcher::Event::Apply(object) | watcher::Event::Delete(object) => {
            seen.fetch_max(version(object).unwrap_or(0), Ordering::AcqRel);
        }
        watcher::Event::Init => *last_listed = 0,
        watcher::Event::InitApply(object) => {
            *last_listed = version(object).unwrap_or(0).max(*last_listed);
        }
        watcher::Event::InitDone => {
            seen.fetch_max(*last_listed, Ordering::AcqRel);
            listed.store(true, Ordering::Release);
        }
    }
}

/// Whether every store holds its first full list: before that, an empty
/// store would read as "nothing exists" and every object would be applied
/// again. Each store joins as its cache is made ([`Cached::reflect`]), so
/// none can be left out.
#[derive(Default)]
struct Readiness {
    listed: Vec<Arc<AtomicBool>>,
    first_lists: Vec<BoxFuture<'static, bool>>,
}

impl Readiness {
    fn join<K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static>(
        &mut self,
        store: Store<K>,
        listed: Arc<AtomicBool>,
    ) {
        self.listed.push(listed);
        self.first_lists
            .push(async move { store.wait_until_ready().await.is_ok() }.boxed());
    }

    /// Every store that joined, from now on.
    fn synced(self) -> Synced {
        let first_lists = self.first_lists;
        let all = async move {
            // In the order the stores joined; `false` as soon as one watch
            // stopped first (the controller is shutting down).
            for first_list in first_lists {
                if !first_list.await {
                    return false;
                }
            }
            true
        };
        Synced {
            listed: self.listed,
            all: all.boxed().shared(),
        }
    }
}

/// Readiness of a complete set of stores.
struct Synced {
    listed: Vec<Arc<AtomicBool>>,
    /// Resolves once every store holds its first full list. Shared: a
    /// store's own readiness future wakes only its last poller, and many
    /// reconciles wait at start-up.
    all: Shared<BoxFuture<'static, bool>>,
}

impl Synced {
    async fn wait(&self) -> bool {
        self.all.clone().await
    }

    fn now(&self) -> bool {
        self.listed.iter().all(|l| l.load(Ordering::Acquire))
    }
}
