//! The cluster's Kubernetes version: the one asked for, inside the
//! supported range, and what depends on it working there. `make test` runs
//! these on the newest supported version with the whole suite and on the
//! oldest with the core subset (tests/core-subset.txt).

use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use serde_json::json;
use trussium_api::kubernetes::{Minor, supported_range};
use trussium_e2e::{TestResult, ensure, plugin_in, sample, with_operator};

/// The minor the test cluster was started with (`tests/cluster/env.sh`).
const VERSION_ENV: &str = "TRUSSIUM_KUBERNETES_VERSION";

/// The full sample, every optional part of the API at once (NetworkPolicy,
/// autoscaling, a PodDisruptionBudget, scheduling, credentials and pull
/// secrets, resources, pod metadata), converges to Ready on this version:
/// `kubectl wait --for=condition=Ready` returns. Meanwhile the API server
/// reports the version the cluster was started with, inside the supported
/// range; the operator logs no range warning; `kubectl trussium check`
/// passes the cluster with the version and the range.
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_full_sample_converges_on_this_kubernetes_and_check_names_its_version() -> TestResult {
    with_operator("k8s-version", &[], async |h| {
        let info = h.ns.client.apiserver_version().await?;
        let server = Minor::from_server(&info.major, &info.minor)
            .ok_or_else(|| format!("no version in {info:?}"))?;
        if let Ok(asked) = std::env::var(VERSION_ENV) {
            assert_eq!(
                server.to_string(),
                asked,
                "the cluster runs another version than asked"
            );
        }
        let range = supported_range();
        ensure(
            range.outside(server).is_none(),
            format!("Kubernetes {server} is outside {range}"),
        )?;

        h.create_secret("openai-credentials", "api-key", "sk-k8s-version")
            .await?;
        h.create_secret("ghcr-credentials", ".dockerconfigjson", "{}")
            .await?;
        // Its nodeSelector (workload=ai) names no node of the local
        // cluster; every other field as shipped.
        let mut full = sample("full")?;
        full["spec"]["scheduling"]["nodeSelector"] = json!({"type": "kwok"});
        h.create_runtime(full).await?;
        h.wait_ready("inference").await?;
        let waited = h
            .kubectl(&[
                "wait",
                "--for=condition=Ready",
                "trussiumruntime/inference",
                "--timeout=60s",
            ])
            .await?;
        ensure(
            waited.success,
            format!("kubectl wait: {}{}", waited.stdout, waited.stderr),
        )?;
        h.api::<HorizontalPodAutoscaler>().get("inference").await?;
        h.api::<NetworkPolicy>().get("inference").await?;
        h.api::<PodDisruptionBudget>().get("inference").await?;

        let check = plugin_in(h.namespace(), &["check", "-o", "json"]).await?;
        let report: serde_json::Value = serde_json::from_str(&check.stdout)?;
        let cluster = &report["checks"][0];
        assert_eq!(cluster["check"], "cluster", "{check}");
        assert_eq!(cluster["result"], "passed", "{check}");
        let message = cluster["message"].as_str().unwrap_or_default();
        ensure(
            message.contains(&format!(
                "(Kubernetes {}; supported: {range})",
                info.git_version
            )),
            format!("check's cluster line: {message}"),
        )?;

        let log = h.operator.log_text();
        ensure(
            !log.contains("versions this operator supports"),
            format!("the operator warned about a supported version:\n{log}"),
        )
    })
    .await
}
