//! Reads from the watch caches. The audit log records every request of the
//! operator (reads too), and its log every reconcile: a reconcile that
//! changes nothing and a resync send no request at all, and drift is still
//! reverted, decided from the cache (one read, to name who changed it, one
//! apply, and one Event that says so).

use std::time::Duration;

use super::support::{PROGRESS_DEADLINE_ARG, at, json_of};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Service};
use kube::ResourceExt;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use tokio::time::Instant;
use trussium_e2e::{
    BoxError, CONVERGE, Harness, PROMPT, TestResult, describe_requests, minimal, with_operator,
};

/// Waits until the operator has sent no request (watches aside) for `window`.
async fn wait_until_silent(h: &Harness, window: Duration) -> TestResult {
    let deadline = Instant::now() + CONVERGE;
    loop {
        let mark = h.mark();
        tokio::time::sleep(window).await;
        let requests = h.operator_requests_since(&mark).await?;
        if requests.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the operator never went silent: {}",
                describe_requests(&requests)
            )
            .into());
        }
    }
}

/// A runtime with every optional owned object, referencing a Secret.
async fn busy_runtime(h: &Harness) -> Result<String, BoxError> {
    h.create_secret("credentials", "api-key", "sk-cache")
        .await?;
    let name = h
        .create_runtime(minimal(
            "cached",
            json!({
                "provider": {"type": "openai", "model": "gpt-5",
                    "credentialsSecretRef": {"name": "credentials", "key": "api-key"}},
                "networkPolicy": {"enabled": true, "ingress": [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}},
                ]},
                "resources": {"requests": {"cpu": "100m"}},
                "autoscaling": {"enabled": true, "minReplicas": 1, "maxReplicas": 3},
            }),
        )?)
        .await?
        .name_any();
    h.wait_ready(&name).await?;
    Ok(name)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn unchanged_reconciles_and_resyncs_send_no_request() -> TestResult {
    // A resync every two seconds instead of five minutes.
    with_operator(
        "op-cache-idle",
        &[PROGRESS_DEADLINE_ARG, "--resync-seconds=2"],
        async |h| {
            let name = busy_runtime(h).await?;
            wait_until_silent(h, Duration::from_secs(3)).await?;

            // Changes to owned objects that need no write reconcile (owned
            // objects are watched unfiltered), and resyncs keep coming.
            let mark = h.mark();
            let log_mark = h.operator.log_mark();
            let label = json!({"metadata": {"labels": {"example.com/seen-by": "audit"}}});
            let annotate = json!({"metadata": {"annotations": {"example.com/seen-by": "audit"}}});
            h.api::<ConfigMap>()
                .patch(&name, &PatchParams::default(), &Patch::Merge(&annotate))
                .await?;
            h.api::<Service>()
                .patch(&name, &PatchParams::default(), &Patch::Merge(&label))
                .await?;
            h.api::<Deployment>()
                .patch(&name, &PatchParams::default(), &Patch::Merge(&label))
                .await?;
            // Three label changes and at least three resyncs.
            h.wait_for_reconciles_of(&name, 6, log_mark, CONVERGE)
                .await?;
            let reconciles = h.reconciles_since(&name, log_mark);
            let requests = h.operator_requests_since(&mark).await?;
            eprintln!("{reconciles} reconciles, {} requests", requests.len());
            assert!(
                requests.is_empty(),
                "{reconciles} reconciles that change nothing sent requests: {}",
                describe_requests(&requests)
            );
            Ok(())
        },
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn drift_is_reverted_from_the_cache_without_a_read() -> TestResult {
    with_operator("op-cache-drift", &[PROGRESS_DEADLINE_ARG], async |h| {
        let name = busy_runtime(h).await?;
        wait_until_silent(h, Duration::from_secs(3)).await?;

        let mark = h.mark();
        let configs = h.api::<ConfigMap>();
        configs
            .patch(
                &name,
                &PatchParams::default(),
                &Patch::Merge(json!({"data": {"TRUSSIUM_PROVIDER_MODEL": "tampered"}})),
            )
            .await?;
        h.wait_object(
            "the ConfigMap to be reverted",
            &name,
            PROMPT,
            |c: &ConfigMap| {
                json_of(c).is_ok_and(|c| at(&c, "/data/TRUSSIUM_PROVIDER_MODEL") == "gpt-5")
            },
        )
        .await?;
        wait_until_silent(h, Duration::from_secs(3)).await?;
        let requests: Vec<String> = h
            .operator_requests_since(&mark)
            .await?
            .iter()
            .map(|e| {
                let name = e.object_ref.as_ref().and_then(|o| o.name.clone());
                format!("{} {} {}", e.verb, e.resource(), name.unwrap_or_default())
            })
            .collect();
        // The drift was seen in the cache: one read of the ConfigMap for
        // its managedFields (who changed it), one apply, one Event. (The
        // ConfigMap feeds no pod template hash: nothing rolls.)
        assert_eq!(
            requests.len(),
            3,
            "requests to revert the drift: {requests:?}"
        );
        assert_eq!(
            requests[0],
            format!("get configmaps {name}"),
            "{requests:?}"
        );
        assert_eq!(
            requests[1],
            format!("patch configmaps {name}"),
            "{requests:?}"
        );
        assert!(
            requests[2].starts_with(&format!("create events {name}.")),
            "{requests:?}"
        );
        Ok(())
    })
    .await
}
