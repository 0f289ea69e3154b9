//! The CustomResourceDefinition, generated from the types.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSON, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use kube::CustomResourceExt;

use crate::TrussiumRuntime;
use crate::status::ConditionStatus;

/// Path of the generated CRD, relative to the repository root.
pub const CRD_PATH: &str = "crds/runtime.trussium.io_trussiumruntimes.yaml";

/// The label that carries the release the CRD belongs to, so that an
/// installer can tell an older CRD (upgrade it) from a newer one (refuse).
pub const VERSION_LABEL: &str = "app.kubernetes.io/version";

/// This release's version, as the CRD's [`VERSION_LABEL`] says it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The API version the operator writes and the plugin reads, and the one the
/// API server stores objects in.
pub const STORAGE_VERSION: &str = "v1beta1";

/// Served versions that are deprecated: the same schema as
/// [`STORAGE_VERSION`], field for field (conversion `None`, so the API server
/// only rewrites `apiVersion` and nothing is lost either way).
pub const DEPRECATED_VERSIONS: &[&str] = &["v1alpha1"];

/// The TrussiumRuntime resource at `version` (one the CRD serves), for a
/// dynamic `Api`: reading or writing through a version other than the one
/// the types speak.
pub fn api_resource(version: &str) -> kube::core::ApiResource {
    let mut resource = kube::core::ApiResource::erase::<TrussiumRuntime>(&());
    resource.api_version = format!("{}/{version}", resource.group);
    resource.version = version.to_string();
    resource
}

/// What kubectl prints on every use of a deprecated version.
pub fn deprecation_warning(version: &str) -> String {
    format!(
        "runtime.trussium.io/{version} TrussiumRuntime is deprecated; use runtime.trussium.io/{STORAGE_VERSION}"
    )
}

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
///
/// And it is labelled with the release it belongs to ([`VERSION_LABEL`]).
///
/// And it serves the [`DEPRECATED_VERSIONS`] beside [`STORAGE_VERSION`]: each
/// a copy of the storage version (one set of types, so a field cannot go into
/// one version alone), not stored, marked deprecated with a warning.
pub fn crd() -> CustomResourceDefinition {
    let mut crd = TrussiumRuntime::crd();
    add_deprecated_versions(&mut crd);
    crd.metadata
        .labels
        .get_or_insert_default()
        .insert(VERSION_LABEL.to_string(), VERSION.to_string());
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

fn add_deprecated_versions(crd: &mut CustomResourceDefinition) {
    let Some(storage) = crd
        .spec
        .versions
        .iter()
        .find(|v| v.name == STORAGE_VERSION)
        .cloned()
    else {
        return;
    };
    for name in DEPRECATED_VERSIONS {
        let mut deprecated = storage.clone();
        deprecated.name = (*name).to_string();
        deprecated.storage = false;
        deprecated.deprecated = Some(true);
        deprecated.deprecation_warning = Some(deprecation_warning(name));
        crd.spec.versions.push(deprecated);
    }
}

/// The release a stored CRD belongs to, from its [`VERSION_LABEL`].
pub fn version_of(crd: &CustomResourceDefinition) -> Option<&str> {
    crd.metadata
        .labels
        .as_ref()?
        .get(VERSION_LABEL)
        .map(String::as_str)
}

/// Whether the API server serves a stored CRD (its `Established` condition).
pub fn is_established(crd: &CustomResourceDefinition) -> bool {
    crd.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|conditions| {
            conditions.iter().any(|c| {
                c.type_ == "Established"
                    && ConditionStatus::parse(&c.status) == ConditionStatus::True
            })
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use kube::Resource;

    #[test]
    fn the_storage_version_is_served_and_the_only_one_stored() {
        let crd = crd();
        let names: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["v1beta1", "v1alpha1"]);
        for version in &crd.spec.versions {
            assert!(version.served, "{} is not served", version.name);
            assert_eq!(version.storage, version.name == STORAGE_VERSION);
            assert_eq!(
                version.deprecated.unwrap_or(false),
                DEPRECATED_VERSIONS.contains(&version.name.as_str())
            );
        }
        assert_eq!(
            TrussiumRuntime::api_version(&()),
            "runtime.trussium.io/v1beta1"
        );
    }

    #[test]
    fn a_resource_at_another_version_keeps_group_kind_and_plural() {
        let alpha = api_resource("v1alpha1");
        assert_eq!(alpha.api_version, "runtime.trussium.io/v1alpha1");
        assert_eq!(alpha.version, "v1alpha1");
        assert_eq!(
            (
                alpha.group.as_str(),
                alpha.kind.as_str(),
                alpha.plural.as_str()
            ),
            ("runtime.trussium.io", "TrussiumRuntime", "trussiumruntimes")
        );
    }

    #[test]
    fn a_deprecated_version_names_its_successor() {
        let crd = crd();
        let alpha = crd.spec.versions.iter().find(|v| v.name == "v1alpha1");
        assert_eq!(
            alpha.and_then(|v| v.deprecation_warning.as_deref()),
            Some(
                "runtime.trussium.io/v1alpha1 TrussiumRuntime is deprecated; use runtime.trussium.io/v1beta1"
            )
        );
    }

    #[test]
    fn the_crd_carries_this_release() {
        assert_eq!(version_of(&crd()), Some(VERSION));
        assert_eq!(version_of(&CustomResourceDefinition::default()), None);
    }

    #[test]
    fn established_is_the_condition() {
        let with = |status: &str| -> CustomResourceDefinition {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "x"},
                "spec": {"group": "g", "scope": "Namespaced", "names": {"plural": "xs", "kind": "X"}, "versions": []},
                "status": {"conditions": [{"type": "Established", "status": status}]}
            }))
            .unwrap_or_else(|e| panic!("{e}"))
        };
        assert!(is_established(&with("True")));
        assert!(!is_established(&with("False")));
        assert!(!is_established(&CustomResourceDefinition::default()));
    }
}
