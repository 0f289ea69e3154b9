//! Writes of owned objects: apply when something differs, delete when no
//! longer wanted. Reads before writes, so a steady state sends no write.

use std::fmt::Debug;

use kube::api::{DeleteParams, Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use trussium_api::TrussiumRuntime;

use super::drift::difference;
use super::ownership::{innermost_list, take_over_list};
use crate::resources::{FIELD_MANAGER, is_owned_by, same_controller};

/// Applies `desired` unless `observed` already matches it; returns the object
/// as the API server now has it.
///
/// When the apply cannot revert the drift because another field manager owns
/// items of a list (see [`super::ownership`]), the operator takes that list
/// over and applies once more.
pub async fn ensure<K>(api: &Api<K>, desired: &K, observed: Option<K>) -> Result<K, kube::Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
{
    let name = desired.name_any();
    let namespace = desired.namespace().unwrap_or_default();
    let Some(observed) = observed else {
        tracing::info!(kind = %K::kind(&()), %namespace, %name, reason = "absent", "applying");
        return apply(api, desired).await;
    };
    // Someone else's object under the runtime's name: never take it over
    // (a forced apply would) nor touch it; the status says why we are stuck.
    if !same_controller(desired.meta(), observed.meta()) {
        return Err(not_ours::<K>(&namespace, &name));
    }
    let Some(path) = differs(desired, &observed) else {
        return Ok(observed);
    };
    tracing::info!(kind = %K::kind(&()), %namespace, %name, reason = %format!("differs at {path}"), "applying");
    let (current, path) = match apply(api, desired).await {
        Ok(applied) => match differs(desired, &applied) {
            None => return Ok(applied),
            Some(still) => (Ok(applied), still),
        },
        // Refused, e.g. a foreign Service port item next to ours with the
        // same name: the object is still as observed.
        Err(kube::Error::Api(status)) if status.code == 422 => {
            (Err(kube::Error::Api(status)), path)
        }
        Err(err) => return Err(err),
    };
    let Some(taken) = take_over(api, &name, &path).await? else {
        tracing::warn!(kind = %K::kind(&()), %namespace, %name, %path, "still differs after apply");
        return current;
    };
    tracing::info!(kind = %K::kind(&()), %namespace, %name, list = %taken, "took over a list someone else changed; applying again");
    apply(api, desired).await
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

/// Server-side apply as the operator, taking over conflicting fields.
async fn apply<K>(api: &Api<K>, desired: &K) -> Result<K, kube::Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
{
    api.patch(
        &desired.name_any(),
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(desired),
    )
    .await
}

/// The path of the first difference, if `observed` needs an apply.
fn differs<K: Serialize>(desired: &K, observed: &K) -> Option<String> {
    match (
        serde_json::to_value(desired),
        serde_json::to_value(observed),
    ) {
        (Ok(want), Ok(have)) => difference(&want, &have),
        _ => Some("(not comparable)".to_string()),
    }
}

/// Moves other managers' ownership of the list on `path` to the operator
/// (a managedFields-only patch, guarded by the resourceVersion), so that the
/// next apply prunes their items. Returns the list's path, or `None` when
/// there is no such list to take over.
async fn take_over<K>(api: &Api<K>, name: &str, path: &str) -> Result<Option<String>, kube::Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
{
    // Read fresh, and again when someone else (a Deployment's status, say)
    // wrote in between.
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

/// Reads then applies.
pub async fn ensure_fetched<K>(api: &Api<K>, desired: &K) -> Result<K, kube::Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
{
    let observed = api.get_opt(&desired.name_any()).await?;
    ensure(api, desired, observed).await
}

/// Deletes the named object if it exists and this runtime controls it; an
/// object someone else created under the same name is left alone.
pub async fn remove<K>(api: &Api<K>, name: &str, rt: &TrussiumRuntime) -> Result<(), kube::Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned,
{
    match api.get_opt(name).await? {
        Some(observed) if is_owned_by(observed.meta(), rt) => {
            let namespace = observed.namespace().unwrap_or_default();
            tracing::info!(kind = %K::kind(&()), %namespace, %name, "deleting, no longer wanted");
            api.delete(name, &DeleteParams::background()).await?;
            Ok(())
        }
        _ => Ok(()),
    }
}
