//! The two served versions: `v1beta1` (stored, what the operator and the
//! plugin speak) and the deprecated `v1alpha1`, with the same schema. A
//! runtime written as `v1alpha1` is the same object read as `v1beta1`: kubectl
//! warns on every use of the old version, the operator converges it, the
//! plugin reads it, and changes made through either version reach it.
//!
//! `source tests/cluster/env.sh && cargo test -p trussium-e2e --test cluster api::versions -- --include-ignored`

use super::support::{as_deprecated, deprecated_api};
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use trussium_api::crd::deprecation_warning;
use trussium_e2e::{
    CONVERGE, Harness, OLD_TAG, TestNamespace, TestResult, ensure, install_crd, kubectl,
    openai_runtime, plugin_in, require_cluster, wait_for, with_operator,
};

const WARNING: &str = "Warning: runtime.trussium.io/v1alpha1 TrussiumRuntime is deprecated; use runtime.trussium.io/v1beta1";

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn kubectl_warns_on_v1alpha1_and_both_versions_show_one_object() -> TestResult {
    require_cluster();
    let ns = TestNamespace::create("api-versions").await?;
    install_crd(&ns.client).await?;
    assert_eq!(
        format!("Warning: {}", deprecation_warning("v1alpha1")),
        WARNING
    );

    let mut manifest = openai_runtime("old", OLD_TAG, 1, None);
    manifest["apiVersion"] = json!("runtime.trussium.io/v1alpha1");
    let applied = kubectl(
        &["apply", "-n", &ns.name, "-f", "-"],
        Some(&manifest.to_string()),
    )
    .await?;
    ensure(applied.success, applied.both())?;
    ensure(
        applied.stderr.contains(WARNING),
        format!("no deprecation warning:\n{}", applied.both()),
    )?;

    // kubectl's default is the preferred (storage) version, without a warning.
    let read = async |resource: &str| -> Result<(Value, String), trussium_e2e::BoxError> {
        let run = kubectl(&["get", "-n", &ns.name, resource, "-o", "json"], None).await?;
        ensure(run.success, run.both())?;
        Ok((serde_json::from_str(&run.stdout)?, run.stderr))
    };
    let (default, quiet) = read("trt/old").await?;
    assert_eq!(default["apiVersion"], "runtime.trussium.io/v1beta1");
    assert!(!quiet.contains("deprecated"), "{quiet}");
    let (beta, _) = read("trussiumruntimes.v1beta1.runtime.trussium.io/old").await?;
    let (alpha, warned) = read("trussiumruntimes.v1alpha1.runtime.trussium.io/old").await?;
    assert!(warned.contains(WARNING), "{warned}");
    assert_eq!(alpha["apiVersion"], "runtime.trussium.io/v1alpha1");
    for field in ["/metadata/uid", "/metadata/resourceVersion", "/spec"] {
        assert_eq!(beta.pointer(field), alpha.pointer(field), "{field}");
    }
    // The API server filled in the same defaults through v1alpha1.
    assert_eq!(beta.pointer("/spec/service/port"), Some(&json!(9000)));

    // The printer columns are the same in both versions.
    let columns = async |resource: &str| -> Result<String, trussium_e2e::BoxError> {
        let run = kubectl(&["get", "-n", &ns.name, resource, "-o", "wide"], None).await?;
        ensure(run.success, run.both())?;
        Ok(run.stdout.lines().next().unwrap_or_default().to_string())
    };
    assert_eq!(
        columns("trussiumruntimes.v1alpha1.runtime.trussium.io").await?,
        columns("trussiumruntimes.v1beta1.runtime.trussium.io").await?
    );
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_runtime_written_as_v1alpha1_converges_and_follows_changes_through_it() -> TestResult {
    with_operator("api-versions-operator", &[], async |h: &mut Harness| {
        let alpha = deprecated_api(&h.ns.client, h.namespace());
        let object: DynamicObject =
            serde_json::from_value(openai_runtime("old", OLD_TAG, 1, None))?;
        alpha
            .create(&PostParams::default(), &as_deprecated(object))
            .await?;

        let rt = h.wait_ready("old").await?;
        h.expect_events(
            &rt,
            &[("Normal", "RuntimeProgressing"), ("Normal", "RuntimeReady")],
        )
        .await?;

        // The status the operator wrote is served through v1alpha1 too.
        let read = alpha.get("old").await?;
        let ready = read.data["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == "Ready")
            .map(|c| c["status"].clone());
        assert_eq!(ready, Some(json!("True")), "{read:?}");

        // A change made through v1alpha1 is converged like any other.
        let scaled = alpha
            .patch(
                "old",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"replicas": 2}})),
            )
            .await?;
        assert_eq!(scaled.metadata.generation, Some(2));
        wait_for(
            "the runtime to be Ready with 2 replicas for generation 2",
            CONVERGE,
            async || {
                let rt = h.get("old").await?;
                let status = rt.status.unwrap_or_default();
                let ready = status
                    .conditions
                    .iter()
                    .any(|c| c.type_ == "Ready" && c.status == "True");
                Ok((ready
                    && status.observed_generation == Some(2)
                    && status.ready_replicas == Some(2))
                .then_some(()))
            },
        )
        .await?;

        // The plugin speaks v1beta1 and reads it like any runtime.
        let status = plugin_in(h.namespace(), &["status", "old"]).await?;
        ensure(status.code == 0, format!("{status}"))?;
        ensure(status.stdout.contains("Ready"), format!("{status}"))?;
        Ok(())
    })
    .await
}
