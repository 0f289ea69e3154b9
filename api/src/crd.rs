//! The CustomResourceDefinition, generated from the types.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSON, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use kube::CustomResourceExt;

use crate::TrussiumRuntime;

/// Path of the generated CRD, relative to the repository root.
pub const CRD_PATH: &str = "crds/runtime.trussium.io_trussiumruntimes.yaml";

/// The CRD as the API server should have it.
///
/// This is `TrussiumRuntime::crd()` with one change: no property under `spec`
/// is `nullable`. schemars marks every `Option` field nullable, which makes the
/// API server *store* an explicit `null` (`tag: null` next to a digest shows as
/// `<no value>` in `kubectl get`, `autoscaling: null` survives round trips).
/// Without `nullable` the API server prunes nulls before defaulting, so an
/// explicit `null` means exactly what omitting the field means.
///
/// And `status` defaults to `{observedGeneration: 0}`: the API server applies
/// it whenever it serves a runtime that has no status yet (just created, or
/// no operator running), so kstatus (Flux, kpt) reads it as InProgress
/// instead of Current, and `observedGeneration < generation` tells every
/// client that the operator has not processed it.
pub fn crd() -> CustomResourceDefinition {
    let mut crd = TrussiumRuntime::crd();
    for version in &mut crd.spec.versions {
        let properties = version
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
            .and_then(|s| s.properties.as_mut());
        let Some(properties) = properties else {
            continue;
        };
        if let Some(spec) = properties.get_mut("spec") {
            strip_nullable(spec);
        }
        if let Some(status) = properties.get_mut("status") {
            status.default = Some(JSON(serde_json::json!({"observedGeneration": 0})));
        }
    }
    crd
}

fn strip_nullable(schema: &mut JSONSchemaProps) {
    schema.nullable = None;
    for property in schema.properties.iter_mut().flat_map(|p| p.values_mut()) {
        strip_nullable(property);
    }
    match &mut schema.items {
        Some(JSONSchemaPropsOrArray::Schema(items)) => strip_nullable(items),
        Some(JSONSchemaPropsOrArray::Schemas(items)) => items.iter_mut().for_each(strip_nullable),
        None => {}
    }
    if let Some(JSONSchemaPropsOrBool::Schema(additional)) = &mut schema.additional_properties {
        strip_nullable(additional);
    }
}

/// The CRD as committed YAML, with a header saying where it comes from.
pub fn crd_yaml() -> Result<String, serde_yaml::Error> {
    let body = serde_yaml::to_string(&crd())?;
    Ok(format!(
        "# Generated from the Rust types in api/ by `make crds`; do not edit.\n{body}"
    ))
}
