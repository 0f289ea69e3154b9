//! `helm install`, `upgrade` and `uninstall` against the local cluster, and
//! every values variant through the API server's validation (server-side
//! dry run). The operator's Deployment never runs here (KWOK fakes Pods):
//! the operator binary is started with the arguments and environment of the
//! Deployment Helm installed, as its ServiceAccount.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::rbac::v1::{ClusterRole, Role};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use serde_json::{Value, json};
use trussium_api::{TrussiumRuntime, condition_type};
use trussium_e2e::manifests::{copy_dir, run_tool, values_file};
use trussium_e2e::metrics::{samples, sum};
use trussium_e2e::{
    DeployedOperator, TestNamespace, admin_kubeconfig_path, client_as_service_account,
    kubectl_path, may, repo_root, require_cluster, wait_for,
};

use crate::support::{BoxError, TestResult, chart_dir, helm_ok, one_at_a_time};
use crate::surfaces::monitoring_values;

const CONVERGE: Duration = Duration::from_secs(120);
const CRD_NAME: &str = "trussiumruntimes.runtime.trussium.io";

/// Where the scrape of a chart-installed operator is written for the PromQL
/// test (`tests/promql`): `TRUSSIUM_METRICS_SNAPSHOT`, set by make test.
fn metrics_snapshot() -> PathBuf {
    std::env::var_os("TRUSSIUM_METRICS_SNAPSHOT")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/e2e/metrics/operator.prom"))
}

/// Lets release `release` in `namespace` take over the CRD if it exists (it
/// was applied by another install, e.g. `kubectl apply -f crds/`): Helm
/// adopts an object that carries its ownership labels, as a user moving from
/// kustomize to the chart does (docs/src/install/helm.md).
async fn let_helm_adopt_the_crd(admin: &Client, release: &str, namespace: &str) -> TestResult {
    let crds = Api::<CustomResourceDefinition>::all(admin.clone());
    if crds.get_opt(CRD_NAME).await?.is_none() {
        return Ok(());
    }
    let patch = json!({ "metadata": {
        "labels": { "app.kubernetes.io/managed-by": "Helm" },
        "annotations": {
            "meta.helm.sh/release-name": release,
            "meta.helm.sh/release-namespace": namespace,
        },
    }});
    crds.patch(CRD_NAME, &PatchParams::default(), &Patch::Merge(&patch))
        .await?;
    Ok(())
}

fn chart_path() -> String {
    chart_dir().to_string_lossy().to_string()
}

/// `helm <verb> <release> <chart> -n <namespace> -f <values>`.
fn helm_release(
    verb: &str,
    release: &str,
    chart: &str,
    namespace: &str,
    values: &Value,
) -> Result<String, BoxError> {
    let file = values_file(values)?;
    helm_ok(&[
        verb,
        release,
        chart,
        "--namespace",
        namespace,
        "--values",
        &file.to_string_lossy(),
    ])
}

fn runtime(name: &str) -> Result<TrussiumRuntime, BoxError> {
    let text = std::fs::read_to_string(repo_root().join("deploy/samples/minimal.yaml"))?;
    let mut runtime: TrussiumRuntime = serde_yaml::from_str(&text)?;
    runtime.metadata.name = Some(name.into());
    Ok(runtime)
}

async fn create_runtime(ns: &TestNamespace, name: &str) -> TestResult {
    ns.api::<TrussiumRuntime>()
        .create(&PostParams::default(), &runtime(name)?)
        .await?;
    Ok(())
}

async fn wait_ready(ns: &TestNamespace, name: &str) -> TestResult {
    let runtimes = ns.api::<TrussiumRuntime>();
    wait_for(
        &format!("runtime {}/{name} to be Ready", ns.name),
        CONVERGE,
        async || {
            let runtime = runtimes.get(name).await?;
            let ready = runtime
                .status
                .as_ref()
                .and_then(|s| s.condition(condition_type::READY))
                .is_some_and(|c| c.status == "True");
            Ok(ready.then_some(()))
        },
    )
    .await?;
    Ok(())
}

async fn installed_deployment(ns: &TestNamespace, name: &str) -> Result<Deployment, BoxError> {
    Ok(ns.api::<Deployment>().get(name).await?)
}

fn args(deployment: &Deployment) -> Vec<String> {
    deployment
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.containers.first())
        .and_then(|c| c.args.clone())
        .unwrap_or_default()
}

