//! What a full list changed, told once the store holds it.
//!
//! A store takes in a list whole: the objects of a (re-)list wait in a
//! buffer until its end, and only then replace what the store held. A
//! reconcile triggered by an object of the list while it streams in reads
//! the store from before the list, finds nothing new, and nothing triggers
//! it again until the resync. That is every relist: after an API server
//! restart, a CRD update or a watch that fell too far behind (410), the
//! changes missed while the watch was down arrive as list items. An object
//! deleted meanwhile is not in the list at all: nothing tells its owner.
//!
//! So a list's items trigger nothing as they arrive. At its end, once the
//! store has swapped, the watch tells what differs from the store before
//! the list: every object new or changed (by resourceVersion) as applied,
//! every object gone as deleted. An unchanged object triggers nothing: a
//! relist of ten thousand objects that missed one change is one reconcile.

use std::collections::HashMap;
use std::sync::Arc;

use futures::{Stream, StreamExt};
use kube::Resource;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher::{self, Event};

/// `stream`, already taken in by `store`, with each list's items replaced
/// by its changes to the store, told after the list's end.
pub fn changes_after_lists<K>(
    stream: impl Stream<Item = Result<Event<K>, watcher::Error>> + Send + 'static,
    store: Store<K>,
) -> impl Stream<Item = Result<Event<K>, watcher::Error>> + Send + 'static
where
    K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
{
    let mut before: Option<Vec<Arc<K>>> = None;
    stream.flat_map(move |item| {
        type Told<K> = Box<dyn Iterator<Item = Result<Event<K>, watcher::Error>> + Send>;
        let told: Told<K> = match item {
            // The store still holds what it had before this list.
            Ok(Event::Init) => {
                before = Some(store.state());
                Box::new(std::iter::empty())
            }
            Ok(Event::InitApply(_)) => Box::new(std::iter::empty()),
            Ok(Event::InitDone) => {
                let changes = changed(&before.take().unwrap_or_default(), &store.state());
                // Each object copied only as the controller takes it: a
                // first list of thousands is not held twice at once.
                let told = changes.into_iter().map(|change| {
                    Ok(match change {
                        Change::Applied(object) => Event::Apply(object.as_ref().clone()),
                        Change::Deleted(object) => Event::Delete(object.as_ref().clone()),
                    })
                });
                Box::new(std::iter::once(Ok(Event::InitDone)).chain(told))
            }
            other => Box::new(std::iter::once(other)),
        };
        futures::stream::iter(told)
    })
}

enum Change<K> {
    Applied(Arc<K>),
    Deleted(Arc<K>),
}

/// What differs from `before` in `after`: objects new or with another
/// resourceVersion as applied, objects no longer there as deleted.
fn changed<K>(before: &[Arc<K>], after: &[Arc<K>]) -> Vec<Change<K>>
where
    K: Resource<DynamicType = ()> + Clone,
{
    let versions: HashMap<ObjectRef<K>, Option<&str>> = before
        .iter()
        .map(|o| {
            (
                ObjectRef::from_obj(o.as_ref()),
                resource_version(o.as_ref()),
            )
        })
        .collect();
    let mut remaining = versions.clone();
    let mut changes = Vec::new();
    for object in after {
        let key = ObjectRef::from_obj(object.as_ref());
        remaining.remove(&key);
        match versions.get(&key) {
            Some(version) if *version == resource_version(object.as_ref()) => {}
            _ => changes.push(Change::Applied(object.clone())),
        }
    }
    let gone = before
        .iter()
        .filter(|o| remaining.contains_key(&ObjectRef::from_obj(o.as_ref())))
        .map(|o| Change::Deleted(o.clone()));
    changes.extend(gone);
    changes
}

