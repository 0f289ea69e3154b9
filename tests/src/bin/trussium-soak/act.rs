//! The soak's operations, done to the cluster as a platform team would do
//! them (creates, merge patches, deletes), as the admin.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Api, Client};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_e2e::{NEVER_READY_IMAGE, TestNamespace};

use crate::plan::{Image, Operation, RuntimeSpec, SECRETS};
use crate::sentinel;
use trussium_e2e::BoxError;

/// Prefix of every namespace the soak creates (`soak-<n>-<suffix>`).
pub const NAMESPACE_PREFIX: &str = "soak-";
const REPOSITORY: &str = "ghcr.io/trussiumhq/trussium";
const SECRET_KEY: &str = "api-key";

/// The namespaces the soak made, by their number in the plan.
pub struct Cluster {
    admin: Client,
    seed: u64,
    namespaces: BTreeMap<usize, String>,
    values: u64,
}

impl Cluster {
    pub fn new(admin: &Client, seed: u64) -> Cluster {
        Cluster {
            admin: admin.clone(),
            seed,
            namespaces: BTreeMap::new(),
            values: 0,
        }
    }

    /// The name of namespace `n` of the plan.
    pub fn namespace(&self, n: usize) -> Result<&str, BoxError> {
        self.namespaces
            .get(&n)
            .map(String::as_str)
            .ok_or_else(|| format!("the soak has no namespace {n}").into())
    }

    pub fn namespaces(&self) -> BTreeSet<String> {
        self.namespaces.values().cloned().collect()
    }

    /// Does `operation`.
    pub async fn apply(&mut self, operation: &Operation) -> Result<(), BoxError> {
        match operation {
            Operation::CreateNamespace { namespace } => {
                let created =
                    TestNamespace::create(&format!("{NAMESPACE_PREFIX}{namespace}")).await?;
                self.namespaces.insert(*namespace, created.name);
                for secret in SECRETS {
                    self.create_secret(*namespace, secret).await?;
                }
            }
            Operation::DeleteNamespace { namespace } => {
                let name = self
                    .namespaces
                    .remove(namespace)
                    .ok_or("no such namespace")?;
                Api::<Namespace>::all(self.admin.clone())
                    .delete(&name, &DeleteParams::background())
                    .await?;
            }
            Operation::CreateRuntime {
                namespace,
                name,
                spec,
            } => {
                let rt: TrussiumRuntime = serde_json::from_value(manifest(name, spec))?;
                self.runtimes(*namespace)?
                    .create(&PostParams::default(), &rt)
                    .await?;
            }
            Operation::DeleteRuntime { namespace, name } => {
                self.runtimes(*namespace)?
                    .delete(name, &DeleteParams::background())
                    .await?;
            }
            Operation::SetImage {
                namespace,
                name,
                image,
            } => {
                self.patch(*namespace, name, json!({ "image": image_spec(*image) }))
                    .await?
            }
            Operation::Scale {
                namespace,
                name,
                replicas,
            } => {
                self.patch(*namespace, name, json!({ "replicas": replicas }))
                    .await?
            }
            Operation::SetAutoscaling {
                namespace,
                name,
                enabled,
            } => {
                self.patch(
                    *namespace,
                    name,
                    json!({ "autoscaling": autoscaling(*enabled) }),
                )
                .await?
            }
            Operation::SetNetworkPolicy {
                namespace,
                name,
                enabled,
            } => {
                let policy = network_policy(*enabled);
                self.patch(*namespace, name, json!({ "networkPolicy": policy }))
                    .await?
            }
            Operation::RotateSecret { namespace, secret } => {
                let value = self.next_value();
                self.secrets(*namespace)?
                    .patch(
                        secret,
                        &PatchParams::default(),
                        &Patch::Merge(
                            json!({ "data": { SECRET_KEY: ByteString(value.into_bytes()) } }),
                        ),
                    )
                    .await?;
            }
            Operation::DeleteSecret { namespace, secret } => {
                self.secrets(*namespace)?
                    .delete(secret, &DeleteParams::default())
                    .await?;
            }
            Operation::CreateSecret { namespace, secret } => {
                self.create_secret(*namespace, secret).await?;
            }
        }
        Ok(())
    }

    fn next_value(&mut self) -> String {
        self.values += 1;
        sentinel::value(self.seed, self.values)
    }

    async fn create_secret(&mut self, namespace: usize, name: &str) -> Result<(), BoxError> {
        let value = self.next_value();
        let secret = Secret {
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                ..ObjectMeta::default()
            },
            data: Some(BTreeMap::from([(
                SECRET_KEY.to_string(),
                ByteString(value.into_bytes()),
            )])),
            type_: Some("Opaque".into()),
            ..Secret::default()
        };
        self.secrets(namespace)?
            .create(&PostParams::default(), &secret)
            .await?;
        Ok(())
    }

    async fn patch(&self, namespace: usize, name: &str, spec: Value) -> Result<(), BoxError> {
        self.runtimes(namespace)?
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "spec": spec })),
            )
            .await?;
        Ok(())
    }

    fn runtimes(&self, namespace: usize) -> Result<Api<TrussiumRuntime>, BoxError> {
        Ok(Api::namespaced(
            self.admin.clone(),
            self.namespace(namespace)?,
        ))
    }

    fn secrets(&self, namespace: usize) -> Result<Api<Secret>, BoxError> {
        Ok(Api::namespaced(
            self.admin.clone(),
            self.namespace(namespace)?,
        ))
    }
}

/// A runtime as a platform team would write it. A CPU request always, so
/// that autoscaling can be switched on.
fn manifest(name: &str, spec: &RuntimeSpec) -> Value {
    let provider = match spec.secret {
        Some(secret) => json!({
            "type": "openai", "model": "gpt-5",
            "credentialsSecretRef": { "name": secret, "key": SECRET_KEY },
        }),
        None => json!({ "type": "ollama", "model": "llama3.2" }),
    };
    json!({
        "apiVersion": "runtime.trussium.io/v1beta1",
        "kind": "TrussiumRuntime",
        "metadata": { "name": name },
        "spec": {
            "image": image_spec(spec.image),
            "replicas": spec.replicas,
            "provider": provider,
            "resources": { "requests": { "cpu": "50m" } },
            "autoscaling": autoscaling(spec.autoscaling),
            "networkPolicy": network_policy(spec.network_policy),
        },
    })
}

fn image_spec(image: Image) -> Value {
    match image {
        Image::Tag(tag) => json!({ "repository": REPOSITORY, "tag": tag }),
        Image::NeverReady => {
            let (repository, tag) = NEVER_READY_IMAGE
                .rsplit_once(':')
                .unwrap_or((NEVER_READY_IMAGE, "latest"));
            json!({ "repository": repository, "tag": tag })
        }
    }
}

fn autoscaling(enabled: bool) -> Value {
    json!({ "enabled": enabled, "minReplicas": 1, "maxReplicas": 3 })
}

fn network_policy(enabled: bool) -> Value {
    if enabled {
        json!({ "enabled": true, "ingress": [
            { "namespaceSelector": { "matchLabels": { "kubernetes.io/metadata.name": "clients" } } },
        ]})
    } else {
        json!({ "enabled": false })
    }
}
