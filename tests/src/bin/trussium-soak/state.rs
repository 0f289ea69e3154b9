//! Whether a soak namespace is what its runtimes' specs say, read from the
//! API server: each runtime's status is the one its spec, its Secrets and
//! its Deployment call for (the operator's own projection of them: what it
//! would write if it looked now is what it wrote), every owned object is
//! what the operator builds from the spec, and every owned object belongs
//! to a runtime that exists (none orphaned, none owned by another).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::ListParams;
use kube::{Api, Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use trussium_api::labels::{MANAGED_BY, MANAGED_BY_VALUE};
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus};
use trussium_operator::pure::config::OperatorConfig;
use trussium_operator::pure::drift::needs_apply;
use trussium_operator::pure::references::{ReferenceCheck, check_references};
use trussium_operator::pure::resources::{BuildContext, build};
use trussium_operator::pure::status::{StatusInput, project, semantically_equal};

use trussium_e2e::BoxError;

/// One namespace as listed now.
pub struct Observed {
    pub namespace: String,
    pub runtimes: Vec<TrussiumRuntime>,
    /// Secret name → resourceVersion.
    pub secrets: BTreeMap<String, String>,
    pub config_maps: Vec<ConfigMap>,
    pub service_accounts: Vec<ServiceAccount>,
    pub services: Vec<Service>,
    pub deployments: Vec<Deployment>,
    pub pod_disruption_budgets: Vec<PodDisruptionBudget>,
    pub network_policies: Vec<NetworkPolicy>,
    pub horizontal_pod_autoscalers: Vec<HorizontalPodAutoscaler>,
}

impl Observed {
    pub async fn list(admin: &Client, namespace: &str) -> Result<Observed, BoxError> {
        let owned = ListParams::default().labels(&format!("{MANAGED_BY}={MANAGED_BY_VALUE}"));
        async fn all<K>(
            admin: &Client,
            namespace: &str,
            params: &ListParams,
        ) -> Result<Vec<K>, BoxError>
        where
            K: Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
                + Clone
                + DeserializeOwned
                + std::fmt::Debug,
        {
            Ok(Api::<K>::namespaced(admin.clone(), namespace)
                .list(params)
                .await?
                .items)
        }
        let secrets = Api::<Secret>::namespaced(admin.clone(), namespace)
            .list_metadata(&ListParams::default())
            .await?
            .items
            .into_iter()
            .map(|s| (s.name_any(), s.resource_version().unwrap_or_default()))
            .collect();
        Ok(Observed {
            namespace: namespace.to_string(),
            runtimes: all(admin, namespace, &ListParams::default()).await?,
            secrets,
            config_maps: all(admin, namespace, &owned).await?,
            service_accounts: all(admin, namespace, &owned).await?,
            services: all(admin, namespace, &owned).await?,
            deployments: all(admin, namespace, &owned).await?,
            pod_disruption_budgets: all(admin, namespace, &owned).await?,
            network_policies: all(admin, namespace, &owned).await?,
            horizontal_pod_autoscalers: all(admin, namespace, &owned).await?,
        })
    }

    /// What is not as it should be, one line each, naming the runtime.
    pub fn problems(&self, config: &OperatorConfig) -> Vec<String> {
        let mut problems = Vec::new();
        for rt in &self.runtimes {
            if rt.metadata.deletion_timestamp.is_none() {
                problems.extend(
                    self.runtime_problems(rt, config)
                        .into_iter()
                        .map(|p| format!("runtime {}/{}: {p}", self.namespace, rt.name_any())),
                );
            }
        }
        problems.extend(self.ownership_problems());
        problems
    }

    fn runtime_problems(&self, rt: &TrussiumRuntime, config: &OperatorConfig) -> Vec<String> {
        let name = rt.name_any();
        let deployment = self.deployments.iter().find(|d| d.name_any() == name);
        let references = check_references(rt, |secret| Ok(self.secrets.get(secret).cloned()));
        let Some(stored) = rt.status.as_ref() else {
            return vec!["has no status".into()];
        };
        let mut problems = Vec::new();
        if stored.observed_generation != rt.metadata.generation {
            problems.push(format!(
                "its status is for generation {:?}, the spec is generation {:?}",
                stored.observed_generation, rt.metadata.generation
            ));
        }
        let projected = project(&StatusInput {
            runtime: rt,
            deployment,
            references: &references,
            reconcile_error: None,
            stall: None,
            config,
            // The soak runs one operator build: nothing waits for a turn.
            waiting: None,
            now: k8s_openapi::jiff::Timestamp::now(),
        });
        if !semantically_equal(stored, &projected) {
            problems.push(format!(
                "its status is not what its spec, Secrets and Deployment say: {}",
                status_difference(stored, &projected)
            ));
        }
        // A missing Secret blocks every write: the objects stay as they were.
        let ReferenceCheck::Resolved { versions } = &references else {
            return problems;
        };
        let context = BuildContext {
            config,
            secret_versions: versions,
            observed_replicas: deployment.and_then(|d| d.spec.as_ref()?.replicas),
        };
        let desired = match build(rt, &context) {
            Ok(desired) => desired,
            Err(err) => {
                problems.push(format!("the operator cannot build its objects: {err}"));
                return problems;
            }
        };
        let mut differs = |kind: &str, problem: Option<String>| {
            if let Some(problem) = problem {
                problems.push(format!("its {kind} {problem}"));
            }
        };
        differs(
            "ConfigMap",
            compare(Some(&desired.config_map), &self.config_maps, rt),
        );
        differs(
            "ServiceAccount",
            compare(Some(&desired.service_account), &self.service_accounts, rt),
        );
        differs(
            "Service",
            compare(Some(&desired.service), &self.services, rt),
        );
        differs(
            "Deployment",
            compare(Some(&desired.deployment), &self.deployments, rt),
        );
        differs(
            "PodDisruptionBudget",
            compare(
                Some(&desired.pod_disruption_budget),
                &self.pod_disruption_budgets,
                rt,
            ),
        );
        differs(
            "NetworkPolicy",
            compare(desired.network_policy.as_ref(), &self.network_policies, rt),
        );
        differs(
            "HorizontalPodAutoscaler",
            compare(
                desired.horizontal_pod_autoscaler.as_ref(),
                &self.horizontal_pod_autoscalers,
                rt,
            ),
        );
        problems
    }

