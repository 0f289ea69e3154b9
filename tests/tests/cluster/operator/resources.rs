//! The operator turns each TrussiumRuntime into its owned objects, with the
//! content the contract asks for, against the real API server and KWOK.
//!
//! Each test runs its own operator (as the operator's ServiceAccount, never as
//! admin) in its own namespace.

use std::collections::BTreeMap;
use std::time::Duration;

use super::support::{
    PROGRESS_DEADLINE_ARG, assert_operator_labels, assert_owned_by, at, json_of, operator_labels,
    selector_labels,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::ResourceExt;
use kube::api::{DeleteParams, ListParams, ObjectMeta, Patch, PatchParams};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    BoxError, CONVERGE, Harness, NEVER_READY_IMAGE, TestResult, condition_summary,
    deployment_condition, holds_for, minimal, sample, wait_for, with_operator,
};

const CONFIG_HASH: &str = "runtime.trussium.io/config-hash";
const APPLIED_HASH: &str = "runtime.trussium.io/applied-hash";

/// The owned objects every runtime has, fetched once they all exist.
struct Owned {
    config_map: ConfigMap,
    service_account: ServiceAccount,
    service: Service,
    deployment: Deployment,
    pod_disruption_budget: PodDisruptionBudget,
}

async fn owned(h: &Harness, name: &str) -> Result<Owned, BoxError> {
    Ok(Owned {
        config_map: h.wait_exists("the ConfigMap", name).await?,
        service_account: h.wait_exists("the ServiceAccount", name).await?,
        service: h.wait_exists("the Service", name).await?,
        deployment: h.wait_exists("the Deployment", name).await?,
        pod_disruption_budget: h.wait_exists("the PodDisruptionBudget", name).await?,
    })
}

/// Name, namespace, labels, owner and applied hash shared by every owned object.
fn assert_common(meta: &kube::api::ObjectMeta, rt: &TrussiumRuntime, what: &str) {
    assert_eq!(meta.name, rt.metadata.name, "name of {what}");
    assert_eq!(meta.namespace, rt.metadata.namespace, "namespace of {what}");
    assert_operator_labels(meta, &rt.name_any(), what);
    assert_owned_by(meta, rt, what);
    let hash = meta
        .annotations
        .as_ref()
        .and_then(|a| a.get(APPLIED_HASH))
        .cloned()
        .unwrap_or_default();
    assert!(
        hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "applied hash of {what}: {hash:?}"
    );
}

fn assert_all_common(o: &Owned, rt: &TrussiumRuntime) {
    assert_common(&o.config_map.metadata, rt, "the ConfigMap");
    assert_common(&o.service_account.metadata, rt, "the ServiceAccount");
    assert_common(&o.service.metadata, rt, "the Service");
    assert_common(&o.deployment.metadata, rt, "the Deployment");
    assert_common(
        &o.pod_disruption_budget.metadata,
        rt,
        "the PodDisruptionBudget",
    );
}

fn topology_spread(name: &str) -> Value {
    json!([
        {
            "topologyKey": "kubernetes.io/hostname",
            "maxSkew": 1,
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": selector_labels(name)},
        },
        {
            "topologyKey": "topology.kubernetes.io/zone",
            "maxSkew": 1,
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": selector_labels(name)},
        },
    ])
}

fn restricted_container_security_context() -> Value {
    json!({
        "allowPrivilegeEscalation": false,
        "capabilities": {"drop": ["ALL"]},
        "readOnlyRootFilesystem": true,
        "runAsNonRoot": true,
    })
}

/// The parts of the Deployment every runtime shares.
fn assert_deployment_basics(d: &Value, name: &str) {
    assert_eq!(
        at(d, "/spec/selector"),
        &json!({"matchLabels": selector_labels(name)})
    );
    assert_eq!(at(d, "/spec/progressDeadlineSeconds"), &json!(10));
    assert_eq!(
        at(d, "/spec/strategy"),
        &json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}})
    );
    let pod = at(d, "/spec/template/spec");
    assert_eq!(pod["serviceAccountName"], json!(name));
    assert_eq!(pod["automountServiceAccountToken"], json!(false));
    assert_eq!(pod["enableServiceLinks"], json!(false));
    assert_eq!(
        pod["securityContext"],
        json!({"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}})
    );
    assert_eq!(pod["topologySpreadConstraints"], topology_spread(name));
    assert_eq!(pod["volumes"], json!([{"name": "tmp", "emptyDir": {}}]));
    let containers = pod["containers"].as_array().cloned().unwrap_or_default();
    assert_eq!(containers.len(), 1, "one container: {containers:?}");
    let c = &containers[0];
    assert_eq!(c["name"], json!("runtime"));
    assert_eq!(
        c["ports"],
        json!([{"name": "http", "containerPort": 9000, "protocol": "TCP"}])
    );
    assert_eq!(c["envFrom"], json!([{"configMapRef": {"name": name}}]));
    assert_eq!(
        c["securityContext"],
        restricted_container_security_context()
    );
    assert_eq!(
        c["volumeMounts"],
        json!([{"name": "tmp", "mountPath": "/tmp"}])
    );
    assert_eq!(
        at(c, "/readinessProbe/tcpSocket"),
        &json!({"port": "http"}),
        "readiness probe"
    );
    let hash = at(d, "/spec/template/metadata/annotations")[CONFIG_HASH]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "config hash: {hash:?}"
    );
}

