//! The local control plane behaves like a real cluster: KWOK runs pods,
//! controllers act, RBAC is enforced, and the audit log counts writes.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod, Secret};
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::core::PartialObjectMeta;
use kube::{Api, ResourceExt};
use serde_json::json;
use trussium_e2e::{
    Audit, Error, NEVER_READY_IMAGE, TestNamespace, client_as_service_account,
    create_service_account, deployment_condition, grant, kubeconfig_for_service_account,
    kubectl_path, require_cluster, rule, service_account_username, wait_for,
};

const ROLLOUT: Duration = Duration::from_secs(60);

fn deployment(name: &str, replicas: i32, image: &str) -> Result<Deployment, Error> {
    Ok(serde_json::from_value(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": { "name": name },
        "spec": {
            "replicas": replicas,
            "selector": { "matchLabels": { "app": name } },
            "template": {
                "metadata": { "labels": { "app": name } },
                "spec": { "containers": [{ "name": "main", "image": image }] }
            }
        }
    }))?)
}

fn condition(d: &Deployment, type_: &str) -> Option<(String, String)> {
    deployment_condition(d, type_).map(|c| (c.status.clone(), c.reason.clone().unwrap_or_default()))
}

fn is_forbidden<T>(result: &Result<T, kube::Error>) -> bool {
    matches!(result, Err(kube::Error::Api(status)) if status.code == 403)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn deployment_becomes_available_through_kwok() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("cp-available").await?;
    let deployments = ns.api::<Deployment>();
    deployments
        .create(
            &PostParams::default(),
            &deployment("web", 2, "registry.example/web:1")?,
        )
        .await?;

    let web = wait_for(
        "deployment web to be Available with 2 ready replicas",
        ROLLOUT,
        async || {
            let d = deployments.get("web").await?;
            let ready = d.status.as_ref().and_then(|s| s.ready_replicas) == Some(2);
            let available = condition(&d, "Available").is_some_and(|(status, _)| status == "True");
            Ok((ready && available).then_some(d))
        },
    )
    .await?;

    assert_eq!(web.status.and_then(|s| s.available_replicas), Some(2));
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn never_ready_image_exceeds_the_progress_deadline() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("cp-deadline").await?;
    let deployments = ns.api::<Deployment>();
    let mut stuck = deployment("stuck", 1, NEVER_READY_IMAGE)?;
    if let Some(spec) = stuck.spec.as_mut() {
        spec.progress_deadline_seconds = Some(10);
    }
    deployments.create(&PostParams::default(), &stuck).await?;

    let progressing = wait_for(
        "deployment stuck to report Progressing=False",
        ROLLOUT,
        async || {
            let d = deployments.get("stuck").await?;
            Ok(condition(&d, "Progressing").filter(|(status, _)| status == "False"))
        },
    )
    .await?;

    assert_eq!(progressing.1, "ProgressDeadlineExceeded");
    let pods: Api<Pod> = ns.api();
    let pod_list = pods.list(&ListParams::default()).await?;
    assert!(!pod_list.items.is_empty());
    for pod in pod_list {
        let waiting = pod
            .status
            .and_then(|s| s.container_statuses)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|c| c.state?.waiting?.reason)
            .collect::<Vec<_>>();
        assert_eq!(
            waiting,
            ["ImagePullBackOff"],
            "pod {}",
            pod.metadata.name.unwrap_or_default()
        );
    }
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn deleting_an_owner_garbage_collects_its_dependent() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("cp-gc").await?;
    let config_maps = ns.api::<ConfigMap>();
    let owner: ConfigMap = serde_json::from_value(json!({ "metadata": { "name": "owner" } }))?;
    let owner = config_maps.create(&PostParams::default(), &owner).await?;
    let dependent: ConfigMap = serde_json::from_value(json!({
        "metadata": {
            "name": "dependent",
            "ownerReferences": [{
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "name": "owner",
                "uid": owner.uid().unwrap_or_default(),
            }]
        }
    }))?;
    config_maps
        .create(&PostParams::default(), &dependent)
        .await?;

    config_maps
        .delete("owner", &DeleteParams::background())
        .await?;

    wait_for(
        "the garbage collector to delete ConfigMap dependent",
        ROLLOUT,
        async || {
            Ok(config_maps
                .get_opt("dependent")
                .await?
                .is_none()
                .then_some(()))
        },
    )
    .await?;
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn service_account_without_permissions_is_denied() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("cp-rbac").await?;
    create_service_account(&ns, "nobody").await?;
    let nobody = client_as_service_account(&ns.client, &ns.name, "nobody").await?;

    let config_maps: Api<ConfigMap> = Api::namespaced(nobody.clone(), &ns.name);
    assert!(is_forbidden(
        &config_maps.list(&ListParams::default()).await
    ));
    let secrets: Api<Secret> = Api::namespaced(nobody.clone(), &ns.name);
    assert!(is_forbidden(&secrets.get("anything").await));
    let nodes: Api<Node> = Api::all(nobody);
    assert!(is_forbidden(&nodes.list(&ListParams::default()).await));

    // Once granted, the same identity is allowed: the denial was RBAC's.
    grant(&ns, "nobody", vec![rule(&["list"], "", "configmaps")]).await?;
    wait_for(
        "the Role to take effect",
        Duration::from_secs(10),
        async || {
            Ok(config_maps
                .list(&ListParams::default())
                .await
                .ok()
                .map(|_| ()))
        },
    )
    .await?;
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn audit_log_counts_exactly_the_writes_of_a_user() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("cp-audit").await?;
    create_service_account(&ns, "writer").await?;
    let verbs = ["get", "list", "create", "patch", "delete"];
    grant(&ns, "writer", vec![rule(&verbs, "", "configmaps")]).await?;
    let writer = client_as_service_account(&ns.client, &ns.name, "writer").await?;
    let user = service_account_username(&ns.name, "writer");
    let config_maps: Api<ConfigMap> = Api::namespaced(writer, &ns.name);
    let audit = Audit::open()?;
    let mark = audit.mark();

    for name in ["a", "b"] {
        let cm: ConfigMap = serde_json::from_value(json!({ "metadata": { "name": name } }))?;
        config_maps.create(&PostParams::default(), &cm).await?;
    }
    config_maps
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({ "data": { "k": "v" } })),
        )
        .await?;
    config_maps.get("a").await?;
    config_maps.list(&ListParams::default()).await?;
    config_maps.delete("b", &DeleteParams::default()).await?;
    audit.settle().await?;

    let writes = audit.writes_by(&user, &mark)?;
    let summary: Vec<(String, String, String)> = writes
        .iter()
        .map(|e| {
            let name = e.object_ref.as_ref().and_then(|o| o.name.clone());
            (e.verb.clone(), e.resource(), name.unwrap_or_default())
        })
        .collect();
    let expected = [
        ("create", "a"),
        ("create", "b"),
        ("patch", "a"),
        ("delete", "b"),
    ]
    .map(|(verb, name)| (verb.to_string(), "configmaps".to_string(), name.to_string()));
    assert_eq!(summary, expected);
    assert!(writes.iter().all(
        |e| e.object_ref.as_ref().and_then(|o| o.namespace.as_deref()) == Some(ns.name.as_str())
    ));
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn audit_log_shows_what_a_secret_reader_received() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("cp-secret").await?;
    let secret: Secret = serde_json::from_value(json!({
        "metadata": { "name": "credentials" },
        "stringData": { "apiKey": "s3cr3t" }
    }))?;
    ns.api::<Secret>()
        .create(&PostParams::default(), &secret)
        .await?;
    create_service_account(&ns, "reader").await?;
    grant(&ns, "reader", vec![rule(&["get"], "", "secrets")]).await?;
    let reader = client_as_service_account(&ns.client, &ns.name, "reader").await?;
    let user = service_account_username(&ns.name, "reader");
    let audit = Audit::open()?;
    let mark = audit.mark();

    let secrets: Api<Secret> = Api::namespaced(reader, &ns.name);
    let _: PartialObjectMeta<Secret> = secrets.get_metadata("credentials").await?;
    secrets.get("credentials").await?;
    audit.settle().await?;

    let received: Vec<serde_json::Value> = audit
        .events_since(&mark)?
        .into_iter()
        .filter(|e| e.user.username == user && e.verb == "get")
        .filter_map(|e| e.response_object)
        .collect();
    assert_eq!(received.len(), 2, "{received:?}");
    assert_eq!(received[0]["kind"], "PartialObjectMetadata");
    assert!(received[0].get("data").is_none());
    assert_eq!(received[1]["kind"], "Secret");
    assert!(received[1].get("data").is_some());
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn pods_spread_over_the_fake_nodes_of_both_zones() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("cp-zones").await?;
    let mut spread = deployment("spread", 4, "registry.example/web:1")?;
    if let Some(pod_spec) = spread.spec.as_mut().and_then(|s| s.template.spec.as_mut()) {
        pod_spec.topology_spread_constraints = Some(serde_json::from_value(json!([{
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": { "matchLabels": { "app": "spread" } }
        }]))?);
    }
    let deployments = ns.api::<Deployment>();
    deployments.create(&PostParams::default(), &spread).await?;
    wait_for(
        "deployment spread to have 4 ready replicas",
        ROLLOUT,
        async || {
            let d = deployments.get("spread").await?;
            Ok((d.status.and_then(|s| s.ready_replicas) == Some(4)).then_some(()))
        },
    )
    .await?;

    let nodes: Api<Node> = Api::all(ns.client.clone());
    let node_zones: std::collections::BTreeMap<String, String> = nodes
        .list(&ListParams::default())
        .await?
        .into_iter()
        .map(|n| {
            let zone = n
                .labels()
                .get("topology.kubernetes.io/zone")
                .cloned()
                .unwrap_or_default();
            (n.name_any(), zone)
        })
        .collect();
    let zones: BTreeSet<String> = ns
        .api::<Pod>()
        .list(&ListParams::default())
        .await?
        .into_iter()
        .filter_map(|p| p.spec?.node_name)
        .filter_map(|node| node_zones.get(&node).cloned())
        .collect();
    assert_eq!(
        zones,
        BTreeSet::from(["zone-a".to_string(), "zone-b".to_string()])
    );
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn service_account_kubeconfig_works_with_kubectl() -> Result<(), Error> {
    require_cluster();
    let ns = TestNamespace::create("cp-kubeconfig").await?;
    create_service_account(&ns, "tool").await?;
    let path = std::env::temp_dir().join(format!("{}-tool.kubeconfig", ns.name));
    kubeconfig_for_service_account(&ns.client, &ns.name, "tool", &path).await?;

    let output = tokio::process::Command::new(kubectl_path())
        .arg(format!("--kubeconfig={}", path.display()))
        .args([
            "auth",
            "whoami",
            "-o",
            "jsonpath={.status.userInfo.username}",
        ])
        .output()
        .await
        .map_err(|e| Error::Io {
            path: kubectl_path(),
            source: e,
        })?;
    let _ = std::fs::remove_file(&path);

    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        service_account_username(&ns.name, "tool")
    );
    ns.delete().await;
    Ok(())
}
