//! Each runtime's own status: what this operator last wrote to it, or found
//! right and left as it was (see [`crate::pure::status::basis`]).
//!
//! Kept for as long as the runtime is, so that a status someone else wrote
//! is told apart from ours, repaired at once (the runtime watch triggers a
//! reconcile when a runtime's status is not its own, see [`Own::trigger`])
//! and never taken for the operator's memory. One status per runtime, about
//! the size of the cached runtime's own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus};

use crate::pure::status::basis::same_as_written;
use crate::shell::controller::lock::lock;

#[derive(Default)]
pub struct Own {
    statuses: Mutex<HashMap<Key, Remembered>>,
    /// What the runtime watch last saw of each runtime's spec: a new one
    /// reconciles.
    generations: Mutex<HashMap<Key, Seen>>,
}

/// What a reconcile reads of a runtime besides its status: its uid, its
/// generation (the spec) and its [`steering`] annotations, which change no
/// generation.
type Seen = (String, Option<i64>, [Option<String>; 3]);

/// The annotations that steer the operator besides the spec: suspend, its
/// reason, restart.
const STEERING: [&str; 3] = [
    trussium_api::suspension::SUSPENDED,
    trussium_api::suspension::SUSPEND_REASON,
    trussium_api::restart::RESTARTED_AT,
];

/// The values of `rt`'s [`STEERING`] annotations, in that order.
pub fn steering(rt: &TrussiumRuntime) -> [Option<&str>; 3] {
    let annotations = rt.metadata.annotations.as_ref();
    STEERING.map(|key| annotations.and_then(|a| a.get(key)).map(String::as_str))
}

fn seen(rt: &TrussiumRuntime) -> Seen {
    (
        rt.metadata.uid.clone().unwrap_or_default(),
        rt.metadata.generation,
        steering(rt).map(|value| value.map(str::to_string)),
    )
}

/// Namespace and name.
type Key = (String, String);

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
        drop(statuses);
        let mut generations = lock(&self.generations);
        if generations.get(&key).map(|(uid, ..)| uid.as_str()) == rt.metadata.uid.as_deref() {
            generations.remove(&key);
        }
    }

    /// Whether a change of `rt` the runtime watch delivers calls for a
    /// reconcile: a generation it has not seen (a new spec, a new runtime),
    /// a steering annotation changed (suspend, restart), or a status that
    /// is not the own one. Not a status that is: our own
    /// writes must not loop. (When our write's answer comes after its watch
    /// event, that one event reconciles, and finds nothing to do.)
    pub fn trigger(&self, rt: &TrussiumRuntime) -> bool {
        let seen = seen(rt);
        let new_spec = lock(&self.generations).insert(key(rt), seen.clone()) != Some(seen);
        new_spec || !self.agrees(rt)
    }

    /// Whether the stored status of `rt` is its own one (no status and no
    /// own one agree too).
    fn agrees(&self, rt: &TrussiumRuntime) -> bool {
        match (rt.status.as_ref(), self.of(rt).as_deref()) {
            (Some(stored), Some(own)) => same_as_written(stored, own),
            (None, None) => true,
            // Nothing of ours to compare with yet: any change may matter.
            (Some(_), None) | (None, Some(_)) => false,
        }
    }
}

fn key(rt: &TrussiumRuntime) -> Key {
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
            crate::pure::lenient::placeholder(Default::default()).unwrap_or_else(|| unreachable!());
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
        // A runtime first seen: reconcile.
        assert!(own.trigger(&rt));
        own.remember(&rt, ours.clone());
        // Our own status written again, an annotation: no trigger.
        assert!(!own.trigger(&runtime("u", 1, Some(ours.clone()))));
        assert!(!own.trigger(&rt));
        // A new spec, once.
        assert!(own.trigger(&runtime("u", 2, Some(ours.clone()))));
        assert!(!own.trigger(&runtime("u", 2, Some(ours.clone()))));
        // Someone else's status: forged image, forged sequence, removed;
        // every time it is seen.
        for forged in [
            status(3, "evil.io/backdoor:latest"),
            status(i64::MAX, "r:a"),
        ] {
            assert!(own.trigger(&runtime("u", 2, Some(forged.clone()))));
            assert!(own.trigger(&runtime("u", 2, Some(forged))));
        }
        assert!(own.trigger(&runtime("u", 2, None)));
        // Without an own status, every status change triggers.
        let other = runtime("v", 1, Some(ours.clone()));
        assert!(own.trigger(&other));
        assert!(own.trigger(&other));
        // Another runtime under the same name has no own status yet.
        assert_eq!(own.of(&other), None);
        // Deleted: forgotten, unless the name now has another runtime.
        own.deleted(&runtime("w", 1, None));
        assert!(own.of(&rt).is_some());
        own.deleted(&rt);
        assert_eq!(own.of(&rt), None);
        own.remember(&rt, ours);
        own.forget("ns", "x");
        assert_eq!(own.of(&rt), None);
    }

    #[test]
    fn a_steering_annotation_triggers_and_any_other_does_not() {
        let own = Own::default();
        let ours = status(3, "r:a");
        let mut rt = runtime("u", 1, Some(ours.clone()));
        assert!(own.trigger(&rt));
        own.remember(&rt, ours);
        let mut annotate = |key: &str, value: Option<&str>| {
            let annotations = rt.metadata.annotations.get_or_insert_default();
            match value {
                Some(v) => annotations.insert(key.to_string(), v.to_string()),
                None => annotations.remove(key),
            };
            own.trigger(&rt)
        };
        assert!(!annotate("team", Some("a")), "someone else's annotation");
        assert!(annotate("runtime.trussium.io/suspended", Some("true")));
        assert!(
            !annotate("runtime.trussium.io/suspended", Some("true")),
            "seen"
        );
        assert!(annotate(
            "runtime.trussium.io/suspend-reason",
            Some("INC-1")
        ));
        assert!(annotate("runtime.trussium.io/suspended", None), "resumed");
        assert!(annotate(
            "runtime.trussium.io/restartedAt",
            Some("2026-12-04T10:00:00Z")
        ));
        assert!(!annotate("team", Some("b")));
    }
}
