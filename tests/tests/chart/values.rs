//! Bad values: Helm refuses them, naming the key, before anything reaches the
//! cluster (values.schema.json, and the chart's own checks for what a schema
//! cannot say clearly).

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::rbac::v1::ClusterRole;
use kube::Api;
use serde_json::{Value, json};
use trussium_e2e::manifests::values_file;
use trussium_e2e::{TestNamespace, require_cluster};

use crate::support::{TestResult, chart_dir, helm, one_at_a_time};

/// (what is wrong, values, what Helm's refusal must say)
pub fn bad_values() -> Vec<(&'static str, Value, &'static str)> {
    let digest = format!("sha256:{}", "a".repeat(64));
    vec![
        (
            "a wrong type",
            json!({ "replicaCount": "two" }),
            "at '/replicaCount': got string, want integer",
        ),
        (
            "an unknown top-level key",
            json!({ "replicas": 2 }),
            "additional properties 'replicas' not allowed",
        ),
        (
            "a negative replica count",
            json!({ "replicaCount": -1 }),
            "at '/replicaCount': minimum: got -1",
        ),
        (
            "an image with both tag and digest",
            json!({ "image": { "tag": "v1.0.0", "digest": digest } }),
            "both image.tag (v1.0.0) and image.digest",
        ),
        (
            "an unknown nested key",
            json!({ "image": { "name": "x" } }),
            "at '/image': additional properties 'name' not allowed",
        ),
        (
            "a log format the operator lacks",
            json!({ "operator": { "logFormat": "xml" } }),
            "at '/operator/logFormat'",
        ),
        (
            "a namespace name that is not one",
            json!({ "watchNamespace": "Team_A" }),
            "at '/watchNamespace'",
        ),
        (
            "a duration the operator cannot read",
            json!({ "leaderElection": { "leaseDuration": "15" } }),
            "at '/leaderElection/leaseDuration'",
        ),
        (
            "a NetworkPolicy that lets the operator reach no API server",
            json!({ "networkPolicy": { "enabled": true, "apiServerPorts": [] } }),
            "at '/networkPolicy/apiServerPorts'",
        ),
        (
            "the probes' port for metrics",
            json!({ "metrics": { "port": 8081 } }),
            "at '/metrics/port'",
        ),
    ]
}

#[test]
#[ignore = "needs helm (make test)"]
fn bad_values_are_refused_by_helm_naming_the_key() -> TestResult {
    for (what, values, message) in bad_values() {
        let file = values_file(&values)?;
        let outcome = helm(&[
            "template",
            "trussium-operator",
            &chart_dir().to_string_lossy(),
            "--values",
            &file.to_string_lossy(),
        ])?;
        assert!(!outcome.success, "{what}: helm template accepted {values}");
        assert!(
            outcome.stderr.contains(message),
            "{what}: expected {message:?} in:\n{}",
            outcome.stderr
        );
    }
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn bad_values_apply_nothing() -> TestResult {
    require_cluster();
    let _serial = one_at_a_time().await;
    let ns = TestNamespace::create("chart-bad").await?;
    let release = "chart-bad";
    let mut cases = bad_values();
    cases.push((
        "a watchNamespace that does not exist",
        json!({ "watchNamespace": "no-such-namespace", "crds": { "enabled": false } }),
        "watchNamespace: namespace \"no-such-namespace\" does not exist; create it first",
    ));
    for (what, values, message) in cases {
        let file = values_file(&values)?;
        let outcome = helm(&[
            "install",
            release,
            &chart_dir().to_string_lossy(),
            "--namespace",
            &ns.name,
            "--values",
            &file.to_string_lossy(),
        ])?;
        assert!(!outcome.success, "{what}: helm install accepted {values}");
        assert!(
            outcome.stderr.contains(message),
            "{what}: expected {message:?} in:\n{}",
            outcome.stderr
        );
        // No release recorded, and none of its objects.
        let listed = helm(&["list", "--namespace", &ns.name, "--all", "--short"])?;
        assert!(
            listed.stdout.trim().is_empty(),
            "{what}: releases {}",
            listed.stdout
        );
        let deployments = ns.api::<Deployment>().list(&Default::default()).await?;
        assert!(
            deployments.items.is_empty(),
            "{what}: a Deployment was applied"
        );
        let role = Api::<ClusterRole>::all(ns.client.clone())
            .get_opt(&format!("{release}-trussium-operator"))
            .await?;
        assert!(role.is_none(), "{what}: the ClusterRole was applied");
    }
    ns.delete().await;
    Ok(())
}
