//! Each runtime's own status: what this operator last wrote to it, or found
//! right and left as it was (see [`crate::status::basis`]).
//!
//! Kept for as long as the runtime is, so that a status someone else wrote
//! is told apart from ours, repaired at once (the runtime watch triggers a
//! reconcile when a runtime's status is not its own, see [`Own::trigger`])
//! and never taken for the operator's memory. One status per runtime, about
//! the size of the cached runtime's own.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus};

use crate::controller::lock;
use crate::status::basis::same_as_written;

#[derive(Default)]
pub struct Own {
    statuses: Mutex<HashMap<(String, String), Remembered>>,
}

struct Remembered {
    uid: String,
    status: Arc<TrussiumRuntimeStatus>,
}

impl Own {
    /// The own status of `rt` (the same uid: not of an earlier runtime of
    /// that name).
    pub fn of(&self, rt: &TrussiumRuntime) -> Option<Arc<TrussiumRuntimeStatus>> {
        let statuses = lock(&self.statuses);
        let own = statuses.get(&key(rt))?;
        (Some(own.uid.as_str()) == rt.metadata.uid.as_deref()).then(|| own.status.clone())
    }

    /// Remembers `status` as the own status of `rt`.
    pub fn remember(&self, rt: &TrussiumRuntime, status: TrussiumRuntimeStatus) {
        let remembered = Remembered {
            uid: rt.metadata.uid.clone().unwrap_or_default(),
            status: Arc::new(status),
        };
        lock(&self.statuses).insert(key(rt), remembered);
    }

    /// Forgets the runtime `namespace/name` (it is gone).
    pub fn forget(&self, namespace: &str, name: &str) {
        lock(&self.statuses).remove(&(namespace.to_string(), name.to_string()));
    }

    /// Forgets `rt`, deleted (not a runtime created again under its name).
    pub fn deleted(&self, rt: &TrussiumRuntime) {
        let mut statuses = lock(&self.statuses);
        let key = key(rt);
        if statuses.get(&key).map(|own| own.uid.as_str()) == rt.metadata.uid.as_deref() {
            statuses.remove(&key);
        }
    }

    /// What the runtime watch compares to decide whether a change of `rt`
    /// calls for a reconcile: its generation (a new spec), and its status
    /// unless it is the own one (our own writes must not loop).
    pub fn trigger(&self, rt: &TrussiumRuntime) -> Option<u64> {
        let mut hash = DefaultHasher::new();
        rt.metadata.generation.hash(&mut hash);
        let own = self.of(rt);
        let stored = rt.status.as_ref();
        let agrees = match (stored, own.as_deref()) {
            (Some(stored), Some(own)) => same_as_written(stored, own),
            (None, None) => true,
            // Nothing of ours to compare with yet: any change may matter.
            (Some(_), None) | (None, Some(_)) => false,
        };
        if !agrees {
            serde_json::to_string(&rt.status)
                .unwrap_or_default()
                .hash(&mut hash);
        }
        Some(hash.finish())
    }
}

fn key(rt: &TrussiumRuntime) -> (String, String) {
    (
        rt.metadata.namespace.clone().unwrap_or_default(),
        rt.metadata.name.clone().unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(
        uid: &str,
        generation: i64,
        status: Option<TrussiumRuntimeStatus>,
    ) -> TrussiumRuntime {
        let mut rt =
            crate::lenient::placeholder(Default::default()).unwrap_or_else(|| unreachable!());
        rt.metadata.name = Some("x".into());
        rt.metadata.namespace = Some("ns".into());
        rt.metadata.uid = Some(uid.into());
        rt.metadata.generation = Some(generation);
        rt.status = status;
        rt
    }

    fn status(sequence: i64, image: &str) -> TrussiumRuntimeStatus {
        TrussiumRuntimeStatus {
            report_sequence: Some(sequence),
            desired_image: Some(image.into()),
            ..Default::default()
        }
    }

    #[test]
    fn only_a_new_generation_or_a_status_not_our_own_triggers() {
        let own = Own::default();
        let ours = status(3, "r:a");
        let rt = runtime("u", 1, Some(ours.clone()));
        own.remember(&rt, ours.clone());
        let quiet = own.trigger(&rt);
        // Our own status written again: no trigger.
        assert_eq!(own.trigger(&runtime("u", 1, Some(ours.clone()))), quiet);
        // A new spec.
        assert_ne!(own.trigger(&runtime("u", 2, Some(ours.clone()))), quiet);
        // Someone else's status: forged image, forged sequence, removed.
        let forged = [
            status(3, "evil.io/backdoor:latest"),
            status(i64::MAX, "r:a"),
        ];
        let mut seen = vec![quiet];
        for forged in forged {
            let t = own.trigger(&runtime("u", 1, Some(forged)));
            assert!(!seen.contains(&t));
            seen.push(t);
        }
        assert!(!seen.contains(&own.trigger(&runtime("u", 1, None))));
        // Without an own status, every status change triggers.
        let unknown = runtime("v", 1, Some(ours.clone()));
        assert_ne!(
            own.trigger(&unknown),
            own.trigger(&runtime("v", 1, Some(status(4, "r:a"))))
        );
        // Another runtime under the same name has no own status yet.
        assert_eq!(own.of(&runtime("v", 1, None)), None);
        // Deleted: forgotten, unless the name now has another runtime.
        own.deleted(&runtime("v", 1, None));
        assert!(own.of(&rt).is_some());
        own.deleted(&rt);
        assert_eq!(own.of(&rt), None);
        own.remember(&rt, ours);
        own.forget("ns", "x");
        assert_eq!(own.of(&rt), None);
    }
}
