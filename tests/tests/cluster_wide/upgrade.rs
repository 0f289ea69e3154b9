//! An operator upgrade rolls nothing: the previous release's operator
//! (built from its commit by scripts/previous-operator.sh) converges
//! runtimes that use every optional part under its CRD (`v1alpha1` only);
//! then the upgrade as the manual tells it: this CRD, `kubectl trussium
//! migrate`, this operator. Afterwards no Deployment's pod template
//! changed (no new ReplicaSet), no Event was emitted, no condition moved,
//! and the operator wrote at most once per runtime.
//!
//! Cluster-wide (the CRD): one test at a time in this binary.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use serde_json::{Value, json};
use trussium_api::crd::api_resource;
use trussium_e2e::{
    Audit, BoxError, Harness, OPERATOR_USER, Operator, TestResult, ensure, ensure_exit,
    install_crd, minimal, plugin, repo_root, wait_for, with_operator,
};

use super::one_at_a_time;

/// The runtimes: every optional part between them.
fn runtimes() -> Result<Vec<Value>, BoxError> {
    // The full sample (NetworkPolicy, autoscaling, scheduling, pod
    // metadata, credentials, pull secrets, resources), scheduled onto the
    // local cluster's nodes.
    let mut everything = trussium_e2e::sample("full")?;
    everything["spec"]["scheduling"]["nodeSelector"] = json!({"type": "kwok"});
    let plain = minimal("plain", json!({}))?;
    let scaled = minimal("two-replicas", json!({"replicas": 2}))?;
    Ok(vec![everything, plain, scaled])
}

/// The test namespace's runtimes through `version`.
fn runtimes_at(h: &Harness, version: &str) -> Api<DynamicObject> {
    Api::namespaced_with(h.ns.client.clone(), h.namespace(), &api_resource(version))
}

/// The previous release's operator binary (built once per machine).
async fn previous_operator() -> Result<std::ffi::OsString, BoxError> {
    if let Some(path) = std::env::var_os("TRUSSIUM_PREVIOUS_OPERATOR") {
        return Ok(path);
    }
    let script = repo_root().join("scripts/previous-operator.sh");
    let out = tokio::process::Command::new(&script).output().await?;
    ensure(
        out.status.success(),
        format!(
            "{}: {}\n{}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    )?;
    Ok(String::from_utf8(out.stdout)?.trim().into())
}

/// Installs the CRD the operator `binary` prints (`crd`), as its release
/// shipped it, plus this release's `v1beta1` served but not stored: the
/// shared test cluster has stored `v1beta1` before, and the API server
/// refuses a CRD that drops a version its storedVersions lists. The
/// previous operator reads and writes only `v1alpha1`, which stores.
async fn install_crd_of(h: &Harness, binary: &std::ffi::OsStr) -> TestResult {
    let out = tokio::process::Command::new(binary)
        .arg("crd")
        .output()
        .await?;
    ensure(out.status.success(), "the previous operator printed no CRD")?;
    let mut crd: CustomResourceDefinition = serde_yaml::from_slice(&out.stdout)?;
    let beta = trussium_api::crd::crd()
        .spec
        .versions
        .into_iter()
        .find(|v| v.name == "v1beta1")
        .ok_or("this release's CRD has no v1beta1")?;
    crd.spec.versions.push(
        k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionVersion {
            storage: false,
            ..beta
        },
    );
    let crds: Api<CustomResourceDefinition> = Api::all(h.ns.client.clone());
    crds.patch(
        &crd.name_any(),
        &PatchParams::apply("trussium-e2e-installer").force(),
        &Patch::Apply(&crd),
    )
    .await?;
    Ok(())
}

/// What an upgrade must leave alone, per runtime: the ReplicaSets of its
/// Deployment, the Deployment's generation and pod template, and each
/// condition (type, status, reason, last transition).
#[derive(Debug, PartialEq)]
struct Snapshot {
    replica_sets: Vec<String>,
    deployments: BTreeMap<String, (Option<i64>, Value)>,
    conditions: BTreeMap<String, Vec<(String, String, String, String)>>,
    events: usize,
}

async fn snapshot(h: &Harness, names: &[String], version: &str) -> Result<Snapshot, BoxError> {
    let runtimes = runtimes_at(h, version);
    let mut replica_sets: Vec<String> = h
        .api::<ReplicaSet>()
        .list(&ListParams::default())
        .await?
        .items
        .iter()
        .map(|rs| rs.name_any())
        .collect();
    replica_sets.sort();
    let mut deployments = BTreeMap::new();
    let mut conditions = BTreeMap::new();
    for name in names {
        let d = h.api::<Deployment>().get(name).await?;
        let template = serde_json::to_value(d.spec.as_ref().map(|s| &s.template))?;
        deployments.insert(name.clone(), (d.metadata.generation, template));
        let rt = runtimes.get(name).await?;
        let listed = rt.data["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|c| {
                let field = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                (
                    field("type"),
                    field("status"),
                    field("reason"),
                    field("lastTransitionTime"),
                )
            })
            .collect();
        conditions.insert(name.clone(), listed);
    }
    let events = h.events().list(&ListParams::default()).await?.items.len();
    Ok(Snapshot {
        replica_sets,
        deployments,
        conditions,
        events,
    })
}

/// Waits until every runtime reports Ready=True for its generation
/// (read through `version`).
async fn wait_all_ready(h: &Harness, names: &[String], version: &str) -> TestResult {
    let runtimes = runtimes_at(h, version);
    wait_for(
        "every runtime to be Ready under the previous operator",
        Duration::from_secs(180),
        async || {
            for name in names {
                let rt = runtimes.get(name).await?;
                let generation = rt.metadata.generation;
                let status = &rt.data["status"];
                let ready = status["conditions"].as_array().is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["type"] == "Ready" && c["status"] == "True")
                });
                if !ready || status["observedGeneration"].as_i64() != generation {
                    return Ok(None);
                }
            }
            Ok(Some(()))
        },
    )
    .await?;
    Ok(())
}

