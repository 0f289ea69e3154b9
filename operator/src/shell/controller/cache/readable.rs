//! The runtime watch, read leniently (see [`crate::pure::lenient`]): a status the
//! operator's types cannot hold neither fails the watch nor hides the
//! runtime. Which runtimes could not be read, and why, is kept here: said
//! once per cause with the runtime's name, and asked by the report, which
//! then rewrites the status even when what it observes has not changed.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::{Stream, StreamExt};
use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::runtime::watcher;
use serde::{Deserialize, Deserializer};
use trussium_api::TrussiumRuntime;

use super::Own;
use crate::pure::lenient::{Read, placeholder, read};
use crate::shell::controller::lock::lock;

/// A runtime as the watch delivers it: its metadata, and the runtime read
/// leniently or why it could not be.
#[derive(Clone, Debug)]
pub struct Lenient {
    metadata: ObjectMeta,
    read: Result<Box<Read>, String>,
}

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        // Metadata is the API server's: a name, a namespace, its own times.
        let metadata = value
            .get("metadata")
            .map(|m| ObjectMeta::deserialize(m).map_err(serde::de::Error::custom))
            .transpose()?
            .unwrap_or_default();
        Ok(Lenient {
            metadata,
            read: read(value).map(Box::new),
        })
    }
}

impl Resource for Lenient {
    type DynamicType = ();
    type Scope = NamespaceResourceScope;

    fn kind(dt: &()) -> Cow<'_, str> {
        TrussiumRuntime::kind(dt)
    }
    fn group(dt: &()) -> Cow<'_, str> {
        TrussiumRuntime::group(dt)
    }
    fn version(dt: &()) -> Cow<'_, str> {
        TrussiumRuntime::version(dt)
    }
    fn plural(dt: &()) -> Cow<'_, str> {
        TrussiumRuntime::plural(dt)
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// Runtimes whose last version seen could not be read whole, by
/// namespace/name: what was wrong, and at which resourceVersion.
#[derive(Default)]
pub struct Unreadable {
    runtimes: Mutex<HashMap<(String, String), Seen>>,
}

struct Seen {
    problems: String,
    version: Option<String>,
}

impl Unreadable {
    /// Whether the status of `rt` (this version of it) holds something the
    /// operator could not read, and must therefore be rewritten.
    pub fn holds(&self, rt: &TrussiumRuntime) -> bool {
        let key = key(&rt.metadata);
        lock(&self.runtimes)
            .get(&key)
            .is_some_and(|seen| seen.version == rt.metadata.resource_version)
    }

    /// Records what was read of one runtime; says a new cause once.
    fn saw(&self, metadata: &ObjectMeta, problems: &[String]) {
        let key = key(metadata);
        let mut runtimes = lock(&self.runtimes);
        if problems.is_empty() {
            runtimes.remove(&key);
            return;
        }
        let problems = problems.join("; ");
        let known = runtimes.get(&key).is_some_and(|s| s.problems == problems);
        if !known {
            tracing::warn!(
                namespace = %key.0,
                name = %key.1,
                problems = %problems,
                "the runtime's status holds values the operator cannot read; \
                 rewriting it from what the operator observes"
            );
        }
        runtimes.insert(
            key,
            Seen {
                problems,
                version: metadata.resource_version.clone(),
            },
        );
    }

    /// A runtime that cannot be read at all: said once per cause.
    fn cannot_read(&self, metadata: &ObjectMeta, problem: &str) {
        let key = key(metadata);
        let mut runtimes = lock(&self.runtimes);
        if runtimes.get(&key).is_some_and(|s| s.problems == problem) {
            return;
        }
        tracing::warn!(
            namespace = %key.0,
            name = %key.1,
            problem,
            "cannot read the runtime; leaving it and its objects as they are"
        );
        runtimes.insert(
            key,
            Seen {
                problems: problem.to_string(),
                version: None,
            },
        );
    }

    fn gone(&self, metadata: &ObjectMeta) {
        lock(&self.runtimes).remove(&key(metadata));
    }
}

fn key(metadata: &ObjectMeta) -> (String, String) {
    (
        metadata.namespace.clone().unwrap_or_default(),
        metadata.name.clone().unwrap_or_default(),
    )
}

