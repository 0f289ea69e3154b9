//! The TrussiumRuntime API as a person meets it through the real `kubectl`:
//! `explain`, `get` with the printer columns, the short name and category,
//! and `scale` through the scale subresource.
//!
//! `source tests/cluster/env.sh && cargo test -p trussium-e2e --test cluster api::kubectl -- --include-ignored`

use std::time::Duration;

use super::support::squeeze;
use kube::Api;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    BoxError, TestNamespace, TestResult, install_crd, kubectl, kubectl_ok, repo_root,
    require_cluster,
};

async fn setup(prefix: &str) -> Result<TestNamespace, BoxError> {
    require_cluster();
    let namespace = TestNamespace::create(prefix).await?;
    install_crd(&namespace.client).await?;
    Ok(namespace)
}

/// Applies `deploy/samples/minimal.yaml` (TrussiumRuntime `private-ai`).
async fn apply_minimal_sample(ns: &TestNamespace) -> Result<(), BoxError> {
    let sample = repo_root().join("deploy/samples/minimal.yaml");
    kubectl_ok(
        &["apply", "-n", &ns.name, "-f", &sample.to_string_lossy()],
        None,
    )
    .await?;
    Ok(())
}

/// `kubectl explain` reads the published OpenAPI, which trails the CRD's
/// establishment by a moment: retry until the field is known.
async fn explain(path: &str) -> Result<String, BoxError> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let run = kubectl(&["explain", path], None).await?;
        if run.success {
            return Ok(run.stdout);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!("kubectl explain {path} kept failing: {}", run.both()).into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn kubectl_explain_shows_the_descriptions() -> TestResult {
    require_cluster();
    install_crd(&trussium_e2e::admin_client().await?).await?;

    let provider = squeeze(&explain("trussiumruntime.spec.provider").await?);
    for expected in [
        "KIND: TrussiumRuntime",
        "VERSION: v1beta1",
        "FIELD: provider <Object>",
        "DESCRIPTION: The model provider the runtime forwards requests to.",
        "type <string> -required- enum: openai, ollama Provider type: openai or ollama.",
        "model <string> -required- Provider model identifier, e.g. gpt-5 or llama3.2.",
        "baseURL <string> Provider or compatible API endpoint.",
        "credentialsSecretRef <Object> Secret name and key holding the provider credential.",
        "the value reaches the pod through secretKeyRef and is never read by the operator",
        "apiKey <string> Not supported. Credentials are never stored in a TrussiumRuntime; use credentialsSecretRef.",
    ] {
        assert!(
            provider.contains(expected),
            "lacks {expected:?}:\n{provider}"
        );
    }

    let root = squeeze(&explain("trt").await?);
    assert!(
        root.contains(
            "TrussiumRuntime declares the desired configuration of one Trussium runtime instance"
        ),
        "{root}"
    );
    let service = squeeze(&explain("trussiumruntime.spec.service.type").await?);
    assert!(
        service.contains("ExternalName is not supported"),
        "{service}"
    );
    // Sub-schemas from Kubernetes keep their own descriptions.
    let affinity =
        squeeze(&explain("trussiumruntime.spec.scheduling.affinity.nodeAffinity").await?);
    assert!(
        affinity.contains("Describes node affinity scheduling rules for the pod."),
        "{affinity}"
    );
    Ok(())
}

/// The rows of `kubectl get` as whitespace-separated columns.
fn table(output: &str) -> Vec<Vec<String>> {
    output
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// `kubectl get trussiumruntimes <name>` together with the object it printed:
/// retried until no write (an operator may be updating the status) happened
/// between the API reads before and after.
async fn get_row(
    ns: &TestNamespace,
    name: &str,
) -> Result<(Vec<Vec<String>>, TrussiumRuntime), BoxError> {
    let runtimes: Api<TrussiumRuntime> = ns.api();
    for _ in 0..20 {
        let before = runtimes.get(name).await?;
        let out = kubectl_ok(&["get", "trussiumruntimes", name, "-n", &ns.name], None).await?;
        let after = runtimes.get(name).await?;
        if before.metadata.resource_version == after.metadata.resource_version {
            return Ok((table(&out), after));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    Err(format!("{name} kept changing while kubectl printed it").into())
}

/// The columns the printer columns should produce for `runtime`, empty
/// ones left out (as splitting the table on whitespace does), AGE aside.
fn expected_row(runtime: &TrussiumRuntime) -> Vec<String> {
    let status = runtime.status.clone().unwrap_or_default();
    let spec = &runtime.spec;
    [
        Some(runtime.metadata.name.clone().unwrap_or_default()),
        status.ready_replicas.map(|r| r.to_string()),
        status.desired_replicas.map(|r| r.to_string()),
        Some(spec.provider.type_.as_str().to_string()),
        Some(spec.provider.model.clone()),
        spec.image.tag.clone(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn kubectl_get_shows_the_columns_and_the_status_values() -> TestResult {
    let ns = setup("api-columns").await?;
    apply_minimal_sample(&ns).await?;

    let (rows, runtime) = get_row(&ns, "private-ai").await?;
    assert_eq!(
        rows.first().map(Vec::as_slice),
        Some(
            &[
                "NAME", "READY", "DESIRED", "PROVIDER", "MODEL", "VERSION", "AGE"
            ]
            .map(String::from)[..]
        ),
        "{rows:?}"
    );
    let row = rows.get(1).ok_or("no row")?;
    let expected = expected_row(&runtime);
    assert_eq!(row[..row.len() - 1], expected[..], "{rows:?}");

    // A status written through the status subresource shows in READY and
    // DESIRED. (Should an operator be running against this cluster, it may
    // write its own status first; the row must then show that one.)
    let runtimes: Api<TrussiumRuntime> = ns.api();
    let status =
        json!({"status": {"readyReplicas": 2, "desiredReplicas": 3, "availableReplicas": 2}});
    runtimes
        .patch_status(
            "private-ai",
            &PatchParams::default(),
            &Patch::Merge(&status),
        )
        .await?;
    let (rows, runtime) = get_row(&ns, "private-ai").await?;
    let row = rows.get(1).ok_or("no row")?;
    let expected = expected_row(&runtime);
    assert_eq!(row.len(), 7, "READY and DESIRED are filled in: {rows:?}");
    assert_eq!(row[..6], expected[..], "{rows:?}");
    assert_eq!(row[3..6], ["ollama", "llama3.2", "v1.22.0"], "{rows:?}");

    // A status write is not a spec change.
    assert_eq!(runtime.metadata.generation, Some(1));
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_short_name_and_the_category_list_runtimes() -> TestResult {
    let ns = setup("api-names").await?;
    apply_minimal_sample(&ns).await?;
    for resource in [
        "trt",
        "trussium",
        "trussiumruntime",
        "trussiumruntimes.runtime.trussium.io",
    ] {
        let out = kubectl_ok(&["get", resource, "-n", &ns.name, "-o", "name"], None).await?;
        assert_eq!(
            out.trim(),
            "trussiumruntime.runtime.trussium.io/private-ai",
            "kubectl get {resource}"
        );
    }
    let out = kubectl_ok(
        &["api-resources", "--api-group", "runtime.trussium.io"],
        None,
    )
    .await?;
    let rows = table(&out);
    assert_eq!(
        rows.get(1).map(Vec::as_slice),
        Some(
            &[
                "trussiumruntimes",
                "trt",
                "runtime.trussium.io/v1beta1",
                "true",
                "TrussiumRuntime"
            ]
            .map(String::from)[..]
        ),
        "{out}"
    );
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn kubectl_scale_changes_spec_replicas() -> TestResult {
    let ns = setup("api-scale").await?;
    apply_minimal_sample(&ns).await?;
    let runtimes: Api<TrussiumRuntime> = ns.api();

    let out = kubectl_ok(
        &[
            "scale",
            "trussiumruntime/private-ai",
            "-n",
            &ns.name,
            "--replicas=3",
        ],
        None,
    )
    .await?;
    assert!(out.contains("scaled"), "{out}");
    let scaled = runtimes.get("private-ai").await?;
    assert_eq!(scaled.spec.replicas, 3);
    assert_eq!(scaled.metadata.generation, Some(2));

    // The scale subresource reads the same number, and 0 is a valid scale.
    let scale = kubectl_ok(
        &[
            "get",
            "trussiumruntime/private-ai",
            "-n",
            &ns.name,
            "--subresource=scale",
            "-o",
            "jsonpath={.spec.replicas}",
        ],
        None,
    )
    .await?;
    assert_eq!(scale.trim(), "3");
    kubectl_ok(
        &["scale", "trt/private-ai", "-n", &ns.name, "--replicas=0"],
        None,
    )
    .await?;
    assert_eq!(runtimes.get("private-ai").await?.spec.replicas, 0);

    // Everything else is untouched.
    let sample: TrussiumRuntime = serde_yaml::from_str(&std::fs::read_to_string(
        repo_root().join("deploy/samples/minimal.yaml"),
    )?)?;
    let mut expected = sample.spec;
    expected.replicas = 0;
    assert_eq!(runtimes.get("private-ai").await?.spec, expected);
    ns.delete().await;
    Ok(())
}
