//! Pod Security `restricted`, proven by the API server's own admission: in a
//! namespace that enforces it, the ReplicaSets of runtimes (the minimal and
//! the full sample, autoscaling, a NetworkPolicy, the AppArmor profiles the
//! API accepts) create their pods, and so do those of the operator's own
//! Deployment from deploy/ in trussium-system. Each namespace first refuses
//! a pod that breaks the policy, so a namespace that enforces nothing fails
//! the test. (What the API refuses up front for the same reason is in
//! tests/fixtures/invalid/pod-annotation-*.)

use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{Event as CoreEvent, Namespace, Pod};
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use serde_json::{Value, json};
use trussium_e2e::{
    CONVERGE, Harness, OPERATOR_NAMESPACE, TestResult, install, kustomize, minimal,
    require_cluster, sample, wait_for, with_operator,
};

const ENFORCE: &str = "pod-security.kubernetes.io/enforce";

/// Labels the test's namespace as deploy/rbac/namespace.yaml labels
/// trussium-system.
async fn enforce_restricted(h: &Harness) -> TestResult {
    Api::<Namespace>::all(h.ns.client.clone())
        .patch(
            h.namespace(),
            &PatchParams::default(),
            &Patch::Merge(json!({ "metadata": { "labels": { ENFORCE: "restricted" } } })),
        )
        .await?;
    Ok(())
}

/// The namespace really enforces `restricted`: a pod without any security
/// context is refused (a server-side dry run: admission runs, nothing is
/// stored). Asked until refused: admission reads namespace labels from a
/// cache that may lag a label set a moment ago.
async fn refuses_an_unrestricted_pod(client: &Client, namespace: &str) -> TestResult {
    let pod: Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": "unrestricted" },
        "spec": { "containers": [{ "name": "c", "image": "registry.invalid/x:1" }] },
    }))?;
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let pods = Api::<Pod>::namespaced(client.clone(), namespace);
    let mut last = String::new();
    let refused = wait_for(
        &format!("namespace {namespace} to refuse a pod that breaks Pod Security restricted"),
        Duration::from_secs(30),
        async || match pods.create(&dry_run, &pod).await {
            Err(kube::Error::Api(status))
                if status.code == 403 && status.message.contains("violates PodSecurity") =>
            {
                Ok(Some(()))
            }
            other => {
                last = format!("{other:?}");
                Ok(None)
            }
        },
    )
    .await;
    Ok(refused.map_err(|e| format!("{e}; last answer: {last}"))?)
}

/// Waits until the Deployment's ReplicaSets have created every pod it asks
/// for; fails at once when one of them reports that a pod was refused.
async fn pods_admitted(client: &Client, namespace: &str, deployment: &str) -> TestResult {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let replica_sets: Api<ReplicaSet> = Api::namespaced(client.clone(), namespace);
    let events: Api<CoreEvent> = Api::namespaced(client.clone(), namespace);
    let outcome = wait_for(
        &format!("the pods of Deployment {namespace}/{deployment} to be created"),
        CONVERGE,
        async || {
            let Some(d) = deployments.get_opt(deployment).await? else {
                return Ok(None);
            };
            let wanted = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
            let uid = d.uid().unwrap_or_default();
            let ours: Vec<ReplicaSet> = replica_sets
                .list(&ListParams::default())
                .await?
                .items
                .into_iter()
                .filter(|rs| rs.owner_references().iter().any(|o| o.uid == uid))
                .collect();
            let failures: Vec<String> = ours
                .iter()
                .flat_map(|rs| rs.status.iter().flat_map(|s| s.conditions.iter().flatten()))
                .filter(|c| c.type_ == "ReplicaFailure" && c.status == "True")
                .map(|c| c.message.clone().unwrap_or_default())
                .chain(
                    events
                        .list(&ListParams::default())
                        .await?
                        .items
                        .into_iter()
                        .filter(|e| e.reason.as_deref() == Some("FailedCreate"))
                        .filter(|e| {
                            let regarding = e.involved_object.name.as_deref().unwrap_or_default();
                            ours.iter().any(|rs| rs.name_any() == regarding)
                        })
                        .map(|e| e.message.unwrap_or_default()),
                )
                .collect();
            if !failures.is_empty() {
                return Ok(Some(Err(failures.join("\n"))));
            }
            let created: i32 = ours
                .iter()
                .filter_map(|rs| rs.status.as_ref())
                .map(|s| s.replicas)
                .sum();
            Ok((wanted > 0 && created >= wanted).then_some(Ok(())))
        },
    )
    .await?;
    outcome.map_err(|refused| {
        format!("pods of Deployment {namespace}/{deployment} were refused:\n{refused}").into()
    })
}

