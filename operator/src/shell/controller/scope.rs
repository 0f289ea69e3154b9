//! Where the operator looks: the whole cluster or one namespace.

use kube::{Api, Client, Resource};

/// Where the operator looks: the whole cluster or one namespace.
#[derive(Clone, Debug)]
pub enum Scope {
    Cluster,
    Namespace(String),
}

impl Scope {
    pub fn api<K>(&self, client: &Client) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>,
    {
        match self {
            Scope::Cluster => Api::all(client.clone()),
            Scope::Namespace(ns) => Api::namespaced(client.clone(), ns),
        }
    }
}
