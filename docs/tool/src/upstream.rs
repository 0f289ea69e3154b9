//! Which fields of the API are Kubernetes' own types (an `Affinity`, a
//! `LabelSelector`): the API reference names and links them instead of
//! repeating Kubernetes' documentation of every nested field.
//!
//! The CRD inlines every type, so it cannot say where one of Kubernetes'
//! begins; the Rust types can. Their JSON schema, generated without inlining,
//! refers to each Kubernetes type by its OpenAPI name
//! (`io.k8s.api.core.v1.Affinity`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde_json::Value;
use trussium_api::{TrussiumRuntimeSpec, TrussiumRuntimeStatus};

use crate::Error;

/// A Kubernetes type embedded in the API, by its OpenAPI name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubernetesType {
    /// e.g. `io.k8s.api.core.v1.Affinity`.
    pub openapi_name: String,
}

impl KubernetesType {
    /// `Affinity`.
    pub fn kind(&self) -> &str {
        self.openapi_name
            .rsplit('.')
            .next()
            .unwrap_or(&self.openapi_name)
    }

    /// `core/v1`, `meta/v1`: the group and version as Kubernetes' API
    /// reference names them.
    pub fn group_version(&self) -> String {
        let parts: Vec<&str> = self.openapi_name.split('.').collect();
        match parts.as_slice() {
            [.., group, version, _kind] => format!("{group}/{version}"),
            _ => String::new(),
        }
    }

    /// Its entry in Kubernetes' generated API reference of `docs_version`
    /// (`v1.33`), e.g. `…/v1.33/#affinity-v1-core`.
    pub fn reference_url(&self, docs_version: &str) -> String {
        let parts: Vec<&str> = self.openapi_name.split('.').collect();
        let anchor = match parts.as_slice() {
            [.., group, version, kind] => format!("{}-{version}-{group}", kind.to_lowercase()),
            _ => self.kind().to_lowercase(),
        };
        format!(
            "https://kubernetes.io/docs/reference/generated/kubernetes-api/{docs_version}/#{anchor}"
        )
    }
}

/// Field path (`spec.scheduling.affinity`, in `kubectl explain`'s spelling:
/// no brackets for list items) → the Kubernetes type it holds.
pub fn kubernetes_types() -> Result<BTreeMap<String, KubernetesType>, Error> {
    let mut found = BTreeMap::new();
    for (root, schema) in [
        ("spec", schema_of::<TrussiumRuntimeSpec>()?),
        ("status", schema_of::<TrussiumRuntimeStatus>()?),
    ] {
        let definitions = schema
            .get("$defs")
            .cloned()
            .unwrap_or(Value::Object(Default::default()));
        walk(&schema, &definitions, root, &mut found, 0);
    }
    Ok(found)
}

fn schema_of<T: JsonSchema>() -> Result<Value, Error> {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.inline_subschemas = false;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    Ok(serde_json::to_value(schema)?)
}

/// Recursive types would not end; ours are a few levels deep.
const MAX_DEPTH: usize = 32;

fn walk(
    node: &Value,
    definitions: &Value,
    path: &str,
    found: &mut BTreeMap<String, KubernetesType>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        if name.starts_with("io.k8s.") {
            found.insert(
                path.to_string(),
                KubernetesType {
                    openapi_name: name.to_string(),
                },
            );
            return;
        }
        if let Some(definition) = definitions.get(name) {
            walk(definition, definitions, path, found, depth + 1);
        }
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        for branch in node
            .get(combinator)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            walk(branch, definitions, path, found, depth + 1);
        }
    }
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            walk(
                property,
                definitions,
                &format!("{path}.{name}"),
                found,
                depth + 1,
            );
        }
    }
    if let Some(items) = node.get("items") {
        walk(items, definitions, path, found, depth + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_kubernetes_types_the_api_embeds() -> Result<(), Error> {
        let types = kubernetes_types()?;
        let name = |path: &str| types.get(path).map(|t| t.openapi_name.as_str());
        assert_eq!(
            name("spec.scheduling.affinity"),
            Some("io.k8s.api.core.v1.Affinity")
        );
        assert_eq!(
            name("spec.networkPolicy.ingress.namespaceSelector"),
            Some("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")
        );
        assert_eq!(
            name("status.conditions"),
            Some("io.k8s.apimachinery.pkg.apis.meta.v1.Condition")
        );
        // Our own types are not Kubernetes'.
        assert_eq!(name("spec.image"), None);
        assert_eq!(name("spec.provider"), None);
        Ok(())
    }

    #[test]
    fn kubernetes_reference_links() {
        let affinity = KubernetesType {
            openapi_name: "io.k8s.api.core.v1.Affinity".into(),
        };
        assert_eq!(affinity.kind(), "Affinity");
        assert_eq!(affinity.group_version(), "core/v1");
        assert_eq!(
            affinity.reference_url("v1.33"),
            "https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.33/#affinity-v1-core"
        );
        let selector = KubernetesType {
            openapi_name: "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector".into(),
        };
        assert_eq!(selector.group_version(), "meta/v1");
        assert!(
            selector
                .reference_url("v1.33")
                .ends_with("#labelselector-v1-meta")
        );
    }
}
