//! A fresh namespace per test.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use kube::api::{DeleteParams, ObjectMeta, PostParams};
use kube::{Api, Client, Resource};

use crate::{Error, admin_client, wait_for};

/// Label on every namespace a test creates (`kubectl delete ns -l trussium.test=true`).
pub const TEST_NAMESPACE_LABEL: &str = "trussium.test";

/// A namespace of its own for one test, and an admin client.
pub struct TestNamespace {
    pub name: String,
    pub client: Client,
}

impl TestNamespace {
    /// Creates `<prefix>-<random>` (the API server picks the suffix) and waits
    /// for its `default` ServiceAccount, without which no pod can be created.
    pub async fn create(prefix: &str) -> Result<Self, Error> {
        let client = admin_client().await?;
        let namespaces: Api<Namespace> = Api::all(client.clone());
        let namespace = Namespace {
            metadata: ObjectMeta {
                generate_name: Some(format!("{}-", dns_label_prefix(prefix))),
                labels: Some([(TEST_NAMESPACE_LABEL.to_string(), "true".to_string())].into()),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        let created = namespaces
            .create(&PostParams::default(), &namespace)
            .await?;
        let name = created.metadata.name.unwrap_or_default();

        let service_accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), &name);
        wait_for(
            &format!("the default ServiceAccount of namespace {name}"),
            Duration::from_secs(30),
            async || Ok(service_accounts.get_opt("default").await?.map(|_| ())),
        )
        .await?;
        Ok(TestNamespace { name, client })
    }

    /// An `Api` for a namespaced kind in this namespace, as the admin.
    pub fn api<K>(&self) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        <K as Resource>::DynamicType: Default,
    {
        Api::namespaced(self.client.clone(), &self.name)
    }

    /// Deletes the namespace without waiting; errors are ignored (the cluster
    /// is thrown away after `make test` anyway).
    pub async fn delete(self) {
        let namespaces: Api<Namespace> = Api::all(self.client);
        let _ = namespaces
            .delete(&self.name, &DeleteParams::background())
            .await;
    }
}

/// Lowercase alphanumerics and dashes, at most 40 characters, so that the
/// generated name stays a valid DNS label.
fn dns_label_prefix(prefix: &str) -> String {
    let cleaned: String = prefix
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    let trimmed = cleaned.trim_matches('-');
    if trimmed.is_empty() {
        "test".to_string()
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::dns_label_prefix;

    #[test]
    fn prefixes_become_dns_labels() {
        assert_eq!(dns_label_prefix("rollout_Fails"), "rollout-fails");
        assert_eq!(dns_label_prefix("--"), "test");
        assert_eq!(dns_label_prefix(&"a".repeat(60)).len(), 40);
    }
}
