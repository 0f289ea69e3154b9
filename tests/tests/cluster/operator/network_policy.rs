//! The operator's own NetworkPolicy (deploy/components/network-policy):
//! added to deploy/ it adds that one object, which selects the operator's
//! pods, admits connections to their metrics and probe ports only, and lets
//! them reach the API server and the cluster DNS only; the API server
//! accepts it. The local cluster does not enforce NetworkPolicy (no CNI
//! plugin: KWOK's pods have no network), so what it lets through is checked
//! against the Deployment, not by traffic.

use k8s_openapi::api::networking::v1::NetworkPolicy;
use kube::Api;
use kube::api::{DeleteParams, Patch, PatchParams};
use serde_json::{Value, json};
use trussium_e2e::{
    BoxError, OPERATOR_NAMESPACE, TestResult, admin_client, e2e_dir, install, kustomize,
    require_cluster,
};

/// deploy/ with the component, as a user's overlay would add it.
fn render_with_component() -> Result<Vec<Value>, BoxError> {
    let dir = e2e_dir().join(format!("network-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\n\
         kind: Kustomization\n\
         resources:\n  - ../../../deploy\n\
         components:\n  - ../../../deploy/components/network-policy\n",
    )?;
    let rendered = kustomize(&dir.to_string_lossy());
    let _ = std::fs::remove_dir_all(&dir);
    Ok(rendered?)
}

fn kind<'a>(objects: &'a [Value], kind: &str) -> Result<&'a Value, BoxError> {
    objects
        .iter()
        .find(|o| o["kind"] == kind)
        .ok_or_else(|| format!("no {kind} rendered").into())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_operators_network_policy_admits_metrics_and_probes_and_reaches_the_api_server()
-> TestResult {
    require_cluster();
    let base = kustomize("deploy")?;
    let with = render_with_component()?;
    assert_eq!(with.len(), base.len() + 1, "the component adds one object");
    let policy = kind(&with, "NetworkPolicy")?;
    let deployment = kind(&with, "Deployment")?;
    assert_eq!(
        deployment,
        kind(&base, "Deployment")?,
        "and changes nothing"
    );

    // It selects the operator's pods.
    let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
    let selector = policy["spec"]["podSelector"]["matchLabels"]
        .as_object()
        .ok_or("the policy selects no pods by label")?;
    assert!(
        selector.iter().all(|(k, v)| &pod_labels[k] == v),
        "podSelector {selector:?} does not match the pod labels {pod_labels}"
    );
    assert_eq!(policy["spec"]["policyTypes"], json!(["Ingress", "Egress"]));

    // In: the container's metrics and probe ports, nothing else.
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    let mut container_ports: Vec<&str> = container["ports"]
        .as_array()
        .ok_or("the container has no ports")?
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    container_ports.sort_unstable();
    assert_eq!(container_ports, ["metrics", "probes"]);
    for probe in ["livenessProbe", "readinessProbe"] {
        assert_eq!(container[probe]["httpGet"]["port"], json!("probes"));
    }
    assert_eq!(
        policy["spec"]["ingress"],
        json!([{ "ports": [
            { "port": "metrics", "protocol": "TCP" },
            { "port": "probes", "protocol": "TCP" },
        ]}])
    );

    // Out: the API server's ports and the cluster DNS.
    assert_eq!(
        policy["spec"]["egress"],
        json!([
            { "ports": [
                { "port": 443, "protocol": "TCP" },
                { "port": 6443, "protocol": "TCP" },
            ]},
            {
                "to": [{
                    "namespaceSelector": { "matchLabels": { "kubernetes.io/metadata.name": "kube-system" } },
                    "podSelector": { "matchLabels": { "k8s-app": "kube-dns" } },
                }],
                "ports": [
                    { "port": 53, "protocol": "UDP" },
                    { "port": 53, "protocol": "TCP" },
                ],
            },
        ])
    );

    // The API server accepts it, in the operator's namespace.
    let admin = admin_client().await?;
    install(&admin).await?;
    assert_eq!(policy["metadata"]["namespace"], json!(OPERATOR_NAMESPACE));
    let name = format!("trussium-operator-e2e-{}", std::process::id());
    let mut object = policy.clone();
    object["metadata"]["name"] = json!(name);
    let policies: Api<NetworkPolicy> = Api::namespaced(admin.clone(), OPERATOR_NAMESPACE);
    let applied = policies
        .patch(
            &name,
            &PatchParams::apply("trussium-e2e-network-policy").force(),
            &Patch::Apply(&object),
        )
        .await;
    let _ = policies.delete(&name, &DeleteParams::default()).await;
    let applied = serde_json::to_value(applied?)?;
    assert_eq!(applied["spec"]["ingress"], policy["spec"]["ingress"]);
    assert_eq!(applied["spec"]["egress"], policy["spec"]["egress"]);
    Ok(())
}