/// The Ready series of runtime `namespace/name` in a scrape.
fn ready_series(text: &str, namespace: &str, name: &str) -> f64 {
    sum(
        text,
        "trussium_runtime_status_condition",
        &[
            ("namespace", namespace),
            ("runtime", name),
            ("condition", "Ready"),
            ("status", "True"),
        ],
    )
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn helm_install_upgrade_and_uninstall_run_the_operator_and_keep_the_runtimes() -> TestResult {
    require_cluster();
    let _serial = one_at_a_time().await;
    let ns = TestNamespace::create("chart").await?;
    let apps = TestNamespace::create("chart-apps").await?;
    let admin = ns.client.clone();
    let release = "chart";
    let fullname = "chart-trussium-operator";
    let_helm_adopt_the_crd(&admin, release, &ns.name).await?;

    // Install; two replicas from the installed Deployment, as the kubelet
    // would run its pods; a runtime Ready.
    let started = Instant::now();
    helm_release("install", release, &chart_path(), &ns.name, &json!({}))?;
    let deployment = installed_deployment(&ns, fullname).await?;
    let mut leader = DeployedOperator::start(&admin, &deployment, &format!("{fullname}-a")).await?;
    let mut standby =
        DeployedOperator::start(&admin, &deployment, &format!("{fullname}-b")).await?;
    create_runtime(&apps, "chat").await?;
    wait_ready(&apps, "chat").await?;
    let to_ready = started.elapsed();
    // A second runtime, suspended from its creation, so that the scrape
    // holds the suspension's series too (the alerts read them).
    let mut paused = runtime("paused")?;
    paused.metadata.annotations = Some(
        [(
            trussium_api::suspension::SUSPENDED.to_string(),
            trussium_api::suspension::SUSPENDED_VALUE.to_string(),
        )]
        .into(),
    );
    apps.api::<TrussiumRuntime>()
        .create(&PostParams::default(), &paused)
        .await?;
    println!(
        "helm install to a Ready runtime: {:.1} s",
        to_ready.as_secs_f64()
    );

    // Both replicas export the runtime's health from their caches; one leads.
    let (leader_text, standby_text) = wait_for(
        "both replicas to export the Ready runtime",
        CONVERGE,
        async || {
            let (a, b) = (leader.scrape().await?, standby.scrape().await?);
            let events =
                sum(&a, "trussium_events_total", &[]) + sum(&b, "trussium_events_total", &[]);
            let both = ready_series(&a, &apps.name, "chat") == 1.0
                && ready_series(&b, &apps.name, "chat") == 1.0;
            let suspended = |text: &str| {
                sum(
                    text,
                    "trussium_runtime_suspended_since_seconds",
                    &[("namespace", &apps.name), ("runtime", "paused")],
                ) > 0.0
                    && sum(text, "trussium_runtimes_suspended", &[]) == 1.0
            };
            let paused = suspended(&a) && suspended(&b);
            Ok((both && paused && events >= 1.0).then_some((a, b)))
        },
    )
    .await?;
    let leaders = sum(&leader_text, "leader_election_master_status", &[])
        + sum(&standby_text, "leader_election_master_status", &[]);
    assert_eq!(leaders, 1.0, "exactly one replica leads");
    for text in [&leader_text, &standby_text] {
        let conditions = samples(text)
            .into_iter()
            .filter(|s| {
                s.name == "trussium_runtime_status_condition"
                    && s.labels.get("runtime").map(String::as_str) == Some("chat")
            })
            .count();
        assert_eq!(
            conditions,
            condition_type::ALL.len(),
            "one series per condition"
        );
    }
    // The scrape of the replica that reconciled is what the PromQL test
    // checks the dashboard's and the alerts' metric names against.
    let reconciled = if sum(&leader_text, "leader_election_master_status", &[]) == 1.0 {
        &leader_text
    } else {
        &standby_text
    };
    let snapshot = metrics_snapshot();
    if let Some(dir) = snapshot.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&snapshot, reconciled)?;

    // Upgrade with changed values: three replicas, one watched namespace.
    let values = json!({ "replicaCount": 3, "watchNamespace": apps.name });
    helm_release("upgrade", release, &chart_path(), &ns.name, &values)?;
    let deployment = installed_deployment(&ns, fullname).await?;
    assert_eq!(deployment.spec.as_ref().and_then(|s| s.replicas), Some(3));
    assert!(
        args(&deployment).contains(&format!("--namespace={}", apps.name)),
        "{:?}",
        args(&deployment)
    );
    assert!(
        Api::<ClusterRole>::all(admin.clone())
            .get_opt(fullname)
            .await?
            .is_none(),
        "no ClusterRole in single-namespace mode"
    );
    assert!(
        apps.api::<Role>().get_opt(fullname).await?.is_some(),
        "a Role in the watched namespace"
    );
    let as_operator = client_as_service_account(&admin, &ns.name, fullname).await?;
    let operator_may = |namespace| {
        may(
            &as_operator,
            "list",
            "runtime.trussium.io",
            "trussiumruntimes",
            namespace,
        )
    };
    assert!(!operator_may(None).await?, "no cluster-wide reads left");
    assert!(
        operator_may(Some(apps.name.as_str())).await?,
        "reads in the watched namespace"
    );
    leader.stop().await;
    standby.stop().await;
    let _watching = DeployedOperator::start(&admin, &deployment, &format!("{fullname}-c")).await?;
    create_runtime(&apps, "second").await?;
    wait_ready(&apps, "second").await?;

    // Uninstall: the operator goes, the CRD (keep) and the runtimes stay.
    helm_ok(&["uninstall", release, "--namespace", &ns.name])?;
    assert!(ns.api::<Deployment>().get_opt(fullname).await?.is_none());
    assert!(apps.api::<Role>().get_opt(fullname).await?.is_none());
    let crd = Api::<CustomResourceDefinition>::all(admin.clone())
        .get(CRD_NAME)
        .await?;
    assert!(crd.metadata.deletion_timestamp.is_none(), "the CRD is kept");
    assert_eq!(
        crd.annotations()
            .get("helm.sh/resource-policy")
            .map(String::as_str),
        Some("keep")
    );
    let names: Vec<String> = apps
        .api::<TrussiumRuntime>()
        .list(&Default::default())
        .await?
        .items
        .iter()
        .map(|r| r.name_any())
        .collect();
    assert_eq!(names, ["chat", "paused", "second"], "the runtimes are kept");
    apps.delete().await;
    ns.delete().await;
    Ok(())
}

