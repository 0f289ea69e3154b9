//! The operator's own writes, shown over a cache until its watch catches up.
//!
//! A watch lags the operator's own writes by a moment. Deciding from a cache
//! that does not yet show our last write would apply the same object twice,
//! and, for the runtime's status, announce the same transition twice. So
//! every object the operator writes is remembered (as the API server returned
//! it) until the watch of its kind has delivered an event at least as recent
//! (resourceVersions are etcd revisions: a watch delivers them in increasing
//! order, and a write's response carries the revision it created).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kube::Resource;
use kube::runtime::reflector::ObjectRef;

use super::trust::Trust;
use crate::shell::controller::lock::lock;

/// How long a remembered write may stand in for a cache that has not caught
/// up. Far longer than any watch lag; it bounds the case where the watch
/// re-listed and the object was deleted meanwhile (then no event of ours ever
/// comes), and a watch that has not shown our write by then is stalled: the
/// cache is doubted (see [`Trust`]).
const LAG_LIMIT: Duration = Duration::from_secs(60);

/// Our writes of one kind that its watch has not shown yet.
pub struct Overlay<K: Resource<DynamicType = ()> + Clone + 'static> {
    /// The highest resourceVersion the watch has delivered to the store.
    seen: Arc<AtomicU64>,
    written: Mutex<Written<K>>,
    trust: Arc<Trust>,
}

struct Written<K: Resource<DynamicType = ()> + Clone + 'static> {
    objects: HashMap<ObjectRef<K>, Remembered<K>>,
    swept: Instant,
}

struct Remembered<K> {
    object: Arc<K>,
    version: u64,
    at: Instant,
}

impl<K: Resource<DynamicType = ()> + Clone + 'static> Overlay<K> {
    /// An overlay over a store whose watch records in `seen` how far it got
    /// (and tells `trust` when it stalls).
    pub(super) fn new(seen: Arc<AtomicU64>, trust: Arc<Trust>) -> Self {
        Overlay {
            seen,
            written: Mutex::new(Written {
                objects: HashMap::new(),
                swept: Instant::now(),
            }),
            trust,
        }
    }

    /// What the operator knows of `key`: `cached` (the store's copy), or our
    /// own write when the store does not show it yet.
    pub(super) fn over(&self, key: &ObjectRef<K>, cached: Option<Arc<K>>) -> Option<Arc<K>> {
        let mut written = lock(&self.written);
        if let Some(ours) = written.objects.get(key) {
            let seen = self.seen.load(Ordering::Acquire);
            let cached_version = cached.as_deref().and_then(version);
            if cache_lags(ours.version, seen, cached_version) {
                if ours.at.elapsed() < LAG_LIMIT {
                    return Some(ours.object.clone());
                }
                self.trust.doubt();
            }
            written.objects.remove(key);
        }
        cached
    }

    /// Remembers `object` as the API server returned it.
    pub(super) fn remember(&self, object: Arc<K>) -> Arc<K> {
        let Some(version) = version(object.as_ref()) else {
            return object;
        };
        let mut written = lock(&self.written);
        // Entries of objects nobody asks for again (their runtime is gone)
        // would stay: sweep the stale ones now and then.
        if written.swept.elapsed() > LAG_LIMIT {
            written.objects.retain(|_, w| w.at.elapsed() < LAG_LIMIT);
            written.swept = Instant::now();
        }
        written.objects.insert(
            ObjectRef::from_obj(&object),
            Remembered {
                object: object.clone(),
                version,
                at: Instant::now(),
            },
        );
        object
    }

    /// Forgets our write of `key` (after deleting it).
    pub(super) fn forget(&self, key: &ObjectRef<K>) {
        lock(&self.written).objects.remove(key);
    }
}

/// Whether the cache does not show our write of `written` yet: its watch has
/// not got that far, and the cached object (if any) is older.
fn cache_lags(written: u64, seen: u64, cached: Option<u64>) -> bool {
    seen < written && cached.is_none_or(|cached| cached < written)
}

/// The resourceVersion as a number; `None` if the server sent something else
/// (then nothing is remembered and the cache alone decides).
pub(super) fn version<K: Resource>(object: &K) -> Option<u64> {
    object.meta().resource_version.as_deref()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::cache_lags;

    #[test]
    fn our_write_stands_in_until_the_watch_has_passed_it() {
        // The watch has not reached our write, the store has an older copy.
        assert!(cache_lags(10, 9, Some(5)));
        // ... or none yet (we just created it).
        assert!(cache_lags(10, 9, None));
        // The store shows our write, or something newer.
        assert!(!cache_lags(10, 10, Some(10)));
        assert!(!cache_lags(10, 9, Some(12)));
        // The watch went past our write and the object is gone: someone
        // deleted it, and the store's absence is the truth.
        assert!(!cache_lags(10, 11, None));
    }
}
