//! `kubectl trussium migrate`: runtimes stored as `v1alpha1` (under a CRD
//! that stored that version, as releases before `v1beta1` did) are rewritten
//! in `v1beta1`, the CRD's storedVersions trimmed, and then a CRD without
//! `v1alpha1` is accepted with every runtime still readable. Before the
//! migration the API server refuses that CRD: the upgrade failure the
//! migration exists for. A migration killed half way leaves every runtime
//! valid, storedVersions untouched, and the next run finishes it.
//!
//! Cluster-wide (the CRD's storage version): one test at a time in this
//! binary.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use serde_json::{Value, json};
use trussium_api::crd::api_resource;
use trussium_e2e::{
    BoxError, TestNamespace, TestResult, ensure_exit, install_crd, kubectl_trussium, minimal,
    plugin, require_cluster, stored_api_version, wait_for,
};

use super::one_at_a_time;

const CRD: &str = "trussiumruntimes.runtime.trussium.io";
const RUNTIMES: [&str; 3] = ["one", "two", "three"];
const ALPHA: &str = "runtime.trussium.io/v1alpha1";
const BETA: &str = "runtime.trussium.io/v1beta1";

/// The runtimes of `namespace` through `version` ("v1alpha1", "v1beta1").
fn runtimes_at(client: &Client, namespace: &str, version: &str) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), namespace, &api_resource(version))
}

/// A minimal runtime `name` written as `api_version`.
fn runtime_as(name: &str, api_version: &str) -> Result<DynamicObject, BoxError> {
    let mut manifest = minimal(name, json!({}))?;
    manifest["apiVersion"] = json!(api_version);
    Ok(serde_json::from_value(manifest)?)
}

/// Waits until a runtime written now through `version` is stored as it
/// (etcd says so): the API server switches its storage a moment after the
/// CRD changes.
async fn wait_until_stored_as(client: &Client, namespace: &str, version: &str) -> TestResult {
    let api = runtimes_at(client, namespace, version);
    let api_version = api_resource(version).api_version;
    let probe = runtime_as("probe", &api_version)?;
    wait_for(
        &format!("the API server to store runtimes as {version}"),
        std::time::Duration::from_secs(30),
        async || {
            let _ = api.create(&PostParams::default(), &probe).await;
            let stored = stored_api_version(namespace, "probe").await?;
            let _ = api.delete("probe", &Default::default()).await;
            Ok((stored.as_deref() == Some(api_version.as_str())).then_some(()))
        },
    )
    .await?;
    Ok(())
}

/// This release's CRD with its versions changed by `edit`.
fn crd_with(edit: impl Fn(&mut CustomResourceDefinition)) -> CustomResourceDefinition {
    let mut crd = trussium_api::crd::crd();
    edit(&mut crd);
    crd
}

/// The CRD as a release before v1beta1 stored it: v1alpha1 is the storage
/// version (v1beta1 stays served: the cluster's storedVersions lists it
/// already, so it may not be dropped).
fn storing_v1alpha1() -> CustomResourceDefinition {
    crd_with(|crd| {
        for version in &mut crd.spec.versions {
            version.storage = version.name == "v1alpha1";
            version.deprecated = None;
            version.deprecation_warning = None;
        }
    })
}

/// This release's CRD without v1alpha1: what a later release will apply.
fn without_v1alpha1() -> CustomResourceDefinition {
    crd_with(|crd| crd.spec.versions.retain(|v| v.name != "v1alpha1"))
}

async fn apply(client: &Client, crd: &CustomResourceDefinition) -> Result<(), kube::Error> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    crds.patch(
        CRD,
        &PatchParams::apply("trussium-e2e").force(),
        &Patch::Apply(crd),
    )
    .await
    .map(|_| ())
}

async fn stored_versions(client: &Client) -> Result<Vec<String>, BoxError> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    Ok(crds
        .get(CRD)
        .await?
        .status
        .and_then(|s| s.stored_versions)
        .unwrap_or_default())
}

/// resourceVersion, generation, spec and status of each runtime.
async fn snapshot(api: &Api<DynamicObject>) -> Result<Vec<(String, Option<i64>, Value)>, BoxError> {
    let mut seen = Vec::new();
    for name in RUNTIMES {
        let object = api.get(name).await?;
        let content = json!({"spec": object.data["spec"], "status": object.data["status"]});
        seen.push((
            object.resource_version().unwrap_or_default(),
            object.metadata.generation,
            content,
        ));
    }
    Ok(seen)
}