/// The runtimes of `watch`, each read as well as it can be (see
/// [`Unreadable`]). A runtime that cannot be read at all is forgotten: the
/// operator leaves it and its objects as they are. A deleted runtime's own
/// status is forgotten too.
pub fn readable(
    watch: impl Stream<Item = Result<watcher::Event<Lenient>, watcher::Error>> + Send + 'static,
    unreadable: Arc<Unreadable>,
    own: Arc<Own>,
) -> impl Stream<Item = Result<watcher::Event<TrussiumRuntime>, watcher::Error>> + Send + 'static {
    watch.filter_map(move |event| {
        let event = event.map(|event| convert(event, &unreadable)).transpose();
        if let Some(Ok(watcher::Event::Delete(rt))) = &event {
            own.deleted(rt);
        }
        futures::future::ready(event)
    })
}

fn convert(
    event: watcher::Event<Lenient>,
    unreadable: &Unreadable,
) -> Option<watcher::Event<TrussiumRuntime>> {
    use watcher::Event::{Apply, Delete, Init, InitApply, InitDone};
    Some(match event {
        Init => Init,
        InitDone => InitDone,
        InitApply(object) => InitApply(take(object, unreadable)?),
        Apply(object) => match take_or_forget(object, unreadable)? {
            Ok(rt) => Apply(rt),
            Err(forget) => Delete(forget),
        },
        Delete(object) => {
            unreadable.gone(&object.metadata);
            match object.read {
                Ok(read) => Delete(read.runtime),
                Err(_) => Delete(placeholder(object.metadata)?),
            }
        }
    })
}

/// The runtime read, or `None` when it cannot be read at all.
fn take(object: Lenient, unreadable: &Unreadable) -> Option<TrussiumRuntime> {
    match object.read {
        Ok(read) => {
            unreadable.saw(&object.metadata, &read.problems);
            Some(read.runtime)
        }
        Err(problem) => {
            unreadable.cannot_read(&object.metadata, &problem);
            None
        }
    }
}

/// The runtime read, or a stand-in to forget it by.
fn take_or_forget(
    object: Lenient,
    unreadable: &Unreadable,
) -> Option<Result<TrussiumRuntime, TrussiumRuntime>> {
    let metadata = object.metadata.clone();
    match take(object, unreadable) {
        Some(rt) => Some(Ok(rt)),
        None => placeholder(metadata).map(Err),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn lenient(status: serde_json::Value, replicas: serde_json::Value) -> Lenient {
        let object = json!({
            "metadata": {"name": "x", "namespace": "ns", "uid": "u", "resourceVersion": "7"},
            "spec": {
                "image": {"repository": "r", "tag": "v1"},
                "replicas": replicas,
                "provider": {"type": "openai", "model": "m",
                    "credentialsSecretRef": {"name": "s", "key": "k"}}
            },
            "status": status,
        });
        serde_json::from_value(object).unwrap_or_else(|err| panic!("{err}"))
    }

    fn far() -> serde_json::Value {
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "RuntimeReady",
            "message": "m", "lastTransitionTime": "9999-12-31T23:59:59Z"}]})
    }

    #[test]
    fn a_status_that_does_not_parse_is_delivered_and_marked() {
        let unreadable = Unreadable::default();
        let event = convert(watcher::Event::Apply(lenient(far(), json!(1))), &unreadable);
        let Some(watcher::Event::Apply(rt)) = event else {
            panic!("expected the runtime, got {event:?}");
        };
        assert!(unreadable.holds(&rt));
        // Another version of it, read whole: no longer marked.
        let mut next = rt.clone();
        next.metadata.resource_version = Some("8".into());
        assert!(!unreadable.holds(&next));
        let event = convert(
            watcher::Event::Apply(lenient(json!({}), json!(1))),
            &unreadable,
        );
        let Some(watcher::Event::Apply(rt)) = event else {
            panic!("expected the runtime");
        };
        assert!(!unreadable.holds(&rt));
    }

    #[test]
    fn a_runtime_that_cannot_be_read_is_forgotten() {
        let unreadable = Unreadable::default();
        let bad = || lenient(json!({}), json!(1_u64 << 40));
        let event = convert(watcher::Event::Apply(bad()), &unreadable);
        let Some(watcher::Event::Delete(rt)) = event else {
            panic!("expected a stand-in to forget, got {event:?}");
        };
        assert_eq!(rt.metadata.name.as_deref(), Some("x"));
        assert!(convert(watcher::Event::InitApply(bad()), &unreadable).is_none());
        assert!(matches!(
            convert(watcher::Event::Delete(bad()), &unreadable),
            Some(watcher::Event::Delete(_))
        ));
        assert!(matches!(
            convert(watcher::Event::Init, &unreadable),
            Some(watcher::Event::Init)
        ));
    }
}
