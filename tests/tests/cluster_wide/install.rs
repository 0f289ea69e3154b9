//! `kubectl trussium install`, `check` and `uninstall` through the real
//! kubectl against the local cluster, from a cluster without the CRD to a
//! Ready runtime under the operator started with the installed Deployment's
//! arguments, each ✗ of `check` made to happen on the way, and back.
//!
//! Cluster-wide (the CRD, the ClusterRole, trussium-system): one test at a
//! time in this binary.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use serde_json::json;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    BoxError, OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT, PluginOutput, Replica, TestNamespace,
    TestResult, admin_kubeconfig, e2e_dir, ensure_contains, ensure_exit, is_ready,
    kubeconfig_for_service_account, kubectl_trussium_as, minimal, plugin, plugin_dir,
    require_cluster, run_to_end, wait_for,
};

const CONVERGE: Duration = Duration::from_secs(120);
const VERSION: &str = env!("CARGO_PKG_VERSION");
const CRD: &str = "trussiumruntimes.runtime.trussium.io";
const DEPLOYMENT: &str = "trussium-operator";

/// `kubectl trussium ARGS…` with another kubeconfig.
async fn plugin_as(kubeconfig: &Path, args: &[&str]) -> Result<PluginOutput, BoxError> {
    Ok(run_to_end(kubectl_trussium_as(kubeconfig, args)?).await?)
}

fn dir() -> Result<PathBuf, BoxError> {
    let dir = e2e_dir();
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A kubeconfig whose server answers nothing.
fn unreachable_kubeconfig() -> Result<PathBuf, BoxError> {
    let mut kubeconfig = admin_kubeconfig()?;
    for cluster in &mut kubeconfig.clusters {
        if let Some(c) = cluster.cluster.as_mut() {
            c.server = Some("https://127.0.0.1:1".to_string());
        }
    }
    let path = dir()?.join("unreachable.kubeconfig");
    std::fs::write(&path, serde_yaml::to_string(&kubeconfig)?)?;
    Ok(path)
}

/// A ServiceAccount that may do everything `install` does but create or
/// patch a ClusterRole (and read what `check` reads, but no runtime).
struct Installer {
    name: String,
    namespace: String,
    kubeconfig: PathBuf,
    admin: Client,
}

impl Installer {
    async fn create(admin: &Client, namespace: &str) -> Result<Installer, BoxError> {
        let name = format!("{namespace}-installer");
        let params = PatchParams::apply("trussium-e2e-install").force();
        let account: ServiceAccount = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "installer", "namespace": namespace}
        }))?;
        Api::<ServiceAccount>::namespaced(admin.clone(), namespace)
            .patch("installer", &params, &Patch::Apply(&account))
            .await?;
        let write = ["get", "create", "patch"];
        let role: ClusterRole = serde_json::from_value(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name},
            "rules": [
                {"apiGroups": [""], "resources": ["namespaces", "serviceaccounts", "services"], "verbs": write},
                {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": write},
                {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets"], "verbs": write},
                {"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "verbs": write},
                {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get"]},
                {"apiGroups": ["rbac.authorization.k8s.io"],
                 "resources": ["roles", "rolebindings", "clusterrolebindings"], "verbs": write},
                {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["get"]}
            ]
        }))?;
        Api::<ClusterRole>::all(admin.clone())
            .patch(&name, &params, &Patch::Apply(&role))
            .await?;
        let binding: ClusterRoleBinding = serde_json::from_value(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": "installer", "namespace": namespace}]
        }))?;
        Api::<ClusterRoleBinding>::all(admin.clone())
            .patch(&name, &params, &Patch::Apply(&binding))
            .await?;
        let kubeconfig = dir()?.join(format!("{name}.kubeconfig"));
        kubeconfig_for_service_account(admin, namespace, "installer", &kubeconfig).await?;
        Ok(Installer {
            name,
            namespace: namespace.to_string(),
            kubeconfig,
            admin: admin.clone(),
        })
    }

    async fn remove(self) {
        let dp = DeleteParams::default();
        let _ = Api::<ClusterRoleBinding>::all(self.admin.clone())
            .delete(&self.name, &dp)
            .await;
        let _ = Api::<ClusterRole>::all(self.admin.clone())
            .delete(&self.name, &dp)
            .await;
        let _ = Api::<ServiceAccount>::namespaced(self.admin.clone(), &self.namespace)
            .delete("installer", &dp)
            .await;
    }
}

