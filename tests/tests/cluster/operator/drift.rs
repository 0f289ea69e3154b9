//! Drift: someone else changing an operator-managed field of an owned object
//! gets it reverted, and a deleted owned object comes back; both promptly,
//! through the owned-object watches (the resync is five minutes away).

use std::fmt::Debug;

use std::time::Duration;

use super::support::{PROGRESS_DEADLINE_ARG, assert_operator_labels, at, json_of};
use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::api::{DeleteParams, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::time::Instant;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    CONVERGE, Harness, PROMPT, TestResult, describe_requests, holds_for, minimal, with_operator,
};

/// How long the operator must stay quiet once every drift is reverted.
const QUIET_AFTER_DRIFT: std::time::Duration = std::time::Duration::from_secs(5);

/// Applies `patch` (a JSON merge patch, as the admin: what `kubectl edit`
/// or `kubectl patch` leaves behind) to an owned object, checks it took,
/// then waits until `reverted` holds again.
async fn drift<K>(
    h: &Harness,
    name: &str,
    what: &str,
    patch: Value,
    reverted: impl Fn(&Value) -> bool,
) -> TestResult
where
    K: Resource<Scope = NamespaceResourceScope>
        + Clone
        + Debug
        + DeserializeOwned
        + serde::Serialize,
    <K as Resource>::DynamicType: Default,
{
    drift_with::<K>(h, name, what, Patch::Merge(patch), reverted).await
}

/// [`drift`] with any kind of patch.
async fn drift_with<K>(
    h: &Harness,
    name: &str,
    what: &str,
    patch: Patch<Value>,
    reverted: impl Fn(&Value) -> bool,
) -> TestResult
where
    K: Resource<Scope = NamespaceResourceScope>
        + Clone
        + Debug
        + DeserializeOwned
        + serde::Serialize,
    <K as Resource>::DynamicType: Default,
{
    let api = h.api::<K>();
    assert!(
        reverted(&json_of(&api.get(name).await?)?),
        "{what}: the operator's value to begin with"
    );
    let drifted = api.patch(name, &PatchParams::default(), &patch).await?;
    assert!(
        !reverted(&json_of(&drifted)?),
        "{what}: the drift did not take: {patch:?}"
    );
    let started = Instant::now();
    // Drifts of one object in a row are reverted 1, 2, 4, 8 s apart (the
    // operator backs off from a writer that keeps changing it): this test
    // edits the Deployment five times.
    let outcome = h
        .wait_object(
            &format!("{what} to be reverted"),
            name,
            PROMPT * 2,
            |o: &K| json_of(o).is_ok_and(|v| reverted(&v)),
        )
        .await;
    if let Err(err) = outcome {
        let now = serde_json::to_string(&api.get_opt(name).await?)?;
        return Err(format!("{err}; the object now: {now}").into());
    }
    eprintln!("{name}: {what} reverted in {:?}", started.elapsed());
    Ok(())
}

/// Deletes an owned object and waits for a new one (another uid) with the
/// operator's labels and owner.
async fn delete_and_expect_recreated<K>(h: &Harness, rt: &TrussiumRuntime, what: &str) -> TestResult
where
    K: Resource<Scope = NamespaceResourceScope> + Clone + Debug + DeserializeOwned,
    <K as Resource>::DynamicType: Default,
{
    let name = rt.name_any();
    let api = h.api::<K>();
    let old_uid = api.get(&name).await?.meta().uid.clone();
    api.delete(&name, &DeleteParams::background()).await?;
    let started = Instant::now();
    let new = h
        .wait_object(
            &format!("{what} to be recreated"),
            &name,
            PROMPT,
            |o: &K| o.meta().uid != old_uid && o.meta().deletion_timestamp.is_none(),
        )
        .await?;
    eprintln!("{name}: {what} recreated in {:?}", started.elapsed());
    assert_operator_labels(new.meta(), &name, what);
    super::support::assert_owned_by(new.meta(), rt, what);
    Ok(())
}