/// Waits until `operator` has made no write for `quiet`.
async fn wait_quiet(audit: &Audit, mark: &trussium_e2e::AuditMark, quiet: Duration) -> TestResult {
    let mut last = usize::MAX;
    wait_for(
        "the operator to stop writing",
        Duration::from_secs(120),
        async || {
            audit.settle().await?;
            let writes = audit.writes_by(OPERATOR_USER, mark)?.len();
            let still = writes == last;
            last = writes;
            if !still {
                tokio::time::sleep(quiet).await;
            }
            Ok(still.then_some(()))
        },
    )
    .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_upgrade_from_the_previous_release_rolls_nothing() -> TestResult {
    let _one = one_at_a_time().await;
    let previous = previous_operator().await?;
    with_operator("upgrade", &[], async |h| {
        // This build's operator is not there yet.
        h.operator.stop().await;
        install_crd_of(h, &previous).await?;
        h.create_secret("openai-credentials", "api-key", "sk-upgrade")
            .await?;
        h.create_secret("ghcr-credentials", ".dockerconfigjson", "{}")
            .await?;
        let alpha = runtimes_at(h, "v1alpha1");
        let mut names = Vec::new();
        for mut manifest in runtimes()? {
            manifest["apiVersion"] = json!("runtime.trussium.io/v1alpha1");
            let object: DynamicObject = serde_json::from_value(manifest)?;
            names.push(object.name_any());
            // The API server switches to the older CRD a moment after it.
            wait_for(
                "the v1alpha1 CRD to serve",
                Duration::from_secs(30),
                async || match alpha.create(&PostParams::default(), &object).await {
                    Ok(created) => Ok(Some(created)),
                    Err(kube::Error::Api(status)) if status.is_not_found() => Ok(None),
                    Err(err) => Err(err.into()),
                },
            )
            .await?;
        }
        let audit = Audit::open()?;
        let started = audit.mark();
        h.operator = Operator::start_program(&h.ns.client, std::slice::from_ref(&previous), h.namespace(), &[])
            .await?;
        wait_all_ready(h, &names, "v1alpha1").await?;
        wait_quiet(&audit, &started, Duration::from_secs(5)).await?;
        h.operator.stop().await;
        let previous_writes = audit.writes_by(OPERATOR_USER, &started)?.len();

        // The upgrade, as the manual tells it.
        install_crd(&h.ns.client).await?;
        let migrated = plugin(&["migrate"]).await?;
        ensure_exit(&migrated, 0, "kubectl trussium migrate")?;
        let before = snapshot(h, &names, "v1beta1").await?;
        let mark = audit.mark();
        h.operator = Operator::start(&h.ns.client, h.namespace(), &[]).await?;
        wait_for(
            "this operator to reconcile every runtime",
            Duration::from_secs(60),
            async || {
                let log = h.operator.log_text();
                let reconciled = |n: &String| {
                    let object = format!("/{n}.{}", h.namespace());
                    log.lines()
                        .any(|l| l.contains("reconciled") && l.contains(&object))
                };
                Ok(names.iter().all(reconciled).then_some(()))
            },
        )
        .await?;
        // Anything a reconcile set off has had time to land.
        tokio::time::sleep(Duration::from_secs(10)).await;
        audit.settle().await?;
        let after = snapshot(h, &names, "v1beta1").await?;
        let writes = audit.writes_by(OPERATOR_USER, &mark)?;
        eprintln!(
            "upgrade: {} runtimes; the previous operator wrote {previous_writes} times to converge them; \
             after the upgrade this one wrote {} times ({}), ReplicaSets {} before and {} after, Events {} before and {} after",
            names.len(),
            writes.len(),
            trussium_e2e::describe_requests(&writes),
            before.replica_sets.len(),
            after.replica_sets.len(),
            before.events,
            after.events,
        );
        assert_eq!(after.replica_sets, before.replica_sets, "no new ReplicaSet");
        let templates = |s: &Snapshot| {
            s.deployments
                .iter()
                .map(|(n, (_, t))| (n.clone(), t.clone()))
                .collect::<BTreeMap<_, _>>()
        };
        assert_eq!(templates(&after), templates(&before), "no pod template changed");
        for (name, (generation, _)) in &after.deployments {
            let was = before.deployments.get(name).map(|(g, _)| *g);
            if was != Some(*generation) {
                eprintln!("upgrade: Deployment {name} generation {was:?} -> {generation:?} (its spec outside the pod template)");
            }
        }
        assert_eq!(after.conditions, before.conditions, "no condition moved");
        assert_eq!(after.events, before.events, "no Event");
        for name in &names {
            let of_it = writes
                .iter()
                .filter(|w| w.object_ref.as_ref().and_then(|o| o.name.as_deref()) == Some(name))
                .count();
            ensure(of_it <= 1, format!("{of_it} writes for runtime {name}"))?;
        }
        Ok::<(), BoxError>(())
    })
    .await
}