async fn crd_version(admin: &Client) -> Result<Option<String>, BoxError> {
    let crd = Api::<CustomResourceDefinition>::all(admin.clone())
        .get_opt(CRD)
        .await?;
    Ok(crd.and_then(|c| c.labels().get("app.kubernetes.io/version").cloned()))
}

async fn label_crd(admin: &Client, version: &str) -> TestResult {
    Api::<CustomResourceDefinition>::all(admin.clone())
        .patch(
            CRD,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"app.kubernetes.io/version": version}}})),
        )
        .await?;
    Ok(())
}

async fn deployment_exists(admin: &Client) -> Result<bool, BoxError> {
    Ok(
        Api::<Deployment>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
            .get_opt(DEPLOYMENT)
            .await?
            .is_some(),
    )
}

/// The operator process, started with the installed Deployment's arguments
/// as its ServiceAccount (the probe and metrics addresses are the test's).
async fn start_installed_operator(admin: &Client) -> Result<Replica, BoxError> {
    let deployment = Api::<Deployment>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
        .get(DEPLOYMENT)
        .await?;
    let container = deployment
        .spec
        .and_then(|s| s.template.spec)
        .and_then(|p| p.containers.into_iter().next())
        .ok_or("the installed Deployment has no container")?;
    let args: Vec<String> = container
        .args
        .unwrap_or_default()
        .into_iter()
        .filter(|a| {
            !a.starts_with("--metrics-bind-address")
                && !a.starts_with("--health-probe-bind-address")
        })
        .collect();
    let kubeconfig = dir()?.join("installed-operator.kubeconfig");
    kubeconfig_for_service_account(
        admin,
        OPERATOR_NAMESPACE,
        OPERATOR_SERVICE_ACCOUNT,
        &kubeconfig,
    )
    .await?;
    Replica::start_with_kubeconfig("installed-operator", kubeconfig, &args)
}

async fn runtime_ready(runtimes: &Api<TrussiumRuntime>, name: &str) -> TestResult {
    wait_for(&format!("{name} to be Ready"), CONVERGE, async || {
        let rt = runtimes.get(name).await?;
        Ok(is_ready(&rt).then_some(()))
    })
    .await?;
    Ok(())
}

