//! One source of truth for the install surfaces. `deploy/` (kustomize) and
//! the chart are both written by hand, each in its own idiom (bases,
//! overlays and components that users patch; values and conditionals), and
//! these tests prove that they render the same objects, field by field,
//! apart from Helm's own labels: the chart's defaults against `deploy/`, its
//! `watchNamespace` against the single-namespace overlay, its monitoring
//! against the monitored overlay, its `networkPolicy` against deploy/ with
//! the network-policy component. The large data files are not written
//! twice: the chart's CRD is a copy of `crds/` (generated from the API
//! types), `deploy/`'s dashboard a copy of the chart's, `deploy/`'s
//! PrometheusRule the chart's template rendered at its defaults; the tests
//! check the copies and `make generate` (UPDATE_GENERATED=1) writes them.

use serde_json::{Value, json};
use trussium_e2e::manifests::{
    CHART_DIR, chart_objects, differences, kustomize_objects, normalise, parse_documents,
};
use trussium_e2e::repo_root;

use crate::support::{TestResult, check_generated};

/// The release and namespace of the documented install, whose objects are
/// named exactly as `deploy/`'s.
pub const RELEASE: &str = "trussium-operator";
pub const NAMESPACE: &str = "trussium-system";

const DASHBOARD: &str = "dashboards/trussium-operator.json";
const DEPLOY_DASHBOARD: &str = "deploy/components/grafana-dashboard/trussium-operator.json";
const DEPLOY_RULE: &str = "deploy/components/prometheus-rule/prometheus_rule.yaml";
const CHART_CRD: &str = "files/crd.yaml";

/// The CRD as `crds/` ships it.
fn crd() -> Result<Vec<Value>, crate::support::BoxError> {
    let path = repo_root().join(trussium_api::crd::CRD_PATH);
    Ok(parse_documents(&std::fs::read_to_string(path)?)?)
}

/// `kubectl kustomize deploy/<dir>` plus `crds/`, without the Namespace:
/// Helm installs into a namespace that exists (`--create-namespace`) and
/// does not own it.
fn kustomize_with_crd(dir: &str) -> Result<Vec<Value>, crate::support::BoxError> {
    let mut objects: Vec<Value> = kustomize_objects(&repo_root().join(dir))?
        .into_iter()
        .filter(|o| o["kind"] != "Namespace")
        .collect();
    objects.extend(crd()?);
    Ok(objects)
}

fn assert_same(chart_values: Value, dir: &str) -> TestResult {
    let chart = normalise(chart_objects(RELEASE, NAMESPACE, &chart_values)?);
    let kustomize = normalise(kustomize_with_crd(dir)?);
    let differences = differences(&chart, &kustomize);
    assert!(
        differences.is_empty(),
        "the chart with {chart_values} (left) and `kubectl kustomize {dir}` + crds/ (right) differ:\n{}",
        differences.join("\n")
    );
    assert!(chart.len() >= 9, "compared {} objects", chart.len());
    Ok(())
}

#[test]
#[ignore = "needs helm and the control plane's kubectl (make test)"]
fn the_chart_defaults_render_deploy() -> TestResult {
    assert_same(json!({}), "deploy")
}

#[test]
#[ignore = "needs helm and the control plane's kubectl (make test)"]
fn watch_namespace_renders_the_single_namespace_overlay() -> TestResult {
    assert_same(
        json!({ "watchNamespace": "trussium" }),
        "deploy/overlays/single-namespace",
    )
}

/// The chart with all of its monitoring on.
pub fn monitoring_values() -> Value {
    json!({
        "metrics": { "serviceMonitor": { "enabled": true } },
        "prometheusRule": { "enabled": true },
        "grafanaDashboard": { "enabled": true },
    })
}

#[test]
#[ignore = "needs helm and the control plane's kubectl (make test)"]
fn monitoring_renders_the_monitored_overlay() -> TestResult {
    // deploy/'s PrometheusRule is the chart's, rendered at the defaults.
    let rule = chart_objects(RELEASE, NAMESPACE, &monitoring_values())?
        .into_iter()
        .find(|o| o["kind"] == "PrometheusRule")
        .ok_or("the chart renders no PrometheusRule")?;
    let rule = normalise(vec![rule])
        .into_values()
        .next()
        .ok_or("no rule")?;
    let text = format!(
        "# Generated from {CHART_DIR}/templates/prometheusrule.yaml at the chart's defaults\n\
         # by `make generate`; do not edit (change the template and regenerate).\n{}",
        serde_yaml::to_string(&rule)?
    );
    check_generated(&repo_root().join(DEPLOY_RULE), &text)?;
    assert_same(monitoring_values(), "deploy/overlays/monitored")
}

#[test]
#[ignore = "needs helm and the control plane's kubectl (make test)"]
fn network_policy_renders_the_network_policy_component() -> TestResult {
    // deploy/ with the component, as a user's overlay adds it.
    let dir = format!("target/e2e/chart-network-policy-{}", std::process::id());
    let path = repo_root().join(&dir);
    std::fs::create_dir_all(&path)?;
    std::fs::write(
        path.join("kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\n\
         kind: Kustomization\n\
         resources:\n  - ../../../deploy\n\
         components:\n  - ../../../deploy/components/network-policy\n",
    )?;
    let outcome = assert_same(json!({ "networkPolicy": { "enabled": true } }), &dir);
    let _ = std::fs::remove_dir_all(&path);
    outcome
}

#[test]
fn generated_copies_are_current() -> TestResult {
    let root = repo_root();
    let crd = std::fs::read_to_string(root.join(trussium_api::crd::CRD_PATH))?;
    check_generated(&root.join(CHART_DIR).join(CHART_CRD), &crd)?;
    let dashboard = std::fs::read_to_string(root.join(CHART_DIR).join(DASHBOARD))?;
    check_generated(&root.join(DEPLOY_DASHBOARD), &dashboard)?;
    // The dashboard is JSON Grafana loads.
    let parsed: Value = serde_json::from_str(&dashboard)?;
    assert_eq!(parsed["uid"], "trussium-operator");
    Ok(())
}

#[test]
fn the_chart_follows_the_crate_version() -> TestResult {
    let chart: Value = serde_yaml::from_str(&std::fs::read_to_string(
        repo_root().join(CHART_DIR).join("Chart.yaml"),
    )?)?;
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(chart["version"], version, "Chart.yaml version");
    assert_eq!(chart["appVersion"], version, "Chart.yaml appVersion");
    Ok(())
}

/// Helm refuses to install on a cluster older than the oldest supported
/// Kubernetes (kubernetes-versions.txt). No upper bound: a cluster upgraded
/// ahead of a Trussium release must still be able to upgrade the chart;
/// `kubectl trussium check` and the operator warn there instead.
#[test]
fn the_charts_kube_version_starts_at_the_oldest_supported_kubernetes() -> TestResult {
    let chart: Value = serde_yaml::from_str(&std::fs::read_to_string(
        repo_root().join(CHART_DIR).join("Chart.yaml"),
    )?)?;
    let oldest = trussium_api::kubernetes::supported_range().oldest;
    assert_eq!(chart["kubeVersion"], format!(">={oldest}.0-0"));
    Ok(())
}
