//! Objects known only as YAML (the install manifests): their API, their
//! name, and how messages name them.

use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
use kube::{Api, Client};
use serde_json::Value;

use crate::access::Permission;

/// One manifest object and where it lives.
#[derive(Clone, Debug)]
pub struct Object {
    pub value: Value,
    pub resource: ApiResource,
    pub name: String,
    pub namespace: Option<String>,
}

impl Object {
    /// Reads apiVersion, kind and metadata; `None` for anything without.
    pub fn new(value: Value) -> Option<Object> {
        let (group, version) = match value["apiVersion"].as_str()?.split_once('/') {
            Some((group, version)) => (group.to_string(), version.to_string()),
            None => (String::new(), value["apiVersion"].as_str()?.to_string()),
        };
        let kind = value["kind"].as_str()?.to_string();
        let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(&group, &version, &kind));
        let name = value["metadata"]["name"].as_str()?.to_string();
        let namespace = value["metadata"]["namespace"].as_str().map(str::to_string);
        Some(Object {
            value,
            resource,
            name,
            namespace,
        })
    }

    pub fn kind(&self) -> &str {
        &self.resource.kind
    }

    /// Its API, namespaced where it lives in a namespace.
    pub fn api(&self, client: &Client) -> Api<DynamicObject> {
        match &self.namespace {
            Some(ns) => Api::namespaced_with(client.clone(), ns, &self.resource),
            None => Api::all_with(client.clone(), &self.resource),
        }
    }

    /// The body to send.
    pub fn body(&self) -> Result<DynamicObject, serde_json::Error> {
        serde_json::from_value(self.value.clone())
    }

    /// Doing `verb` to it.
    pub fn permission(&self, verb: &str, named: bool) -> Permission {
        Permission {
            verb: verb.to_string(),
            group: self.resource.group.clone(),
            resource: self.resource.plural.clone(),
            namespace: self.namespace.clone(),
            name: named.then(|| self.name.clone()),
        }
    }
}

impl std::fmt::Display for Object {
    /// `ClusterRole trussium-operator`, `Deployment ops/trussium-operator`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{} {ns}/{}", self.kind(), self.name),
            None => write!(f, "{} {}", self.kind(), self.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_where_an_object_lives() {
        let pdb = Object::new(json!({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "op", "namespace": "ops"}
        }));
        let pdb = pdb.unwrap_or_else(|| panic!("not read"));
        assert_eq!(pdb.resource.plural, "poddisruptionbudgets");
        assert_eq!(pdb.resource.group, "policy");
        assert_eq!(pdb.to_string(), "PodDisruptionBudget ops/op");
        assert_eq!(
            pdb.permission("patch", true).to_string(),
            "patch poddisruptionbudgets.policy op in namespace \"ops\""
        );
        let ns = Object::new(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ops"}}),
        );
        let ns = ns.unwrap_or_else(|| panic!("not read"));
        assert_eq!(ns.resource.plural, "namespaces");
        assert_eq!(
            ns.permission("create", false).to_string(),
            "create namespaces (cluster-wide)"
        );
        assert!(Object::new(json!({"kind": "Namespace"})).is_none());
    }
}
