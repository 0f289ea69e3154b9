//! The CustomResourceDefinition, generated from the types.

use kube::CustomResourceExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::TrussiumRuntime;

/// Path of the generated CRD, relative to the repository root.
pub const CRD_PATH: &str = "crds/runtime.trussium.io_trussiumruntimes.yaml";

/// The CRD as the API server should have it.
pub fn crd() -> CustomResourceDefinition {
    TrussiumRuntime::crd()
}

/// The CRD as committed YAML, with a header saying where it comes from.
pub fn crd_yaml() -> Result<String, serde_yaml::Error> {
    let body = serde_yaml::to_string(&crd())?;
    Ok(format!(
        "# Generated from the Rust types in api/ by `make crds`; do not edit.\n{body}"
    ))
}