fn network_policy_spec() -> Value {
    json!({"enabled": true, "ingress": [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}},
    ]})
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn drift_in_each_owned_kind_is_reverted() -> TestResult {
    with_operator("op-drift", &[PROGRESS_DEADLINE_ARG], async |h| {
        // A fixed-scale runtime (replicas belong to the operator) and an
        // autoscaled one (for the HPA).
        h.create_secret("credentials", "api-key", "sk-drift").await?;
        let fixed = h
            .create_runtime(minimal(
                "fixed",
                json!({
                    "replicas": 2,
                    "networkPolicy": network_policy_spec(),
                    "provider": {"credentialsSecretRef": {"name": "credentials", "key": "api-key"}},
                }),
            )?)
            .await?
            .name_any();
        let scaled = h
            .create_runtime(minimal(
                "scaled",
                json!({
                    "resources": {"requests": {"cpu": "100m"}},
                    "autoscaling": {"enabled": true, "minReplicas": 1, "maxReplicas": 3},
                }),
            )?)
            .await?
            .name_any();
        h.wait_ready(&fixed).await?;
        h.wait_ready(&scaled).await?;
        h.wait_exists::<NetworkPolicy>("the NetworkPolicy", &fixed)
            .await?;
        h.wait_exists::<HorizontalPodAutoscaler>("the HPA", &scaled)
            .await?;

        drift::<ConfigMap>(
            h,
            &fixed,
            "ConfigMap data",
            json!({"data": {"TRUSSIUM_PROVIDER_MODEL": "tampered"}}),
            |o| at(o, "/data/TRUSSIUM_PROVIDER_MODEL") == "llama3.2",
        )
        .await?;
        drift::<ConfigMap>(
            h,
            &fixed,
            "a removed ConfigMap entry",
            json!({"data": {"TRUSSIUM_PROVIDER_BASE_URL": null}}),
            |o| {
                at(o, "/data/TRUSSIUM_PROVIDER_BASE_URL")
                    == "http://ollama.ollama.svc.cluster.local:11434/v1"
            },
        )
        .await?;
        drift::<ServiceAccount>(
            h,
            &fixed,
            "ServiceAccount automountServiceAccountToken",
            json!({"automountServiceAccountToken": true}),
            |o| at(o, "/automountServiceAccountToken") == &json!(false),
        )
        .await?;
        drift::<Service>(
            h,
            &fixed,
            "the Service type",
            json!({"spec": {"type": "NodePort"}}),
            |o| at(o, "/spec/type") == "ClusterIP",
        )
        .await?;
        drift::<Service>(
            h,
            &fixed,
            "the Service port",
            json!({"spec": {"ports": [
                {"name": "http", "protocol": "TCP", "port": 1234, "targetPort": 9000},
            ]}}),
            |o| {
                let ports = at(o, "/spec/ports");
                ports.as_array().map(Vec::len) == Some(1)
                    && ports[0]["port"] == 9000
                    && ports[0]["targetPort"] == 9000
                    && ports[0]["name"] == "http"
            },
        )
        .await?;
        drift::<Service>(
            h,
            &fixed,
            "an extra Service port",
            json!({"spec": {"ports": [
                {"name": "http", "protocol": "TCP", "port": 9000, "targetPort": 9000},
                {"name": "metrics", "protocol": "TCP", "port": 9100, "targetPort": 9100},
            ]}}),
            |o| at(o, "/spec/ports").as_array().map(Vec::len) == Some(1),
        )
        .await?;
        // Having taken the ports back, the operator still changes them
        // cleanly when the spec does.
        h.patch_spec(&fixed, json!({"service": {"port": 8080}})).await?;
        h.wait_object("the Service to move to port 8080", &fixed, PROMPT, |s: &Service| {
            json_of(s).is_ok_and(|s| {
                let ports = at(&s, "/spec/ports");
                ports.as_array().map(Vec::len) == Some(1)
                    && ports[0]["port"] == 8080
                    && ports[0]["targetPort"] == 9000
            })
        })
        .await?;
        h.wait_ready(&fixed).await?;
        drift::<Service>(
            h,
            &fixed,
            "the Service selector",
            json!({"spec": {"selector": {"app.kubernetes.io/instance": "other"}}}),
            |o| at(o, "/spec/selector/app.kubernetes.io~1instance") == "fixed",
        )
        .await?;
        drift::<Deployment>(
            h,
            &fixed,
            "the Deployment image",
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "runtime", "image": "example.com/other:v0"},
            ]}}}}),
            |o| {
                at(o, "/spec/template/spec/containers/0/image")
                    == "ghcr.io/trussiumhq/trussium:v1.22.0"
            },
        )
        .await?;
        drift::<Deployment>(
            h,
            &fixed,
            "the container port",
            json!({"spec": {"template": {"spec": {"containers": [{
                "name": "runtime",
                "image": "ghcr.io/trussiumhq/trussium:v1.22.0",
                "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
            }]}}}}),
            |o| {
                at(o, "/spec/template/spec/containers/0/ports")
                    == &json!([{"name": "http", "containerPort": 9000, "protocol": "TCP"}])
            },
        )
        .await?;
        // `kubectl patch` (strategic merge) adds an item to the env list
        // the operator sets.
        let credential = json!([{
            "name": "TRUSSIUM_PROVIDER_API_KEY",
            "valueFrom": {"secretKeyRef": {"name": "credentials", "key": "api-key"}},
        }]);
        drift_with::<Deployment>(
            h,
            &fixed,
            "an extra environment variable",
            Patch::Strategic(json!({"spec": {"template": {"spec": {"containers": [{
                "name": "runtime",
                "env": [{"name": "INJECTED", "value": "1"}],
            }]}}}})),
            |o| at(o, "/spec/template/spec/containers/0/env") == &credential,
        )
        .await?;
        drift::<Deployment>(
            h,
            &fixed,
            "the Deployment replicas",
            json!({"spec": {"replicas": 5}}),
            |o| at(o, "/spec/replicas") == 2,
        )
        .await?;
        drift::<Deployment>(
            h,
            &fixed,
            "a removed Deployment label",
            json!({"metadata": {"labels": {"app.kubernetes.io/managed-by": null}}}),
            |o| at(o, "/metadata/labels/app.kubernetes.io~1managed-by") == "trussium-operator",
        )
        .await?;
        drift::<PodDisruptionBudget>(
            h,
            &fixed,
            "PDB maxUnavailable",
            json!({"spec": {"maxUnavailable": 2}}),
            |o| at(o, "/spec/maxUnavailable") == 1,
        )
        .await?;
        drift::<NetworkPolicy>(
            h,
            &fixed,
            "the NetworkPolicy rule",
            json!({"spec": {"ingress": [{
                "from": [{"namespaceSelector": {}}],
                "ports": [{"protocol": "TCP", "port": 8080}],
            }]}}),
            |o| {
                at(o, "/spec/ingress")
                    == &json!([{
                        "from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}}],
                        "ports": [{"protocol": "TCP", "port": 9000}],
                    }])
            },
        )
        .await?;
        drift::<HorizontalPodAutoscaler>(
            h,
            &scaled,
            "HPA maxReplicas",
            json!({"spec": {"maxReplicas": 20}}),
            |o| at(o, "/spec/maxReplicas") == 3,
        )
        .await?;
        drift::<HorizontalPodAutoscaler>(
            h,
            &scaled,
            "the HPA target",
            json!({"spec": {"metrics": [{
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 10}},
            }]}}),
            |o| at(o, "/spec/metrics/0/resource/target/averageUtilization") == 80,
        )
        .await?;

        // Both runtimes settle back to Ready, and then the operator is quiet
        // again: the taken-over lists do not keep it writing.
        h.wait_ready(&fixed).await?;
        h.wait_ready(&scaled).await?;
        // (Its last status updates may trail Ready: wait for a pause first.)
        h.wait_until_quiet(Duration::from_secs(2)).await?;
        let mark = h.mark();
        holds_for("no write after drift settled", QUIET_AFTER_DRIFT, async || {
            let writes = h.operator_writes_since(&mark).await?;
            Ok((!writes.is_empty()).then(|| describe_requests(&writes)))
        })
        .await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn each_deleted_owned_kind_is_recreated() -> TestResult {
    with_operator("op-recreate", &[PROGRESS_DEADLINE_ARG], async |h| {
        let created = h
            .create_runtime(minimal(
                "phoenix",
                json!({
                    "resources": {"requests": {"cpu": "100m"}},
                    "networkPolicy": network_policy_spec(),
                    "autoscaling": {"enabled": true, "minReplicas": 1, "maxReplicas": 3},
                }),
            )?)
            .await?;
        let name = created.name_any();
        let rt = h.wait_ready(&name).await?;
        for (what, exists) in [
            (
                "the NetworkPolicy",
                h.wait_exists::<NetworkPolicy>("the NetworkPolicy", &name)
                    .await
                    .map(drop),
            ),
            (
                "the HPA",
                h.wait_exists::<HorizontalPodAutoscaler>("the HPA", &name)
                    .await
                    .map(drop),
            ),
        ] {
            exists.map_err(|e| format!("{what}: {e}"))?;
        }

        delete_and_expect_recreated::<ConfigMap>(h, &rt, "the ConfigMap").await?;
        delete_and_expect_recreated::<ServiceAccount>(h, &rt, "the ServiceAccount").await?;
        delete_and_expect_recreated::<Service>(h, &rt, "the Service").await?;
        delete_and_expect_recreated::<Deployment>(h, &rt, "the Deployment").await?;
        delete_and_expect_recreated::<PodDisruptionBudget>(h, &rt, "the PodDisruptionBudget")
            .await?;
        delete_and_expect_recreated::<NetworkPolicy>(h, &rt, "the NetworkPolicy").await?;
        delete_and_expect_recreated::<HorizontalPodAutoscaler>(h, &rt, "the HPA").await?;

        // The recreated runtime serves again.
        let rt = h
            .wait_condition(&name, "Ready", "True", None, CONVERGE)
            .await?;
        assert_eq!(rt.status.as_ref().and_then(|s| s.ready_replicas), Some(1));
        Ok(())
    })
    .await
}
