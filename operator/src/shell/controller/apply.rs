//! Writes of owned objects: apply when the cached object differs, delete when
//! no longer wanted. Decided from the caches, so a steady state sends nothing.

use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kube::api::{DeleteParams, Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use trussium_api::TrussiumRuntime;

use super::cache::{Cached, Kept};
use super::lock::lock;
use crate::pure::backoff::{self, Backoff, Decision};
use crate::pure::drift::{drifted, needs_apply};
use crate::pure::ownership::{innermost_list, take_over_list};
use crate::pure::resources::{
    AppliedHash, FIELD_MANAGER, creation_body, is_owned_by, same_controller, with_owner_version_of,
};
use crate::pure::reverted::{Reverted, changed_by, value_at};

/// What an owned kind needs to be applied from its cache.
pub trait Owned:
    Resource<DynamicType = ()>
    + Clone
    + Debug
    + Serialize
    + DeserializeOwned
    + Kept
    + AppliedHash
    + Send
    + Sync
{
}
impl<K> Owned for K where
    K: Resource<DynamicType = ()>
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned
        + Kept
        + AppliedHash
        + Send
        + Sync
{
}

/// An owned object after [`ensure`].
pub struct Ensured<K> {
    /// As the API server now has it.
    pub object: Arc<K>,
    /// Whether a write was sent (a creation or an apply).
    pub wrote: bool,
    /// Set when the write put back a field someone else had changed.
    pub reverted: Option<Reverted>,
}

impl<K> Ensured<K> {
    fn wrote(object: Arc<K>) -> Self {
        Ensured {
            object,
            wrote: true,
            reverted: None,
        }
    }

    fn kept(object: Arc<K>) -> Self {
        Ensured {
            object,
            wrote: false,
            reverted: None,
        }
    }
}

/// Applies `desired` unless the object as last known already matches it;
/// returns the object as the API server now has it, and whether it wrote.
///
/// When the apply cannot revert the drift because another field manager owns
/// items of a list (see [`crate::pure::ownership`]), the operator takes that list
/// over and applies once more. Drift on an object the operator keeps
/// reverting waits (see [`crate::pure::backoff`]): the object is returned as it is.
pub async fn ensure<K: Owned>(
    api: Api<K>,
    cache: &Cached<K>,
    backoff: &Mutex<Backoff>,
    desired: &K,
) -> Result<Ensured<K>, kube::Error> {
    let name = desired.name_any();
    let namespace = desired.namespace().unwrap_or_default();
    let observed = match cache.get(&namespace, &name) {
        Some(cached) => cached,
        // Not in the cache, which holds only objects with our label: absent,
        // or someone else's that the watch does not show. Created without
        // looking first (see `create`); only when something is there already
        // does one read tell whose it is.
        None => match create(&api, cache, desired).await {
            Err(kube::Error::Api(status)) if status.code == 409 => {
                match api.get_opt(&name).await? {
                    Some(found) => Arc::new(found),
                    // Deleted between the two requests: create it after all.
                    None => return create(&api, cache, desired).await.map(Ensured::wrote),
                }
            }
            created => return created.map(Ensured::wrote),
        },
    };
    // Someone else's object under the runtime's name: never take it over
    // (a forced apply would) nor touch it; the status says why we are stuck.
    if !same_controller(desired.meta(), observed.meta()) {
        return Err(not_ours::<K>(&namespace, &name));
    }
    // An object of an earlier release names an older version of our API in
    // its owner reference: kept (see `with_owner_version_of`).
    let kept = with_owner_version_of(desired, observed.as_ref());
    let desired = kept.as_ref().unwrap_or(desired);
    let Some(path) = needs_apply(desired, observed.as_ref()) else {
        return Ok(Ensured::kept(observed));
    };
    let reverted = match drift(&api, backoff, desired, observed.as_ref(), &path).await {
        Drift::None => None,
        Drift::Wait => return Ok(Ensured::kept(observed)),
        Drift::Revert(revert) => Some(revert),
    };
    tracing::info!(kind = %K::kind(&()), %namespace, %name, reason = %format!("differs at {path}"), "applying");
    let (current, path) = match apply(&api, cache, desired).await {
        Ok(applied) => match needs_apply(desired, applied.as_ref()) {
            None => {
                return Ok(Ensured {
                    object: applied,
                    wrote: true,
                    reverted,
                });
            }
            Some(still) => (Ok(applied), still),
        },
        // Refused, e.g. a foreign Service port item next to ours with the
        // same name: the object is still as observed.
        Err(kube::Error::Api(status)) if status.code == 422 => {
            (Err(kube::Error::Api(status)), path)
        }
        Err(err) => return Err(err),
    };
    let wrote = |object| Ensured {
        object,
        wrote: true,
        reverted: reverted.clone(),
    };
    let Some(taken) = take_over(&api, &name, &path).await? else {
        tracing::warn!(kind = %K::kind(&()), %namespace, %name, %path, "still differs after apply");
        return current.map(wrote);
    };
    tracing::info!(kind = %K::kind(&()), %namespace, %name, list = %taken, "took over a list someone else changed; applying again");
    apply(&api, cache, desired).await.map(wrote)
}

/// Whether someone else changed the object (drift), and what to do now.
enum Drift {
    /// No: the operator wants something new.
    None,
    /// Yes, and it keeps happening: leave it for now (see [`backoff`]).
    Wait,
    /// Yes: put it back.
    Revert(Reverted),
}

/// Judges drift at `path` of `observed` against `desired`, backing off from
/// another writer, and says who made it when it is to be reverted.
async fn drift<K: Owned>(
    api: &Api<K>,
    backoff: &Mutex<Backoff>,
    desired: &K,
    observed: &K,
    path: &str,
) -> Drift {
    if !drifted(desired, observed) {
        return Drift::None;
    }
    let namespace = observed.namespace().unwrap_or_default();
    let name = observed.name_any();
    let object = backoff::Object {
        kind: K::kind(&()).into_owned(),
        namespace: namespace.clone(),
        name: name.clone(),
    };
    let decision = lock(backoff).drifted(&object, Instant::now());
    if let Decision::Wait(wait) = decision {
        tracing::debug!(kind = %K::kind(&()), %namespace, %name, %path, wait_seconds = wait.as_secs_f64(), "someone keeps changing it; backing off");
        return Drift::Wait;
    }
    let revert = revert_of(api, desired, &name, path).await;
    let by = revert.changed_by.as_deref().unwrap_or("unknown");
    match decision {
        Decision::Revert { nth } if nth > 1 => {
            tracing::warn!(kind = %K::kind(&()), %namespace, %name, %path, changed_by = by, reverts_in_a_row = nth, "someone keeps changing it; reverting again");
        }
        _ => {
            tracing::info!(kind = %K::kind(&()), %namespace, %name, %path, changed_by = by, "someone else changed it; reverting");
        }
    }
    Drift::Revert(revert)
}

/// What reverting the drift at `path` puts back, and who made it: read
/// fresh (the cache drops `managedFields`), once per revert. A read that
/// fails names nobody; the revert goes ahead all the same.
async fn revert_of<K: Owned>(api: &Api<K>, desired: &K, name: &str, path: &str) -> Reverted {
    let desired_json = serde_json::to_value(desired).unwrap_or_default();
    let changed = match api.get(name).await {
        Ok(current) => serde_json::to_value(&current)
            .ok()
            .and_then(|current| changed_by(&current, &desired_json, path, FIELD_MANAGER)),
        Err(err) => {
            tracing::debug!(kind = %K::kind(&()), %name, error = %err, "could not read who changed it");
            None
        }
    };
    Reverted {
        kind: K::kind(&()).into_owned(),
        name: name.to_string(),
        path: path.to_string(),
        changed_by: changed,
        value: value_at(&desired_json, path).unwrap_or_else(|| "its value".to_string()),
    }
}

/// The error for an object of ours that someone else created first.
fn not_ours<K: Resource<DynamicType = ()>>(namespace: &str, name: &str) -> kube::Error {
    let kind = K::kind(&());
    kube::Error::Api(
        kube::core::Status::failure(
            &format!(
                "{kind} {namespace}/{name} exists and is not controlled by this TrussiumRuntime; \
                 the operator neither takes it over nor deletes it: remove or rename it"
            ),
            "AlreadyExists",
        )
        .with_code(409)
        .boxed(),
    )
}

/// Creates `desired` with a server-side apply that only creates (see
/// [`creation_body`]): 409 when something exists under its name. The cache
/// remembers the result until its watch shows it.
async fn create<K: Owned>(
    api: &Api<K>,
    cache: &Cached<K>,
    desired: &K,
) -> Result<Arc<K>, kube::Error> {
    // Not forced: there is nothing to conflict with in a creation, and an
    // existing object is refused whatever its fields.
    let created = api
        .patch(
            &desired.name_any(),
            &PatchParams::apply(FIELD_MANAGER),
            &Patch::Apply(&creation_body(desired)),
        )
        .await?;
    tracing::info!(kind = %K::kind(&()), namespace = created.namespace().unwrap_or_default(), name = created.name_any(), "created");
    Ok(cache.remember(created))
}

/// Server-side apply as the operator, taking over conflicting fields; the
/// cache remembers the result until its watch shows it.
async fn apply<K: Owned>(
    api: &Api<K>,
    cache: &Cached<K>,
    desired: &K,
) -> Result<Arc<K>, kube::Error> {
    let applied = api
        .patch(
            &desired.name_any(),
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(desired),
        )
        .await?;
    Ok(cache.remember(applied))
}

/// Moves other managers' ownership of the list on `path` to the operator
/// (a managedFields-only patch, guarded by the resourceVersion), so that the
/// next apply prunes their items. Returns the list's path, or `None` when
/// there is no such list to take over.
async fn take_over<K: Owned>(
    api: &Api<K>,
    name: &str,
    path: &str,
) -> Result<Option<String>, kube::Error> {
    // Read fresh, and again when someone else (a Deployment's status, say)
    // wrote in between: this needs the managedFields, which the cache drops,
    // and the patch is only accepted against the current resourceVersion.
    // It happens only after an apply that did not revert a drift.
    const ATTEMPTS: usize = 3;
    for attempt in 1..=ATTEMPTS {
        let current = api.get(name).await?;
        let Ok(current_json) = serde_json::to_value(&current) else {
            return Ok(None);
        };
        let Some(list) = innermost_list(&current_json, path) else {
            return Ok(None);
        };
        let Some(managed_fields) = take_over_list(&current_json, &list, FIELD_MANAGER) else {
            return Ok(None);
        };
        let patch = json!({
            "metadata": {
                "resourceVersion": current.resource_version(),
                "managedFields": managed_fields,
            },
        });
        match api
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => return Ok(Some(list)),
            Err(kube::Error::Api(status)) if status.code == 409 && attempt < ATTEMPTS => {}
            Err(err) => return Err(err),
        }
    }
    Ok(None)
}

/// Deletes the named object if it exists and this runtime controls it
/// (`true` when it sent the deletion); an
/// object someone else created under the same name is left alone (it is not
/// in the cache either: the watches see only objects with our label).
pub async fn remove<K: Owned>(
    api: &Api<K>,
    cache: &Cached<K>,
    namespace: &str,
    name: &str,
    rt: &TrussiumRuntime,
) -> Result<bool, kube::Error> {
    let Some(observed) = cache.get(namespace, name) else {
        return Ok(false);
    };
    if !is_owned_by(observed.meta(), rt) {
        return Ok(false);
    }
    tracing::info!(kind = %K::kind(&()), %namespace, %name, "deleting, no longer wanted");
    match api.delete(name, &DeleteParams::background()).await {
        Ok(_) => {}
        // Gone already: the cache had not shown that yet.
        Err(kube::Error::Api(status)) if status.code == 404 => {}
        Err(err) => return Err(err),
    }
    cache.forget(namespace, name);
    Ok(true)
}