/// Copies the chart into `dir` as an older release: version 0.0.1, and a CRD
/// without the `Model` printer column.
fn older_chart(dir: &Path) -> Result<String, BoxError> {
    let chart = dir.join("trussium-operator");
    let _ = std::fs::remove_dir_all(&chart);
    copy_dir(&chart_dir(), &chart)?;
    let chart_yaml = chart.join("Chart.yaml");
    let text = std::fs::read_to_string(&chart_yaml)?;
    let text = text
        .lines()
        .map(|l| {
            if l.starts_with("version:") {
                "version: 0.0.1"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&chart_yaml, text)?;
    let crd_path = chart.join("files/crd.yaml");
    let mut crd: Value = serde_yaml::from_str(&std::fs::read_to_string(&crd_path)?)?;
    let versions = crd["spec"]["versions"]
        .as_array_mut()
        .ok_or("the CRD has no versions")?;
    for version in versions {
        let columns = version["additionalPrinterColumns"]
            .as_array_mut()
            .ok_or("the CRD has no printer columns")?;
        let before = columns.len();
        columns.retain(|c| c["name"] != "Model");
        assert_eq!(columns.len(), before - 1, "the CRD had a Model column");
    }
    std::fs::write(&crd_path, serde_yaml::to_string(&crd)?)?;
    Ok(chart.to_string_lossy().to_string())
}

fn has_model_column(crd: &CustomResourceDefinition) -> bool {
    crd.spec.versions.iter().any(|v| {
        v.additional_printer_columns
            .iter()
            .flatten()
            .any(|c| c.name == "Model")
    })
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn helm_upgrade_upgrades_an_older_crd_and_uninstall_keeps_it() -> TestResult {
    require_cluster();
    let _serial = one_at_a_time().await;
    let ns = TestNamespace::create("chart-crd").await?;
    let admin = ns.client.clone();
    let crds = Api::<CustomResourceDefinition>::all(admin.clone());
    let release = "chart-crd";
    let_helm_adopt_the_crd(&admin, release, &ns.name).await?;
    let old = older_chart(&repo_root().join("target/e2e/chart-old"))?;

    helm_release("install", release, &old, &ns.name, &json!({}))?;
    let crd = crds.get(CRD_NAME).await?;
    assert!(
        !has_model_column(&crd),
        "the older chart's CRD is installed"
    );

    helm_release("upgrade", release, &chart_path(), &ns.name, &json!({}))?;
    let crd = crds.get(CRD_NAME).await?;
    assert!(has_model_column(&crd), "helm upgrade upgraded the CRD");
    let labels = crd.labels();
    assert_eq!(
        labels.get("helm.sh/chart").map(String::as_str),
        Some(format!("trussium-operator-{}", env!("CARGO_PKG_VERSION")).as_str())
    );

    helm_ok(&["uninstall", release, "--namespace", &ns.name])?;
    let crd = crds.get(CRD_NAME).await?;
    assert!(
        crd.metadata.deletion_timestamp.is_none() && has_model_column(&crd),
        "uninstall kept the CRD"
    );
    ns.delete().await;
    Ok(())
}

/// The values variants the chart is tested with.
fn variants(watched: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("defaults", json!({})),
        ("single namespace", json!({ "watchNamespace": watched })),
        ("monitoring", monitoring_values()),
        (
            "everything else",
            json!({
                "image": { "repository": "registry.example.com/mirror/trussium-operator", "digest": format!("sha256:{}", "b".repeat(64)), "pullPolicy": "Always" },
                "imagePullSecrets": [{ "name": "regcred" }],
                "replicaCount": 1,
                "leaderElection": { "enabled": false },
                "operator": { "concurrency": 8, "progressDeadlineSeconds": 120, "clusterDomain": "corp.internal", "logLevel": "debug", "logFormat": "text" },
                "resources": { "requests": { "cpu": "100m", "memory": "128Mi" }, "limits": { "memory": "512Mi" } },
                "nodeSelector": { "kubernetes.io/os": "linux" },
                "tolerations": [{ "key": "dedicated", "operator": "Equal", "value": "ops", "effect": "NoSchedule" }],
                "affinity": { "nodeAffinity": { "preferredDuringSchedulingIgnoredDuringExecution": [{ "weight": 1, "preference": { "matchExpressions": [{ "key": "ops", "operator": "Exists" }] } }] } },
                "topologySpreadConstraints": [],
                "podAnnotations": { "example.com/owner": "platform" },
                "podLabels": { "team": "platform" },
                "podDisruptionBudget": { "enabled": false },
                "metrics": { "port": 9090, "service": { "enabled": false } },
                "networkPolicy": { "enabled": true, "apiServerPorts": [8443], "metricsFrom": [{ "namespaceSelector": { "matchLabels": { "kubernetes.io/metadata.name": "monitoring" } } }] },
                "crds": { "enabled": false },
            }),
        ),
    ]
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn every_values_variant_lints_and_passes_a_server_dry_run() -> TestResult {
    require_cluster();
    let _serial = one_at_a_time().await;
    let ns = TestNamespace::create("chart-dry").await?;
    let watched = TestNamespace::create("chart-dry-w").await?;
    let kubectl = kubectl_path();
    let kubeconfig = format!("--kubeconfig={}", admin_kubeconfig_path().display());
    let fixtures = repo_root().join("tests/fixtures/monitoring/crds.yaml");
    run_tool(
        &kubectl,
        &[
            &kubeconfig,
            "apply",
            "--server-side",
            "--field-manager=trussium-e2e",
            "-f",
            &fixtures.to_string_lossy(),
        ],
    )?;
    run_tool(
        &kubectl,
        &[
            &kubeconfig,
            "wait",
            "--for=condition=Established",
            "crd/servicemonitors.monitoring.coreos.com",
            "crd/prometheusrules.monitoring.coreos.com",
            "--timeout=30s",
        ],
    )?;
    let dir = repo_root().join("target/e2e/chart-variants");
    std::fs::create_dir_all(&dir)?;
    for (what, values) in variants(&watched.name) {
        let file = values_file(&values)?;
        let file = file.to_string_lossy();
        helm_ok(&[
            "lint",
            "--strict",
            &chart_path(),
            "--namespace",
            &ns.name,
            "--values",
            &file,
        ])
        .map_err(|e| format!("{what}: {e}"))?;
        let rendered = helm_ok(&[
            "template",
            "variant",
            &chart_path(),
            "--namespace",
            &ns.name,
            "--values",
            &file,
        ])?;
        let manifest = dir.join(format!("{}.yaml", what.replace(' ', "-")));
        std::fs::write(&manifest, &rendered)?;
        run_tool(
            &kubectl,
            &[
                &kubeconfig,
                "apply",
                "--dry-run=server",
                "--server-side",
                "--force-conflicts",
                "--field-manager=trussium-e2e-dry-run",
                "-f",
                &manifest.to_string_lossy(),
            ],
        )
        .map_err(|e| format!("{what}: the API server refused the chart's objects: {e}"))?;
    }
    watched.delete().await;
    ns.delete().await;
    Ok(())
}
