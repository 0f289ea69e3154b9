//! Reads what a runtime refers to: do its Secrets exist?
//!
//! Only metadata endpoints are used (`PartialObjectMetadata`), so no Secret
//! data ever reaches this process. Nothing of the metadata is kept or logged
//! beyond the name and resourceVersion: annotations such as
//! `kubectl.kubernetes.io/last-applied-configuration` can hold secret data.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Secret;
use kube::{Api, Client};
use trussium_api::TrussiumRuntime;

use crate::references::{ReferenceCheck, referenced_secrets};

/// Checks that every Secret the runtime references exists in its namespace.
pub async fn check_references(
    client: &Client,
    rt: &TrussiumRuntime,
    namespace: &str,
) -> ReferenceCheck {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let mut versions = BTreeMap::new();
    let mut missing = Vec::new();
    for name in referenced_secrets(rt) {
        match secrets.get_metadata_opt(&name).await {
            Ok(Some(meta)) => {
                let version = meta.metadata.resource_version.unwrap_or_default();
                versions.insert(name, version);
            }
            Ok(None) => missing.push(name),
            Err(err) => {
                return ReferenceCheck::Failed {
                    message: format!(
                        "checking Secret {name:?} failed: {}",
                        super::error::one_line(&err)
                    ),
                };
            }
        }
    }
    if missing.is_empty() {
        ReferenceCheck::Resolved { versions }
    } else {
        ReferenceCheck::Missing { names: missing }
    }
}