/// `check -n NS` until its output contains `line` (the operator and the
/// Lease move on their own time).
async fn check_until(namespace: &str, line: &str) -> Result<PluginOutput, BoxError> {
    let mut last = None;
    let found = wait_for(&format!("check to say {line:?}"), CONVERGE, async || {
        let out = plugin(&["check", "-n", namespace]).await?;
        let hit = out.stdout.contains(line);
        last = Some(out.to_string());
        Ok(hit.then_some(out))
    })
    .await;
    found.map_err(|e| format!("{e}\nlast check:\n{}", last.unwrap_or_default()).into())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn install_check_every_failure_crd_versions_and_uninstall() -> TestResult {
    require_cluster();
    let _alone = crate::one_at_a_time().await;
    plugin_dir()?;
    let ns = TestNamespace::create("install").await?;
    let admin = ns.client.clone();
    let installer = Installer::create(&admin, &ns.name).await?;
    let mut operator: Option<Replica> = None;
    let outcome = async {
        // A cluster without the CRD and without the operator.
        let crds: Api<CustomResourceDefinition> = Api::all(admin.clone());
        let _ = crds.delete(CRD, &DeleteParams::default()).await;
        wait_for("the CRD to be gone", CONVERGE, async || {
            Ok(crds.get_opt(CRD).await?.is_none().then_some(()))
        })
        .await?;
        let _ = Api::<Deployment>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
            .delete(DEPLOYMENT, &DeleteParams::default())
            .await;
        let out = plugin(&["check", "-n", &ns.name]).await?;
        eprintln!("check, nothing installed:\n{}{}", out.stdout, out.stderr);
        ensure_exit(&out, 10, "check without the CRD or the operator")?;
        ensure_contains(
            &out.stdout,
            &[
                "✓ the API server at https://127.0.0.1:",
                &format!("✗ the CRD {CRD} is not installed\n  → install it with the operator: `kubectl trussium install --wait`"),
                "✗ no operator Deployment trussium-operator in namespace trussium-system",
                "– operator version: not checked: no operator Deployment",
                "– leader: not checked: no operator Deployment",
                &format!("✓ you may read and patch runtimes in namespace {}", ns.name),
            ],
            &out,
        )?;
        ensure_contains(&out.stderr, &["error: 2 of 7 checks failed"], &out)?;

        // Unreachable: one ✗ and the rest not checked, no stack of errors.
        let out = plugin_as(&unreachable_kubeconfig()?, &["check"]).await?;
        eprintln!("check, cluster unreachable:\n{}{}", out.stdout, out.stderr);
        ensure_exit(&out, 10, "check of an unreachable cluster")?;
        ensure_contains(
            &out.stdout,
            &[
                "✗ cannot reach the Kubernetes API server at https://127.0.0.1:1",
                "  → check that the cluster is running",
                "– crd: not checked: the cluster does not answer",
                "– access: not checked: the cluster does not answer",
            ],
            &out,
        )?;

        // Without the right to create a ClusterRole: one line, nothing applied.
        let out = plugin_as(&installer.kubeconfig, &["install"]).await?;
        ensure_exit(&out, 1, "install without ClusterRole rights")?;
        ensure_contains(
            &out.stderr,
            &["error: not installing: you may not create clusterroles.rbac.authorization.k8s.io (cluster-wide), patch clusterroles.rbac.authorization.k8s.io trussium-operator (cluster-wide); nothing was changed\n"],
            &out,
        )?;
        if crds.get_opt(CRD).await?.is_some() || deployment_exists(&admin).await? {
            return Err(format!("a refused install applied something\n{out}").into());
        }

        // install --wait, then a runtime Ready under the operator started
        // with the installed Deployment's arguments.
        let started = Instant::now();
        let out = plugin(&["install", "--wait", "--timeout", "3m"]).await?;
        eprintln!("install --wait:\n{}{}", out.stdout, out.stderr);
        ensure_exit(&out, 0, "install --wait")?;
        ensure_contains(
            &out.stdout,
            &[
                &format!("Installing the Trussium operator {VERSION} into namespace trussium-system, watching all namespaces:"),
                &format!("✓ CustomResourceDefinition {CRD}\n"),
                "✓ ClusterRole trussium-operator",
                &format!("✓ Deployment trussium-system/trussium-operator (image ghcr.io/trussiumhq/trussium-operator:v{VERSION})"),
                "✓ the operator is available (2/2 ready)",
                "See that all is well with: kubectl trussium check\n",
            ],
            &out,
        )?;
        let installed = started.elapsed();
        operator = Some(start_installed_operator(&admin).await?);
        let runtimes: Api<TrussiumRuntime> = ns.api();
        runtimes
            .create(
                &PostParams::default(),
                &serde_json::from_value(minimal("first", json!({}))?)?,
            )
            .await?;
        runtime_ready(&runtimes, "first").await?;
        eprintln!(
            "install --wait took {:.1}s; a Ready runtime {:.1}s after install started",
            installed.as_secs_f64(),
            started.elapsed().as_secs_f64()
        );
        assert_eq!(crd_version(&admin).await?.as_deref(), Some(VERSION));

        let out = check_until(&ns.name, "leads: it renewed the Lease trussium-system/trussium-operator").await?;
        eprintln!("check, all well:\n{}{}", out.stdout, out.stderr);
        ensure_exit(&out, 0, "check of a healthy install")?;
        ensure_contains(
            &out.stdout,
            &[
                &format!("✓ the CRD is installed, version {VERSION} (the plugin's)"),
                "✓ the operator Deployment trussium-system/trussium-operator is available (2/2 ready)",
                &format!("✓ the operator runs ghcr.io/trussiumhq/trussium-operator:v{VERSION} (the plugin's version)"),
                "✓ installed-operator leads",
                &format!("✓ the operator watches all namespaces, {} among them", ns.name),
                &format!("✓ you may read and patch runtimes in namespace {}", ns.name),
            ],
            &out,
        )?;
        if out.stdout.contains('✗') {
            return Err(format!("a ✗ on a healthy install\n{out}").into());
        }
        let out = plugin(&["check", "-n", &ns.name, "-o", "json"]).await?;
        ensure_exit(&out, 0, "check -o json")?;
        let report: serde_json::Value = serde_json::from_str(&out.stdout)?;
        assert_eq!(report["ok"], true, "{out}");
        let results: Vec<&str> = report["checks"]
            .as_array()
            .ok_or("no checks")?
            .iter()
            .filter_map(|c| c["result"].as_str())
            .collect();
        assert_eq!(results, ["passed"; 7], "{out}");

        // ✗ access: someone who may not read or patch runtimes.
        let out = plugin_as(&installer.kubeconfig, &["check", "-n", &ns.name]).await?;
        eprintln!("check, no access to runtimes:\n{}{}", out.stdout, out.stderr);
        ensure_exit(&out, 10, "check without access to runtimes")?;
        ensure_contains(
            &out.stdout,
            &[&format!(
                "✗ you may not get, list, watch, patch runtimes in namespace {}: not status, history, events, diagnose, --watch, --wait, upgrade, rollback, scale, restart, suspend, resume\n  → ask a cluster administrator for a Role in {} that allows get, list, watch, patch on trussiumruntimes.runtime.trussium.io",
                ns.name, ns.name
            )],
            &out,
        )?;

        // ✗ CRD versions: a newer one refuses install; an older one with a
        // runtime is upgraded in place, the runtime untouched.
        label_crd(&admin, "99.0.0").await?;
        let out = plugin(&["install"]).await?;
        ensure_exit(&out, 1, "install over a newer CRD")?;
        ensure_contains(
            &out.stderr,
            &[&format!("error: not installing: the cluster's TrussiumRuntime CRD is version 99.0.0, newer than this plugin's {VERSION}")],
            &out,
        )?;
        assert_eq!(crd_version(&admin).await?.as_deref(), Some("99.0.0"), "nothing applied");
        let out = plugin(&["check", "-n", &ns.name]).await?;
        eprintln!("check, newer CRD:\n{}", out.stdout);
        ensure_exit(&out, 10, "check with a newer CRD")?;
        ensure_contains(
            &out.stdout,
            &[&format!("✗ the CRD is version 99.0.0, newer than the plugin's {VERSION}\n  → upgrade the plugin: `kubectl krew upgrade trussium`")],
            &out,
        )?;
        label_crd(&admin, "0.0.1").await?;
        let out = plugin(&["check", "-n", &ns.name]).await?;
        eprintln!("check, older CRD:\n{}", out.stdout);
        ensure_contains(
            &out.stdout,
            &[&format!("✗ the CRD is version 0.0.1, older than the plugin's {VERSION}\n  → upgrade it in place (runtimes keep running): `kubectl trussium install`")],
            &out,
        )?;
        let before = runtimes.get("first").await?;
        let out = plugin(&["install"]).await?;
        ensure_exit(&out, 0, "install over an older CRD")?;
        ensure_contains(
            &out.stdout,
            &[&format!("✓ CustomResourceDefinition {CRD} (upgraded in place from 0.0.1; 1 runtime keeps running)")],
            &out,
        )?;
        assert_eq!(crd_version(&admin).await?.as_deref(), Some(VERSION));
        let after = runtimes.get("first").await?;
        assert_eq!(before.uid(), after.uid(), "the runtime survived the CRD upgrade");
        runtime_ready(&runtimes, "first").await?;

        // ✗ leader: the operator stops (and gives the Lease up).
        if let Some(mut replica) = operator.take() {
            replica.terminate(Duration::from_secs(30)).await?;
        }
        let out = check_until(&ns.name, "✗ nobody holds the Lease trussium-system/trussium-operator").await?;
        eprintln!("check, no leader:\n{}", out.stdout);
        ensure_exit(&out, 10, "check without a leader")?;
        ensure_contains(
            &out.stdout,
            &["  → see why: `kubectl -n trussium-system describe deployment trussium-operator` and `kubectl -n trussium-system logs deployment/trussium-operator`"],
            &out,
        )?;

        // uninstall refuses while a runtime exists, then goes with --force
        // and leaves the CRD, the runtime and the namespace.
        let out = plugin(&["uninstall"]).await?;
        ensure_exit(&out, 5, "uninstall with a runtime")?;
        ensure_contains(
            &out.stderr,
            &[&format!("error: not uninstalling: 1 runtime exists (in {}); without the operator nobody manages them", ns.name)],
            &out,
        )?;
        assert!(deployment_exists(&admin).await?, "a refused uninstall deleted the Deployment");
        let out = plugin(&["uninstall", "--force"]).await?;
        eprintln!("uninstall --force:\n{}{}", out.stdout, out.stderr);
        ensure_exit(&out, 0, "uninstall --force")?;
        ensure_contains(
            &out.stdout,
            &[
                "✓ Deployment trussium-system/trussium-operator deleted",
                "✓ ClusterRole trussium-operator deleted",
                "✓ Lease trussium-system/trussium-operator deleted",
                "Kept: the CRD, 1 runtime",
            ],
            &out,
        )?;
        assert!(!deployment_exists(&admin).await?);
        assert!(
            Api::<ClusterRole>::all(admin.clone()).get_opt("trussium-operator").await?.is_none()
        );
        assert!(crds.get_opt(CRD).await?.is_some(), "the CRD stays");
        assert!(runtimes.get_opt("first").await?.is_some(), "the runtime stays");
        assert!(
            Api::<Namespace>::all(admin.clone()).get_opt(OPERATOR_NAMESPACE).await?.is_some(),
            "the namespace stays"
        );
        let out = plugin(&["uninstall"]).await?;
        ensure_exit(&out, 1, "uninstall of nothing")?;
        ensure_contains(
            &out.stderr,
            &["error: no Trussium operator is installed in namespace \"trussium-system\""],
            &out,
        )?;

        // ✗ watched namespace: a single-namespace install for another one.
        let out = plugin(&["install", "--watch-namespace", &installer.namespace]).await?;
        ensure_exit(&out, 0, "install --watch-namespace")?;
        let other = TestNamespace::create("install-other").await?;
        let other_name = other.name.clone();
        let out = plugin(&["check", "-n", &other_name]).await?;
        eprintln!("check, another namespace watched:\n{}", out.stdout);
        other.delete().await;
        ensure_exit(&out, 10, "check of an unwatched namespace")?;
        ensure_contains(
            &out.stdout,
            &[&format!(
                "✗ the operator watches only namespace {}, not {}",
                ns.name, other_name
            )],
            &out,
        )?;
        let out = plugin(&["uninstall", "--force"]).await?;
        ensure_exit(&out, 0, "uninstall of the single-namespace install")?;
        ensure_contains(&out.stdout, &[&format!("✓ Role {}/trussium-operator deleted", ns.name)], &out)?;
        Ok::<(), BoxError>(())
    }
    .await;
    if outcome.is_err()
        && let Some(replica) = &operator
    {
        eprintln!("---- installed operator log ----\n{}", replica.log_text());
    }
    drop(operator);
    installer.remove().await;
    // The next tests install what they need (CRD and RBAC) themselves.
    ns.delete().await;
    outcome
}