fn resource_version<K: Resource>(object: &K) -> Option<&str> {
    object.meta().resource_version.as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;
    use kube::runtime::WatchStreamExt;
    use kube::runtime::reflector;

    fn config_map(name: &str, version: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("ns".into()),
                resource_version: Some(version.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    /// What each told event is, with the store's version of its object at
    /// the moment it is told (`-` when the store does not hold it).
    fn told(events: Vec<Event<ConfigMap>>) -> Vec<String> {
        told_with_errors(events.into_iter().map(Ok).collect())
    }

    /// [`told`] of a watch that also fails.
    fn told_with_errors(items: Vec<Result<Event<ConfigMap>, watcher::Error>>) -> Vec<String> {
        let (store, writer) = reflector::store();
        let upstream = futures::stream::iter(items);
        let stream = changes_after_lists(upstream.reflect(writer), store.clone());
        // Described as each is told, not after the stream's end.
        let told: Vec<String> =
            futures::executor::block_on(stream.map(|event| describe(&event, &store)).collect());
        in_order(told)
    }

    /// The changes of each list sorted (a store tells its objects in no
    /// particular order).
    fn in_order(told: Vec<String>) -> Vec<String> {
        let mut lists: Vec<Vec<String>> = Vec::new();
        for line in told {
            match lists.last_mut() {
                Some(list) if line != "init done" => list.push(line),
                _ => lists.push(vec![line]),
            }
        }
        for list in &mut lists {
            list[1..].sort();
        }
        lists.concat()
    }

    fn describe(
        event: &Result<Event<ConfigMap>, watcher::Error>,
        store: &Store<ConfigMap>,
    ) -> String {
        let cached = |o: &ConfigMap| {
            store
                .get(&ObjectRef::from_obj(o))
                .and_then(|c| c.metadata.resource_version.clone())
                .unwrap_or_else(|| "-".into())
        };
        match event {
            Ok(Event::Apply(o)) => format!(
                "apply {} (store {})",
                o.metadata.name.as_deref().unwrap_or(""),
                cached(o)
            ),
            Ok(Event::Delete(o)) => format!(
                "delete {} (store {})",
                o.metadata.name.as_deref().unwrap_or(""),
                cached(o)
            ),
            Ok(Event::Init) => "init".into(),
            Ok(Event::InitApply(_)) => "init apply".into(),
            Ok(Event::InitDone) => "init done".into(),
            Err(e) => format!("error {e}"),
        }
    }

    #[test]
    fn a_first_list_tells_every_object_once_the_store_holds_it() {
        let told = told(vec![
            Event::Init,
            Event::InitApply(config_map("a", "1")),
            Event::InitApply(config_map("b", "2")),
            Event::InitDone,
        ]);
        assert_eq!(
            told,
            ["init done", "apply a (store 1)", "apply b (store 2)"]
        );
    }

    #[test]
    fn a_relist_tells_what_changed_after_the_store_swapped() {
        let told = told(vec![
            Event::Init,
            Event::InitApply(config_map("same", "1")),
            Event::InitApply(config_map("changed", "2")),
            Event::InitApply(config_map("deleted", "3")),
            Event::InitDone,
            // The watch falls behind (410) and lists again.
            Event::Init,
            Event::InitApply(config_map("same", "1")),
            Event::InitApply(config_map("changed", "7")),
            Event::InitApply(config_map("new", "8")),
            Event::InitDone,
        ]);
        assert_eq!(
            told,
            [
                "init done",
                "apply changed (store 2)",
                "apply deleted (store 3)",
                "apply same (store 1)",
                // Told only now, when the store has the relist.
                "init done",
                "apply changed (store 7)",
                "apply new (store 8)",
                "delete deleted (store -)",
            ]
        );
    }

    #[test]
    fn changes_while_watching_pass_as_they_come() {
        let told = told(vec![
            Event::Init,
            Event::InitDone,
            Event::Apply(config_map("a", "4")),
            Event::Delete(config_map("a", "5")),
        ]);
        assert_eq!(
            told,
            ["init done", "apply a (store 4)", "delete a (store -)"]
        );
    }

    #[test]
    fn a_list_broken_off_and_begun_again_is_compared_with_the_store_before_both() {
        let told = told_with_errors(vec![
            Ok(Event::Init),
            Ok(Event::InitApply(config_map("a", "1"))),
            Ok(Event::InitDone),
            Ok(Event::Init),
            Ok(Event::InitApply(config_map("a", "2"))),
            Err(watcher::Error::NoResourceVersion),
            Ok(Event::Init),
            Ok(Event::InitApply(config_map("a", "3"))),
            Ok(Event::InitDone),
        ]);
        assert_eq!(
            told,
            [
                "init done",
                "apply a (store 1)",
                format!("error {}", watcher::Error::NoResourceVersion).as_str(),
                "init done",
                "apply a (store 3)",
            ]
        );
    }

    #[test]
    fn an_unchanged_relist_tells_nothing() {
        let list = || {
            vec![
                Event::Init,
                Event::InitApply(config_map("a", "1")),
                Event::InitApply(config_map("b", "2")),
                Event::InitDone,
            ]
        };
        let told = told([list(), list()].concat());
        assert_eq!(
            told,
            [
                "init done",
                "apply a (store 1)",
                "apply b (store 2)",
                "init done"
            ]
        );
    }
}