    /// Every owned object has exactly one owner: the existing runtime of
    /// its name, as controller.
    fn ownership_problems(&self) -> Vec<String> {
        let metas = self
            .config_maps
            .iter()
            .map(|o| ("ConfigMap", o.meta()))
            .chain(
                self.service_accounts
                    .iter()
                    .map(|o| ("ServiceAccount", o.meta())),
            )
            .chain(self.services.iter().map(|o| ("Service", o.meta())))
            .chain(self.deployments.iter().map(|o| ("Deployment", o.meta())))
            .chain(
                self.pod_disruption_budgets
                    .iter()
                    .map(|o| ("PodDisruptionBudget", o.meta())),
            )
            .chain(
                self.network_policies
                    .iter()
                    .map(|o| ("NetworkPolicy", o.meta())),
            )
            .chain(
                self.horizontal_pod_autoscalers
                    .iter()
                    .map(|o| ("HorizontalPodAutoscaler", o.meta())),
            );
        metas
            .filter_map(|(kind, meta)| {
                owner_problem(meta, &self.runtimes).map(|problem| {
                    format!(
                        "{kind} {}/{}: {problem}",
                        self.namespace,
                        meta.name.as_deref().unwrap_or_default()
                    )
                })
            })
            .collect()
    }
}

/// Why `meta` is not owned as an object of the runtime of its name is.
fn owner_problem(meta: &ObjectMeta, runtimes: &[TrussiumRuntime]) -> Option<String> {
    let owners = meta.owner_references.as_deref().unwrap_or_default();
    let [owner] = owners else {
        return Some(format!("has {} owner references, not one", owners.len()));
    };
    if owner.kind != "TrussiumRuntime" || owner.controller != Some(true) {
        return Some(format!("is controlled by {} {}", owner.kind, owner.name));
    }
    match runtimes
        .iter()
        .find(|rt| rt.uid().as_deref() == Some(&owner.uid))
    {
        None => Some(format!(
            "is orphaned: its runtime {} ({}) is gone",
            owner.name, owner.uid
        )),
        Some(rt) if rt.name_any() != meta.name.clone().unwrap_or_default() => Some(format!(
            "is owned by runtime {}, not the one of its name",
            rt.name_any()
        )),
        Some(_) => None,
    }
}

/// Why the runtime's live object of this kind is not `desired` (`None`:
/// there must be none).
fn compare<K>(desired: Option<&K>, live: &[K], rt: &TrussiumRuntime) -> Option<String>
where
    K: Resource + Serialize,
{
    let name = rt.name_any();
    let found = live
        .iter()
        .find(|o| o.meta().name.as_deref() == Some(&name));
    match (desired, found) {
        (Some(_), None) => Some("is missing".into()),
        (Some(desired), Some(live)) => {
            needs_apply(desired, live).map(|path| format!("differs from the spec at {path}"))
        }
        (None, Some(live))
            if live
                .meta()
                .owner_references
                .iter()
                .flatten()
                .any(|o| rt.uid().as_deref() == Some(&o.uid)) =>
        {
            Some("is still there, although the spec no longer asks for it".into())
        }
        (None, _) => None,
    }
}

/// The fields in which two statuses differ, for a message.
fn status_difference(stored: &TrussiumRuntimeStatus, projected: &TrussiumRuntimeStatus) -> String {
    let (Ok(a), Ok(b)) = (
        serde_json::to_value(stored),
        serde_json::to_value(projected),
    ) else {
        return "(not comparable)".into();
    };
    let mut fields = Vec::new();
    for key in [
        "observedGeneration",
        "desiredReplicas",
        "readyReplicas",
        "availableReplicas",
        "desiredImage",
        "currentImage",
        "lastSuccessfulImage",
        "endpoint",
        "observedTemplateHash",
    ] {
        if a.get(key) != b.get(key) {
            fields.push(format!(
                "{key} {} (should be {})",
                show(a.get(key)),
                show(b.get(key))
            ));
        }
    }
    for condition in &projected.conditions {
        let stored = stored.condition(&condition.type_);
        let same = stored.is_some_and(|s| {
            s.status == condition.status
                && s.reason == condition.reason
                && s.message == condition.message
                && s.observed_generation == condition.observed_generation
        });
        if !same {
            fields.push(format!(
                "{} {} (should be {}/{}: {})",
                condition.type_,
                stored.map_or("absent".to_string(), |s| format!(
                    "{}/{}",
                    s.status, s.reason
                )),
                condition.status,
                condition.reason,
                condition.message
            ));
        }
    }
    if fields.is_empty() {
        "a transition time".into()
    } else {
        fields.join("; ")
    }
}

fn show(value: Option<&serde_json::Value>) -> String {
    value.map_or("absent".into(), ToString::to_string)
}