/// The runtimes of every shape the API accepts, in a namespace that enforces
/// `restricted`.
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn runtime_pods_are_admitted_under_pod_security_restricted() -> TestResult {
    with_operator("psa-restricted", &[], async |h| {
        enforce_restricted(h).await?;
        refuses_an_unrestricted_pod(&h.ns.client, h.namespace()).await?;
        // The full sample's Secrets. Its nodeSelector matches no KWOK node:
        // its pods are created (admitted) and stay Pending.
        h.create_secret("openai-credentials", "api-key", "sk-restricted")
            .await?;
        h.create_secret("ghcr-credentials", ".dockerconfigjson", "{}")
            .await?;
        let apparmor = "container.apparmor.security.beta.kubernetes.io/runtime";
        let runtimes: Vec<(&str, Value)> = vec![
            ("minimal", minimal("minimal", json!({}))?),
            ("inference", sample("full")?),
            (
                "autoscaled",
                minimal(
                    "autoscaled",
                    json!({
                        "resources": {"requests": {"cpu": "100m"}},
                        "autoscaling": {"enabled": true, "minReplicas": 2, "maxReplicas": 3},
                        "podMetadata": {"annotations": {apparmor: "runtime/default"}},
                    }),
                )?,
            ),
            (
                "fenced",
                minimal(
                    "fenced",
                    json!({
                        "networkPolicy": {"enabled": true, "ingress": [
                            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}},
                        ]},
                        "podMetadata": {"annotations": {apparmor: "localhost/trussium-runtime"}},
                    }),
                )?,
            ),
        ];
        for (_, manifest) in &runtimes {
            h.create_runtime(manifest.clone()).await?;
        }
        for (name, _) in &runtimes {
            pods_admitted(&h.ns.client, h.namespace(), name).await?;
        }
        // Those that can run are Ready.
        for name in ["minimal", "autoscaled", "fenced"] {
            h.wait_ready(name).await?;
        }
        Ok(())
    })
    .await
}

/// The operator's own Deployment as deploy/ renders it, in trussium-system
/// labelled as deploy/rbac/namespace.yaml labels it. Under a name (and an
/// extra selector label) of its own, so that it touches nothing else there.
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_operators_own_pods_are_admitted_under_pod_security_restricted() -> TestResult {
    require_cluster();
    let admin = trussium_e2e::admin_client().await?;
    install(&admin).await?;
    let system = Api::<Namespace>::all(admin.clone())
        .get(OPERATOR_NAMESPACE)
        .await?;
    assert_eq!(
        system.labels().get(ENFORCE).map(String::as_str),
        Some("restricted"),
        "deploy/rbac/namespace.yaml labels {OPERATOR_NAMESPACE}"
    );
    refuses_an_unrestricted_pod(&admin, OPERATOR_NAMESPACE).await?;

    let mut deployment = kustomize("deploy")?
        .into_iter()
        .find(|o| o["kind"] == "Deployment")
        .ok_or("deploy/ renders no Deployment")?;
    let name = format!("trussium-operator-psa-{}", std::process::id());
    deployment["metadata"]["name"] = json!(name);
    for labels in [
        "/spec/selector/matchLabels",
        "/spec/template/metadata/labels",
    ] {
        let labels = deployment
            .pointer_mut(labels)
            .and_then(Value::as_object_mut)
            .ok_or("the Deployment has no selector or pod labels")?;
        labels.insert("trussium.test/instance".into(), json!(name));
    }
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), OPERATOR_NAMESPACE);
    deployments
        .patch(
            &name,
            &PatchParams::apply("trussium-e2e-pod-security").force(),
            &Patch::Apply(&deployment),
        )
        .await?;
    let outcome = pods_admitted(&admin, OPERATOR_NAMESPACE, &name).await;
    let _ = deployments.delete(&name, &DeleteParams::background()).await;
    outcome
}