fn assert_service(s: &Value, name: &str, type_: &str, port: i64) {
    assert_eq!(at(s, "/spec/type"), &json!(type_));
    assert_eq!(at(s, "/spec/selector"), &selector_labels(name));
    let ports = at(s, "/spec/ports").as_array().cloned().unwrap_or_default();
    assert_eq!(ports.len(), 1, "one port: {ports:?}");
    assert_eq!(ports[0]["name"], json!("http"));
    assert_eq!(ports[0]["protocol"], json!("TCP"));
    assert_eq!(ports[0]["port"], json!(port));
    assert_eq!(ports[0]["targetPort"], json!(9000));
}

fn assert_pdb(p: &Value, name: &str) {
    assert_eq!(
        at(p, "/spec"),
        &json!({"maxUnavailable": 1, "selector": {"matchLabels": selector_labels(name)}}),
    );
}

async fn assert_absent<K>(h: &Harness, name: &str, what: &str) -> TestResult
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + std::fmt::Debug
        + serde::de::DeserializeOwned,
    <K as kube::Resource>::DynamicType: Default,
{
    let found = h.api::<K>().get_opt(name).await?;
    assert!(found.is_none(), "{what} should not exist: {found:?}");
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn minimal_sample_owns_every_object_with_the_right_content() -> TestResult {
    with_operator("op-minimal", &[PROGRESS_DEADLINE_ARG], async |h| {
        let created = h.create_runtime(sample("minimal")?).await?;
        let name = created.name_any();
        let rt = h.wait_ready(&name).await?;
        let o = owned(h, &name).await?;
        assert_all_common(&o, &rt);

        assert_eq!(
            o.config_map.data,
            Some(BTreeMap::from([
                ("TRUSSIUM_PROVIDER_TYPE".into(), "ollama".into()),
                ("TRUSSIUM_PROVIDER_MODEL".into(), "llama3.2".into()),
                (
                    "TRUSSIUM_PROVIDER_BASE_URL".into(),
                    "http://ollama.ollama.svc.cluster.local:11434/v1".into()
                ),
            ])),
            "ConfigMap data: the provider only, no unset override"
        );
        assert_eq!(
            o.service_account.automount_service_account_token,
            Some(false)
        );
        assert_service(&json_of(&o.service)?, &name, "ClusterIP", 9000);
        assert_pdb(&json_of(&o.pod_disruption_budget)?, &name);

        let d = json_of(&o.deployment)?;
        assert_deployment_basics(&d, &name);
        assert_eq!(at(&d, "/spec/replicas"), &json!(1));
        let template = at(&d, "/spec/template");
        assert_eq!(
            at(template, "/metadata/labels"),
            &json_of(&operator_labels(&name))?
        );
        let annotations = at(template, "/metadata/annotations");
        assert_eq!(
            annotations.as_object().map(|a| a.len()),
            Some(1),
            "only the config hash: {annotations}"
        );
        let pod = &template["spec"];
        assert_eq!(pod["terminationGracePeriodSeconds"], json!(30));
        for absent in [
            "imagePullSecrets",
            "nodeSelector",
            "tolerations",
            "affinity",
        ] {
            assert!(pod.get(absent).is_none(), "{absent}: {}", pod[absent]);
        }
        let c = &pod["containers"][0];
        assert_eq!(c["image"], json!("ghcr.io/trussiumhq/trussium:v1.22.0"));
        assert_eq!(c["imagePullPolicy"], json!("IfNotPresent"));
        assert!(c.get("env").is_none(), "no credential: {}", c["env"]);
        assert_eq!(c["resources"], json!({}));

        // The optional kinds stay away while their features are off.
        assert_absent::<NetworkPolicy>(h, &name, "a NetworkPolicy").await?;
        assert_absent::<HorizontalPodAutoscaler>(h, &name, "an HPA").await?;

        // Status, loosely (the status tests check it in depth).
        let status = rt.status.clone().unwrap_or_default();
        assert_eq!(status.ready_replicas, Some(1));
        assert_eq!(status.desired_replicas, Some(1));
        assert_eq!(
            status.endpoint.as_deref(),
            Some(format!("http://{name}.{}.svc.cluster.local:9000", h.namespace()).as_str())
        );
        assert_eq!(
            status.current_image.as_deref(),
            Some("ghcr.io/trussiumhq/trussium:v1.22.0")
        );
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn openai_sample_takes_its_credential_from_the_secret_by_reference() -> TestResult {
    with_operator("op-openai", &[PROGRESS_DEADLINE_ARG], async |h| {
        let value = format!("sk-openai-{}", h.namespace());
        h.create_secret("openai-credentials", "api-key", &value)
            .await?;
        let created = h.create_runtime(sample("openai")?).await?;
        let name = created.name_any();
        let rt = h.wait_ready(&name).await?;
        let o = owned(h, &name).await?;
        assert_all_common(&o, &rt);

        assert_eq!(
            o.config_map.data,
            Some(BTreeMap::from([
                ("TRUSSIUM_PROVIDER_TYPE".into(), "openai".into()),
                ("TRUSSIUM_PROVIDER_MODEL".into(), "gpt-5".into()),
            ])),
            "no baseURL, no override: only what the spec sets"
        );
        let d = json_of(&o.deployment)?;
        assert_deployment_basics(&d, &name);
        assert_eq!(at(&d, "/spec/replicas"), &json!(2));
        assert_eq!(
            at(&d, "/spec/template/spec/containers/0/env"),
            &json!([{
                "name": "TRUSSIUM_PROVIDER_API_KEY",
                "valueFrom": {"secretKeyRef": {"name": "openai-credentials", "key": "api-key"}},
            }])
        );
        assert_eq!(rt.status.as_ref().and_then(|s| s.ready_replicas), Some(2));

        // The value is nowhere in what the operator wrote.
        for (what, text) in [
            ("ConfigMap", serde_json::to_string(&o.config_map)?),
            ("Deployment", serde_json::to_string(&o.deployment)?),
            ("Service", serde_json::to_string(&o.service)?),
            ("ServiceAccount", serde_json::to_string(&o.service_account)?),
            ("status", serde_json::to_string(&rt.status)?),
        ] {
            assert!(
                !text.contains(&value),
                "the credential leaked into the {what}"
            );
        }
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn full_sample_passes_every_field_through() -> TestResult {
    with_operator("op-full", &[PROGRESS_DEADLINE_ARG], async |h| {
        h.create_secret("openai-credentials", "api-key", "sk-full")
            .await?;
        h.create_secret("ghcr-credentials", ".dockerconfigjson", "{}")
            .await?;
        let created = h.create_runtime(sample("full")?).await?;
        let name = created.name_any();
        // The sample's nodeSelector (workload=ai) matches no KWOK node: its
        // pods stay Pending, so wait for the objects, not for readiness.
        let o = owned(h, &name).await?;
        let rt = h.runtimes().get(&name).await?;
        assert_all_common(&o, &rt);

        assert_eq!(
            o.config_map.data,
            Some(BTreeMap::from([
                ("TRUSSIUM_PROVIDER_TYPE".into(), "openai".into()),
                ("TRUSSIUM_PROVIDER_MODEL".into(), "gpt-5".into()),
                (
                    "TRUSSIUM_PROVIDER_BASE_URL".into(),
                    "https://api.openai.com/v1".into()
                ),
                (
                    "TRUSSIUM_PROVIDER_REQUEST_TIMEOUT_SECONDS".into(),
                    "60".into()
                ),
                ("TRUSSIUM_STREAM_IDLE_TIMEOUT_SECONDS".into(), "30".into()),
                ("TRUSSIUM_SHUTDOWN_DRAIN_TIMEOUT_SECONDS".into(), "45".into()),
            ]))
        );
        assert_eq!(o.service_account.automount_service_account_token, Some(false));
        let s = json_of(&o.service)?;
        assert_service(&s, &name, "NodePort", 8080);
        assert!(
            at(&s, "/spec/ports/0/nodePort").is_i64(),
            "the API server allocates the node port"
        );
        assert_pdb(&json_of(&o.pod_disruption_budget)?, &name);

        let d = json_of(&o.deployment)?;
        assert_deployment_basics(&d, &name);
        // Autoscaling 2..10 starting from spec.replicas 2.
        assert_eq!(at(&d, "/spec/replicas"), &json!(2));
        let template = at(&d, "/spec/template");
        let mut labels = operator_labels(&name);
        labels.insert("team".into(), "ai-platform".into());
        assert_eq!(at(template, "/metadata/labels"), &json_of(&labels)?);
        let annotations = at(template, "/metadata/annotations");
        assert_eq!(annotations["example.com/owner"], json!("inference"));
        assert_eq!(annotations.as_object().map(|a| a.len()), Some(2));
        let pod = &template["spec"];
        assert_eq!(pod["imagePullSecrets"], json!([{"name": "ghcr-credentials"}]));
        assert_eq!(pod["nodeSelector"], json!({"workload": "ai"}));
        assert_eq!(
            pod["tolerations"],
            json!([{"key": "workload", "operator": "Equal", "value": "ai", "effect": "NoSchedule"}])
        );
        assert_eq!(
            pod["affinity"],
            json!({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                "weight": 100,
                "podAffinityTerm": {
                    "topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchLabels": {"app.kubernetes.io/instance": "inference"}},
                },
            }]}})
        );
        // The default spread stays next to the user's affinity.
        assert_eq!(pod["topologySpreadConstraints"], topology_spread(&name));
        // shutdownDrainTimeoutSeconds 45 plus time to exit.
        assert_eq!(pod["terminationGracePeriodSeconds"], json!(50));
        let c = &pod["containers"][0];
        assert_eq!(c["image"], json!("ghcr.io/trussiumhq/trussium:v1.22.0"));
        assert_eq!(c["imagePullPolicy"], json!("IfNotPresent"));
        assert_eq!(
            c["resources"],
            json!({"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}})
        );
        assert_eq!(
            c["env"],
            json!([{
                "name": "TRUSSIUM_PROVIDER_API_KEY",
                "valueFrom": {"secretKeyRef": {"name": "openai-credentials", "key": "api-key"}},
            }])
        );

        let np: NetworkPolicy = h
            .wait_exists("the NetworkPolicy", &name)
            .await?;
        assert_common(&np.metadata, &rt, "the NetworkPolicy");
        assert_eq!(
            at(&json_of(&np)?, "/spec"),
            &json!({
                "podSelector": {"matchLabels": selector_labels(&name)},
                "policyTypes": ["Ingress"],
                "ingress": [{
                    "from": [{
                        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}},
                        "podSelector": {"matchLabels": {"app.kubernetes.io/component": "gateway"}},
                    }],
                    "ports": [{"protocol": "TCP", "port": 9000}],
                }],
            })
        );

        let hpa: HorizontalPodAutoscaler = h
            .wait_exists("the HPA", &name)
            .await?;
        assert_common(&hpa.metadata, &rt, "the HPA");
        assert_eq!(
            at(&json_of(&hpa)?, "/spec"),
            &json!({
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                "minReplicas": 2,
                "maxReplicas": 10,
                "metrics": [{
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
                }],
            })
        );
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn never_ready_image_never_becomes_available_and_is_reported() -> TestResult {
    with_operator("op-never-ready", &[PROGRESS_DEADLINE_ARG], async |h| {
        let (repository, tag) = NEVER_READY_IMAGE
            .rsplit_once(':')
            .ok_or("NEVER_READY_IMAGE has no tag")?;
        let rt = h
            .create_runtime(minimal(
                "stuck",
                json!({"image": {"repository": repository, "tag": tag}}),
            )?)
            .await?;
        let name = rt.name_any();
        let deployments = h.api::<Deployment>();
        let summary = |d: &Deployment, type_: &str| {
            deployment_condition(d, type_)
                .map(|c| format!("{}/{}", c.status, c.reason.clone().unwrap_or_default()))
        };

        // Never available, until the deadline declares the rollout failed.
        let failed = wait_for(
            "the Deployment to exceed its progress deadline",
            CONVERGE,
            async || {
                let Some(d) = deployments.get_opt(&name).await? else {
                    return Ok(None);
                };
                let available = d.status.as_ref().and_then(|s| s.available_replicas);
                assert!(
                    available.unwrap_or(0) == 0,
                    "a never-ready pod counted as available: {:?}",
                    d.status
                );
                Ok((summary(&d, "Progressing").as_deref()
                    == Some("False/ProgressDeadlineExceeded"))
                .then_some(d))
            },
        )
        .await?;
        assert_eq!(
            summary(&failed, "Available").as_deref(),
            Some("False/MinimumReplicasUnavailable")
        );
        assert_eq!(
            at(&json_of(&failed)?, "/spec/template/spec/containers/0/image"),
            &json!(NEVER_READY_IMAGE)
        );

        // The runtime says so.
        let reported = h
            .wait_condition(&name, "Degraded", "True", None, CONVERGE)
            .await?;
        assert_eq!(
            condition_summary(&reported, "Ready").split('/').next(),
            Some("False")
        );
        assert_eq!(
            condition_summary(&reported, "Available"),
            "False/RuntimeUnavailable"
        );
        assert_eq!(
            reported.status.as_ref().and_then(|s| s.ready_replicas),
            Some(0)
        );
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn network_policy_follows_enabled_on_and_off() -> TestResult {
    with_operator("op-netpol", &[PROGRESS_DEADLINE_ARG], async |h| {
        let ingress = json!([
            {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}},
                "podSelector": {"matchLabels": {"role": "gateway"}},
            },
            {
                "namespaceSelector": {"matchExpressions": [
                    {"key": "team", "operator": "In", "values": ["ai", "ml"]},
                ]},
            },
        ]);
        let rt = h
            .create_runtime(minimal(
                "guarded",
                json!({"networkPolicy": {"enabled": true, "ingress": ingress}}),
            )?)
            .await?;
        let name = rt.name_any();
        let rt = h.wait_ready(&name).await?;
        let np: NetworkPolicy = h.wait_exists("the NetworkPolicy", &name).await?;
        assert_common(&np.metadata, &rt, "the NetworkPolicy");
        let port = json!([{"protocol": "TCP", "port": 9000}]);
        assert_eq!(
            at(&json_of(&np)?, "/spec"),
            &json!({
                "podSelector": {"matchLabels": selector_labels(&name)},
                "policyTypes": ["Ingress"],
                "ingress": [
                    {"from": [ingress[0].clone()], "ports": port},
                    {"from": [ingress[1].clone()], "ports": port},
                ],
            })
        );

        // Off: removed.
        h.patch_spec(&name, json!({"networkPolicy": {"enabled": false}}))
            .await?;
        h.wait_gone::<NetworkPolicy>("the NetworkPolicy to be removed", &name, CONVERGE)
            .await?;
        h.wait_ready(&name).await?;
        // And it stays away.
        let policies = h.api::<NetworkPolicy>();
        holds_for("no NetworkPolicy", Duration::from_secs(3), async || {
            Ok(policies
                .get_opt(&name)
                .await?
                .map(|np| format!("it came back: {np:?}")))
        })
        .await?;

        // On again: back, with the same rules.
        h.patch_spec(&name, json!({"networkPolicy": {"enabled": true}}))
            .await?;
        let again: NetworkPolicy = h
            .wait_exists("the NetworkPolicy to come back", &name)
            .await?;
        assert_eq!(
            at(&json_of(&again)?, "/spec/ingress"),
            at(&json_of(&np)?, "/spec/ingress")
        );
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn pod_metadata_reserved_labels_are_refused_and_the_rest_reaches_the_pods() -> TestResult {
    with_operator("op-podmeta", &[PROGRESS_DEADLINE_ARG], async |h| {
        // Refused at the API server, on create...
        for (field, key) in [
            ("labels", "app.kubernetes.io/name"),
            ("labels", "app.kubernetes.io/instance"),
            ("labels", "app.kubernetes.io/managed-by"),
            ("labels", "app.kubernetes.io/component"),
            ("labels", "runtime.trussium.io/config-hash"),
            ("annotations", "runtime.trussium.io/config-hash"),
        ] {
            let manifest = minimal("refused", json!({"podMetadata": {field: {key: "mine"}}}))?;
            let err = h
                .create_runtime(manifest)
                .await
                .err()
                .ok_or(format!("podMetadata.{field} {key} was accepted"))?;
            let text = err.to_string();
            assert!(
                text.contains(&format!("podMetadata.{field} must not set operator-owned")),
                "podMetadata.{field} {key}: {text}"
            );
        }

        // ...and on update of a running runtime, which keeps its Deployment.
        let rt = h
            .create_runtime(minimal(
                "labelled",
                json!({
                    "replicas": 2,
                    "podMetadata": {
                        "labels": {"team": "ai-platform", "example.com/tier": "gold"},
                        "annotations": {"example.com/owner": "inference", "prometheus.io/scrape": "true"},
                    },
                }),
            )?)
            .await?;
        let name = rt.name_any();
        h.wait_ready(&name).await?;
        let before: Deployment = h.api().get(&name).await?;
        let err = h
            .patch_spec(
                &name,
                json!({"podMetadata": {"labels": {"app.kubernetes.io/instance": "hijack"}}}),
            )
            .await
            .err()
            .ok_or("a reserved label was accepted on update")?;
        assert!(
            err.to_string()
                .contains("podMetadata.labels must not set operator-owned"),
            "{err}"
        );

        // User labels and annotations on the template, the operator's labels
        // with their own values.
        let mut labels = operator_labels(&name);
        labels.insert("team".into(), "ai-platform".into());
        labels.insert("example.com/tier".into(), "gold".into());
        let template = before.spec.clone().unwrap_or_default().template;
        let meta = template.metadata.unwrap_or_default();
        assert_eq!(meta.labels.as_ref(), Some(&labels));
        let annotations = meta.annotations.unwrap_or_default();
        assert_eq!(annotations.get("example.com/owner").map(String::as_str), Some("inference"));
        assert_eq!(annotations.get("prometheus.io/scrape").map(String::as_str), Some("true"));
        assert_eq!(annotations.len(), 3, "{annotations:?}");

        // The pods themselves carry them (read as the admin; the operator
        // has no Pod access).
        let pods = h
            .api::<Pod>()
            .list(&ListParams::default().labels(&format!("app.kubernetes.io/instance={name}")))
            .await?;
        assert_eq!(pods.items.len(), 2, "two runtime pods");
        for pod in &pods.items {
            let pod_labels = pod.labels();
            for (key, value) in &labels {
                assert_eq!(pod_labels.get(key), Some(value), "pod label {key}");
            }
            assert_eq!(
                pod.annotations().get("example.com/owner").map(String::as_str),
                Some("inference")
            );
        }
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn deleting_the_runtime_garbage_collects_everything() -> TestResult {
    with_operator("op-gc", &[PROGRESS_DEADLINE_ARG], async |h| {
        let rt = h
            .create_runtime(minimal(
                "doomed",
                json!({
                    "replicas": 2,
                    "resources": {"requests": {"cpu": "100m"}},
                    "networkPolicy": {"enabled": true, "ingress": [
                        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}},
                    ]},
                    "autoscaling": {"enabled": true, "minReplicas": 2, "maxReplicas": 4},
                }),
            )?)
            .await?;
        let name = rt.name_any();
        h.wait_ready(&name).await?;
        owned(h, &name).await?;
        h.wait_exists::<NetworkPolicy>("the NetworkPolicy", &name)
            .await?;
        h.wait_exists::<HorizontalPodAutoscaler>("the HPA", &name)
            .await?;

        // The default (background) deletion: the garbage collector follows
        // the owner references; nothing needs a finalizer.
        h.runtimes().delete(&name, &DeleteParams::default()).await?;
        h.wait_gone::<TrussiumRuntime>("the runtime to be deleted", &name, CONVERGE)
            .await?;
        assert_collected(h, &name).await?;
        let pods = h.api::<Pod>();
        wait_for("the runtime pods to be gone", CONVERGE, async || {
            let list = pods
                .list(&ListParams::default().labels(&format!("app.kubernetes.io/instance={name}")))
                .await?;
            Ok(list.items.is_empty().then_some(()))
        })
        .await?;

        // A foreground deletion works too, and while the runtime is being
        // deleted the operator leaves it to the garbage collector: it writes
        // nothing and rebuilds nothing. A finalizer of the test's own keeps
        // the runtime in that state long enough to watch. (Whether the
        // collector removes the dependents while the owner is held is its
        // own business: the owner references carry no blockOwnerDeletion, so
        // it may drop its foregroundDeletion finalizer first and wait for the
        // owner to go. Collection is asserted once the hold is released.)
        const HOLD: &str = "e2e.trussium.io/hold";
        let again = h
            .create_runtime(minimal(
                "doomed-again",
                json!({"networkPolicy": {"enabled": true, "ingress": [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}},
                ]}}),
            )?)
            .await?;
        let again_name = again.name_any();
        h.wait_ready(&again_name).await?;
        let (config_maps, accounts, services, deployments, budgets, policies) = (
            h.api::<ConfigMap>(),
            h.api::<ServiceAccount>(),
            h.api::<Service>(),
            h.api::<Deployment>(),
            h.api::<PodDisruptionBudget>(),
            h.api::<NetworkPolicy>(),
        );
        // The uid of each owned object now (an absent one counts as "").
        let uids = async || -> Result<Vec<String>, BoxError> {
            let uid = |m: Option<ObjectMeta>| m.and_then(|m| m.uid).unwrap_or_default();
            Ok(vec![
                uid(config_maps.get_opt(&again_name).await?.map(|o| o.metadata)),
                uid(accounts.get_opt(&again_name).await?.map(|o| o.metadata)),
                uid(services.get_opt(&again_name).await?.map(|o| o.metadata)),
                uid(deployments.get_opt(&again_name).await?.map(|o| o.metadata)),
                uid(budgets.get_opt(&again_name).await?.map(|o| o.metadata)),
                uid(policies.get_opt(&again_name).await?.map(|o| o.metadata)),
            ])
        };
        let before = uids().await?;
        let runtimes = h.runtimes();
        runtimes
            .patch(
                &again_name,
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"finalizers": [HOLD]}})),
            )
            .await?;
        let mark = h.mark();
        runtimes
            .delete(&again_name, &DeleteParams::foreground())
            .await?;
        holds_for("nothing rebuilt while the runtime is being deleted", Duration::from_secs(4), async || {
            let rt = runtimes.get(&again_name).await?;
            if rt.metadata.deletion_timestamp.is_none() {
                return Ok(Some("the runtime is not being deleted".into()));
            }
            let now = uids().await?;
            let rebuilt = now.iter().zip(&before).any(|(now, before)| !now.is_empty() && now != before);
            Ok(rebuilt.then(|| format!("an owned object was rebuilt: {before:?} -> {now:?}")))
        })
        .await?;
        let writes = h.operator_writes_since(&mark).await?;
        if !writes.is_empty() {
            return Err(format!("the operator wrote while the runtime was being deleted: {writes:?}").into());
        }
        let held = runtimes.get(&again_name).await?;
        let finalizers: Vec<String> = held
            .finalizers()
            .iter()
            .filter(|f| f.as_str() != HOLD)
            .cloned()
            .collect();
        runtimes
            .patch(
                &again_name,
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {
                    "finalizers": finalizers,
                    "resourceVersion": held.resource_version(),
                }})),
            )
            .await?;
        h.wait_gone::<TrussiumRuntime>("the second runtime to be deleted", &again_name, CONVERGE)
            .await?;
        assert_collected(h, &again_name).await?;
        Ok(())
    })
    .await
}

/// Every object the runtime `name` owned is gone.
async fn assert_collected(h: &Harness, name: &str) -> TestResult {
    h.wait_gone::<ConfigMap>("the ConfigMap to be collected", name, CONVERGE)
        .await?;
    h.wait_gone::<ServiceAccount>("the ServiceAccount to be collected", name, CONVERGE)
        .await?;
    h.wait_gone::<Service>("the Service to be collected", name, CONVERGE)
        .await?;
    h.wait_gone::<Deployment>("the Deployment to be collected", name, CONVERGE)
        .await?;
    h.wait_gone::<PodDisruptionBudget>("the PDB to be collected", name, CONVERGE)
        .await?;
    h.wait_gone::<NetworkPolicy>("the NetworkPolicy to be collected", name, CONVERGE)
        .await?;
    h.wait_gone::<HorizontalPodAutoscaler>("the HPA to be collected", name, CONVERGE)
        .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn configuration_changes_reach_the_config_map_and_roll_the_pods() -> TestResult {
    with_operator("op-config-change", &[PROGRESS_DEADLINE_ARG], async |h| {
        let rt = h
            .create_runtime(minimal(
                "tuned",
                json!({"runtime": {"shutdownDrainTimeoutSeconds": 90, "streamIdleTimeoutSeconds": 20}}),
            )?)
            .await?;
        let name = rt.name_any();
        h.wait_ready(&name).await?;
        let deployments = h.api::<Deployment>();
        let config_maps = h.api::<ConfigMap>();
        let config_hash = |d: &Deployment| {
            json_of(d).map(|d| at(&d, "/spec/template/metadata/annotations")[CONFIG_HASH].clone())
        };
        let first = deployments.get(&name).await?;
        let first_hash = config_hash(&first)?;
        let data = config_maps.get(&name).await?.data.unwrap_or_default();
        assert_eq!(data.get("TRUSSIUM_SHUTDOWN_DRAIN_TIMEOUT_SECONDS").map(String::as_str), Some("90"));
        assert_eq!(data.get("TRUSSIUM_STREAM_IDLE_TIMEOUT_SECONDS").map(String::as_str), Some("20"));
        assert_eq!(
            at(&json_of(&first)?, "/spec/template/spec/terminationGracePeriodSeconds"),
            &json!(95)
        );

        // A new model and one override unset: the ConfigMap loses the key
        // (back under the runtime release's control), the grace period
        // returns to its floor, and the pods roll.
        h.patch_spec(
            &name,
            json!({"provider": {"model": "llama3.3"}, "runtime": {"shutdownDrainTimeoutSeconds": null}}),
        )
        .await?;
        let updated = h
            .wait_object("the ConfigMap to change", &name, CONVERGE, |c: &ConfigMap| {
                c.data.as_ref().and_then(|d| d.get("TRUSSIUM_PROVIDER_MODEL")).map(String::as_str)
                    == Some("llama3.3")
            })
            .await?;
        assert_eq!(
            updated.data,
            Some(BTreeMap::from([
                ("TRUSSIUM_PROVIDER_TYPE".into(), "ollama".into()),
                ("TRUSSIUM_PROVIDER_MODEL".into(), "llama3.3".into()),
                (
                    "TRUSSIUM_PROVIDER_BASE_URL".into(),
                    "http://ollama.ollama.svc.cluster.local:11434/v1".into()
                ),
                ("TRUSSIUM_STREAM_IDLE_TIMEOUT_SECONDS".into(), "20".into()),
            ]))
        );
        let rolled = h
            .wait_object("the pod template to change", &name, CONVERGE, |d: &Deployment| {
                config_hash(d).is_ok_and(|h| h != first_hash)
            })
            .await?;
        assert_eq!(
            at(&json_of(&rolled)?, "/spec/template/spec/terminationGracePeriodSeconds"),
            &json!(30)
        );
        let hash = config_hash(&rolled)?;
        let pods = h.api::<Pod>();
        let selector = ListParams::default().labels(&format!("app.kubernetes.io/instance={name}"));
        wait_for("the pod to roll onto the new configuration", CONVERGE, async || {
            let list = pods.list(&selector).await?;
            let rolled = list.items.len() == 1
                && list.items.iter().all(|p| {
                    p.metadata.deletion_timestamp.is_none()
                        && p.annotations().get(CONFIG_HASH).map(|h| json!(h)) == Some(hash.clone())
                });
            Ok(rolled.then_some(()))
        })
        .await?;
        h.wait_ready(&name).await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn service_type_and_port_image_digest_and_pull_policy_follow_the_spec() -> TestResult {
    with_operator("op-service-image", &[PROGRESS_DEADLINE_ARG], async |h| {
        let digest = format!("sha256:{}", "0123456789abcdef".repeat(4));
        let rt = h
            .create_runtime(minimal(
                "pinned",
                json!({"image": {"tag": null, "digest": digest, "pullPolicy": "Always"}}),
            )?)
            .await?;
        let name = rt.name_any();
        let rt = h.wait_ready(&name).await?;
        let d = json_of(&h.api::<Deployment>().get(&name).await?)?;
        let image = format!("ghcr.io/trussiumhq/trussium@{digest}");
        assert_eq!(
            at(&d, "/spec/template/spec/containers/0/image"),
            &json!(image)
        );
        assert_eq!(
            at(&d, "/spec/template/spec/containers/0/imagePullPolicy"),
            &json!("Always")
        );
        assert_eq!(
            rt.status.as_ref().and_then(|s| s.current_image.as_deref()),
            Some(image.as_str())
        );

        let services = h.api::<Service>();
        for (type_, port) in [
            ("NodePort", 8080),
            ("LoadBalancer", 80),
            ("ClusterIP", 9000),
        ] {
            h.patch_spec(&name, json!({"service": {"type": type_, "port": port}}))
                .await?;
            let service = h
                .wait_object(
                    &format!("the Service to become {type_} on {port}"),
                    &name,
                    CONVERGE,
                    |s: &Service| {
                        json_of(s).is_ok_and(|s| {
                            at(&s, "/spec/type") == type_ && at(&s, "/spec/ports/0/port") == port
                        })
                    },
                )
                .await?;
            assert_service(&json_of(&service)?, &name, type_, port);
            let rt = h.wait_ready(&name).await?;
            assert_eq!(
                rt.status.and_then(|s| s.endpoint),
                Some(format!(
                    "http://{name}.{}.svc.cluster.local:{port}",
                    h.namespace()
                ))
            );
        }
        // Back to ClusterIP: no node port left behind.
        let service = json_of(&services.get(&name).await?)?;
        assert!(
            at(&service, "/spec/ports/0/nodePort").is_null(),
            "{}",
            at(&service, "/spec/ports")
        );
        Ok(())
    })
    .await
}
