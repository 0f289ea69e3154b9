//! Writes of owned objects: apply when something differs, delete when no
//! longer wanted. Reads before writes, so a steady state sends no write.

use std::fmt::Debug;

use kube::api::{DeleteParams, Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use trussium_api::TrussiumRuntime;

use super::drift::difference;
use crate::resources::{FIELD_MANAGER, is_owned_by};

/// Applies `desired` unless `observed` already matches it; returns the object
/// as the API server now has it.
pub async fn ensure<K>(api: &Api<K>, desired: &K, observed: Option<K>) -> Result<K, kube::Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
{
    let name = desired.name_any();
    let reason = match observed {
        None => "absent".to_string(),
        Some(observed) => {
            match (
                serde_json::to_value(desired),
                serde_json::to_value(&observed),
            ) {
                (Ok(want), Ok(have)) => match difference(&want, &have) {
                    None => return Ok(observed),
                    Some(path) => format!("differs at {path}"),
                },
                _ => "not comparable".to_string(),
            }
        }
    };
    let namespace = desired.namespace().unwrap_or_default();
    tracing::info!(kind = %K::kind(&()), %namespace, %name, %reason, "applying");
    api.patch(
        &name,
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(desired),
    )
    .await
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
