//! The single-namespace install mode (deploy/overlays/single-namespace): the
//! operator's permissions are a Role in the one namespace it watches, Secret
//! metadata reads included, and no ClusterRole at all. The overlay's Role is
//! applied to this test's namespace, and the operator runs with nothing else.

use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::rbac::v1::{ClusterRole, Role, RoleBinding};
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use serde_json::json;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    BoxError, CONVERGE, Identity, OPERATOR_NAMESPACE, Replica, TestNamespace, TestResult,
    client_as_service_account, install, is_ready, kustomize, may, minimal, repo_root,
    require_cluster, secret, wait_for,
};

fn overlay<T: serde::de::DeserializeOwned>(file: &str) -> Result<T, BoxError> {
    let path = repo_root()
        .join("deploy/overlays/single-namespace")
        .join(file);
    Ok(serde_yaml::from_str(&std::fs::read_to_string(path)?)?)
}

#[test]
fn the_overlay_role_grants_exactly_the_cluster_role_rules() -> TestResult {
    let role: Role = overlay("role.yaml")?;
    let path = repo_root().join("deploy/rbac/cluster_role.yaml");
    let cluster_role: ClusterRole = serde_yaml::from_str(&std::fs::read_to_string(path)?)?;
    assert_eq!(role.rules, cluster_role.rules);
    Ok(())
}

fn kinds(objects: &[serde_json::Value]) -> Vec<String> {
    objects
        .iter()
        .map(|o| o["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
#[ignore = "needs the control plane's kubectl (make test)"]
fn the_overlays_render_what_they_promise() -> TestResult {
    let single = kustomize("deploy/overlays/single-namespace")?;
    let kinds_single = kinds(&single);
    assert!(
        !kinds_single.iter().any(|k| k.starts_with("Cluster")),
        "no cluster-wide RBAC: {kinds_single:?}"
    );
    let deployment = single
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .ok_or("no Deployment")?;
    let args = &deployment["spec"]["template"]["spec"]["containers"][0]["args"];
    assert!(
        args.as_array()
            .is_some_and(|a| a.iter().any(|a| a == "--namespace=trussium")),
        "{args}"
    );

    let base = kustomize("deploy")?;
    let monitored = kustomize("deploy/overlays/monitored")?;
    let mut expected = kinds(&base);
    expected.extend(["ServiceMonitor", "PrometheusRule", "ConfigMap"].map(String::from));
    expected.sort();
    let mut got = kinds(&monitored);
    got.sort();
    assert_eq!(
        got, expected,
        "deploy/ plus a ServiceMonitor, the alerts and the dashboard"
    );
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_single_namespace_operator_runs_on_a_role_alone() -> TestResult {
    require_cluster();
    let ns = TestNamespace::create("single").await?;
    let admin = ns.client.clone();
    install(&admin).await?;
    // No ClusterRoleBinding for this identity.
    let identity = Identity::create(&admin, &format!("{}-op", ns.name), false).await?;
    let outcome = async {
        let params = PatchParams::apply("trussium-e2e-production").force();
        // The overlay's Role and RoleBinding as it renders them, moved to
        // this test's namespace.
        let rendered = kustomize("deploy/overlays/single-namespace")?;
        let pick = |kind: &str| {
            rendered
                .iter()
                .find(|o| o["kind"] == kind && o["metadata"]["name"] == "trussium-operator")
                .cloned()
                .ok_or_else(|| format!("no {kind} trussium-operator in the overlay"))
        };
        let mut role: Role = serde_json::from_value(pick("Role")?)?;
        role.metadata.namespace = Some(ns.name.clone());
        ns.api::<Role>()
            .patch(&role.name_any(), &params, &Patch::Apply(&role))
            .await?;
        let mut binding: RoleBinding = serde_json::from_value(pick("RoleBinding")?)?;
        binding.metadata.namespace = Some(ns.name.clone());
        for subject in binding.subjects.iter_mut().flatten() {
            subject.name = identity.name.clone();
            assert_eq!(subject.namespace.as_deref(), Some(OPERATOR_NAMESPACE));
        }
        ns.api::<RoleBinding>()
            .patch(&binding.name_any(), &params, &Patch::Apply(&binding))
            .await?;

        let as_operator =
            client_as_service_account(&admin, OPERATOR_NAMESPACE, &identity.name).await?;
        // The RBAC authorizer serves from its informer: a RoleBinding just
        // stored takes effect a moment later.
        wait_for("the overlay's Role to take effect", CONVERGE, async || {
            Ok(may(&as_operator, "watch", "", "secrets", Some(&ns.name))
                .await?
                .then_some(()))
        })
        .await?;
        assert!(
            !may(&as_operator, "list", "", "secrets", None).await?,
            "no cluster-wide Secret reads"
        );
        assert!(
            !may(&as_operator, "list", "", "secrets", Some("default")).await?,
            "none in other namespaces"
        );

        let operator = Replica::start(
            &admin,
            &identity,
            &[
                format!("--namespace={}", ns.name),
                "--leader-elect=false".into(),
            ],
        )
        .await?;
        let runtimes: Api<TrussiumRuntime> = ns.api();
        let provider = json!({ "type": "openai", "model": "gpt-5",
            "credentialsSecretRef": { "name": "creds", "key": "api-key" } });
        runtimes
            .create(
                &PostParams::default(),
                &serde_json::from_value(minimal("web", json!({ "provider": provider }))?)?,
            )
            .await?;
        let secret = secret("creds", "api-key", "not-a-real-key");
        ns.api::<Secret>()
            .create(&PostParams::default(), &secret)
            .await?;
        let ready = wait_for("web to be Ready on a Role alone", CONVERGE, async || {
            let rt = runtimes.get("web").await?;
            Ok(is_ready(&rt).then_some(()))
        })
        .await;
        if ready.is_err() {
            eprintln!("---- operator log ----\n{}", operator.log_text());
        }
        ready?;
        Ok::<(), BoxError>(())
    }
    .await;
    identity.remove().await;
    ns.delete().await;
    outcome
}