/// Creates `names` in `namespace` stored as v1alpha1 (etcd says so), each
/// with a status, under a CRD that stores v1alpha1; then applies this
/// release's CRD again, and waits until runtimes are stored as v1beta1.
async fn store_as_v1alpha1(client: &Client, namespace: &str, names: &[&str]) -> TestResult {
    apply(client, &storing_v1alpha1()).await?;
    wait_until_stored_as(client, namespace, "v1alpha1").await?;
    let alpha = runtimes_at(client, namespace, "v1alpha1");
    for name in names {
        alpha
            .create(&PostParams::default(), &runtime_as(name, ALPHA)?)
            .await?;
        let status = json!({"status": {"observedGeneration": 1, "readyReplicas": 0}});
        alpha
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
            .await?;
        assert_eq!(
            stored_api_version(namespace, name).await?.as_deref(),
            Some(ALPHA)
        );
    }
    install_crd(client).await?;
    wait_until_stored_as(client, namespace, "v1beta1").await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn migrate_rewrites_v1alpha1_runtimes_so_that_a_crd_without_it_is_accepted() -> TestResult {
    let _one = one_at_a_time().await;
    require_cluster();
    let ns = TestNamespace::create("migrate").await?;
    let client = ns.client.clone();
    install_crd(&client).await?;

    store_as_v1alpha1(&client, &ns.name, &RUNTIMES).await?;
    install_crd(&client).await?;
    let before = stored_versions(&client).await?;
    assert!(before.contains(&"v1alpha1".to_string()), "{before:?}");

    // The failure users hit without a migration.
    let refused = apply(&client, &without_v1alpha1()).await;
    let message = match refused {
        Ok(()) => return Err("a CRD without v1alpha1 was accepted before the migration".into()),
        Err(e) => e.to_string(),
    };
    assert!(message.contains("storedVersions"), "{message}");

    // A dry run writes nothing.
    let beta = runtimes_at(&client, &ns.name, "v1beta1");
    let untouched = snapshot(&beta).await?;
    let dry = plugin(&["migrate", "--dry-run"]).await?;
    ensure_exit(&dry, 0, "migrate --dry-run")?;
    assert!(dry.stdout.contains("would rewrite"), "{dry}");
    assert_eq!(snapshot(&beta).await?, untouched);
    assert_eq!(stored_versions(&client).await?, before);

    // The migration rewrites each runtime once (a new resourceVersion),
    // changes no spec, status or generation, and trims storedVersions.
    let migrated = plugin(&["migrate"]).await?;
    ensure_exit(&migrated, 0, "migrate")?;
    eprintln!("{migrated}");
    assert!(migrated.stdout.contains("rewrote"), "{migrated}");
    assert!(
        migrated.stdout.contains("set storedVersions to v1beta1"),
        "{migrated}"
    );
    let after = snapshot(&beta).await?;
    for ((rv_before, generation_before, content_before), (rv, generation, content)) in
        untouched.iter().zip(&after)
    {
        assert_ne!(rv_before, rv, "a runtime was not rewritten");
        assert_eq!(generation_before, generation);
        assert_eq!(content_before, content);
    }
    assert_eq!(stored_versions(&client).await?, ["v1beta1"]);
    for name in RUNTIMES {
        assert_eq!(
            stored_api_version(&ns.name, name).await?.as_deref(),
            Some(BETA)
        );
    }

    // Never twice: nothing left, nothing written.
    let again = plugin(&["migrate"]).await?;
    ensure_exit(&again, 0, "migrate again")?;
    assert!(again.stdout.contains("nothing to migrate"), "{again}");
    assert_eq!(snapshot(&beta).await?, after);

    // Now a CRD without v1alpha1 is accepted, and every runtime reads.
    apply(&client, &without_v1alpha1()).await?;
    let listed = wait_for(
        "the runtimes to be listed under the CRD without v1alpha1",
        std::time::Duration::from_secs(30),
        async || Ok(beta.list(&Default::default()).await.ok()),
    )
    .await?;
    let mut names: Vec<String> = listed.items.iter().map(|o| o.name_any()).collect();
    names.sort();
    assert_eq!(names, ["one", "three", "two"]);
    assert_eq!(snapshot(&beta).await?, after);

    install_crd(&client).await?;
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_migration_killed_half_way_leaves_every_runtime_valid_and_the_next_run_finishes_it()
-> TestResult {
    let _one = one_at_a_time().await;
    require_cluster();
    let ns = TestNamespace::create("migrate-killed").await?;
    let client = ns.client.clone();
    install_crd(&client).await?;
    // Enough runtimes that the run is still going when the first is done.
    let names: Vec<String> = (0..300).map(|i| format!("rt-{i:03}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    store_as_v1alpha1(&client, &ns.name, &names).await?;
    let before = stored_versions(&client).await?;
    assert!(before.contains(&"v1alpha1".to_string()), "{before:?}");

    // Killed (SIGKILL) once it has rewritten the first of them.
    let mut run = kubectl_trussium(&["migrate"])?
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let first = names[0];
    wait_for(
        "migrate to rewrite the first runtime",
        std::time::Duration::from_secs(60),
        async || {
            Ok((stored_api_version(&ns.name, first).await?.as_deref() == Some(BETA)).then_some(()))
        },
    )
    .await?;
    run.kill().await?;
    let mut left = 0;
    for name in &names {
        if stored_api_version(&ns.name, name).await?.as_deref() == Some(ALPHA) {
            left += 1;
        }
    }
    eprintln!(
        "killed with {left} of {} runtimes still stored as v1alpha1",
        names.len()
    );
    assert!(
        left > 0,
        "migrate finished before it was killed: nothing was interrupted"
    );
    // Nothing trimmed, every runtime valid and readable as it was.
    assert_eq!(stored_versions(&client).await?, before);
    let beta = runtimes_at(&client, &ns.name, "v1beta1");
    let listed = beta.list(&Default::default()).await?;
    assert_eq!(listed.items.len(), names.len());
    for object in &listed.items {
        assert_eq!(object.metadata.generation, Some(1), "{}", object.name_any());
        assert_eq!(object.data["status"]["observedGeneration"], 1);
    }

    // The next run finishes it.
    let finished = plugin(&["migrate"]).await?;
    ensure_exit(&finished, 0, "migrate after the kill")?;
    assert!(
        finished.stdout.contains("set storedVersions to v1beta1"),
        "{finished}"
    );
    assert_eq!(stored_versions(&client).await?, ["v1beta1"]);
    for name in &names {
        assert_eq!(
            stored_api_version(&ns.name, name).await?.as_deref(),
            Some(BETA),
            "{name}"
        );
    }
    ns.delete().await;
    Ok(())
}
