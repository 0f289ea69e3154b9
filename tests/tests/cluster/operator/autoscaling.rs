//! The autoscaling hand-off: enabling autoscaling never drops a running
//! runtime's replicas, the operator then leaves the count to the HPA, and
//! disabling it removes the HPA and restores spec.replicas.

use std::time::Duration;

use super::support::{
    PROGRESS_DEADLINE_ARG, ReplicaRecorder, assert_operator_labels, assert_owned_by, at, json_of,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use kube::ResourceExt;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use trussium_e2e::{
    CONVERGE, PROMPT, TestResult, describe_requests, holds_for, minimal, wait_for, with_operator,
};

/// How long a replica count must hold once reached.
const HOLD: Duration = Duration::from_secs(4);

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn autoscaling_takes_over_and_hands_back_without_dropping_replicas() -> TestResult {
    with_operator("op-autoscaling", &[PROGRESS_DEADLINE_ARG], async |h| {
        let rt = h
            .create_runtime(minimal(
                "elastic",
                json!({"replicas": 3, "resources": {"requests": {"cpu": "100m"}}}),
            )?)
            .await?;
        let name = rt.name_any();
        let ready = h.wait_ready(&name).await?;
        assert_eq!(ready.status.as_ref().and_then(|s| s.ready_replicas), Some(3));
        let deployments = h.api::<Deployment>();
        let recorder = ReplicaRecorder::start(deployments.clone(), &name).await?;
        assert_eq!(recorder.values(), [3]);

        // On: the HPA appears, and the Deployment never leaves 3.
        h.patch_spec(
            &name,
            json!({"autoscaling": {
                "enabled": true, "minReplicas": 2, "maxReplicas": 6,
                "targetCPUUtilizationPercentage": 70,
            }}),
        )
        .await?;
        let hpa: HorizontalPodAutoscaler = h.wait_exists("the HPA", &name).await?;
        let rt = h.runtimes().get(&name).await?;
        assert_operator_labels(&hpa.metadata, &name, "the HPA");
        assert_owned_by(&hpa.metadata, &rt, "the HPA");
        assert_eq!(
            at(&json_of(&hpa)?, "/spec"),
            &json!({
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                "minReplicas": 2,
                "maxReplicas": 6,
                "metrics": [{
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}},
                }],
            })
        );
        let rt = h.wait_ready(&name).await?;
        assert_eq!(rt.status.as_ref().and_then(|s| s.desired_replicas), Some(3));
        holds_for("the Deployment at 3 replicas", HOLD, async || {
            let d = deployments.get(&name).await?;
            let replicas = d.spec.and_then(|s| s.replicas);
            Ok((replicas != Some(3)).then(|| format!("it is at {replicas:?}")))
        })
        .await?;
        assert!(
            recorder.values().iter().all(|&r| r == 3),
            "enabling autoscaling changed the replicas: {:?}",
            recorder.values()
        );

        // The HPA decides 5 (simulated: this cluster has no metrics API, so
        // the real HPA controller never scales). The operator follows.
        let mark = h.mark();
        deployments
            .patch_scale(
                &name,
                &PatchParams {
                    field_manager: Some("e2e-simulated-hpa".into()),
                    ..PatchParams::default()
                },
                &Patch::Merge(json!({"spec": {"replicas": 5}})),
            )
            .await?;
        let runtimes = h.runtimes();
        wait_for(
            "status.desiredReplicas to follow the HPA to 5",
            PROMPT,
            async || {
                let rt = runtimes.get(&name).await?;
                Ok((rt.status.and_then(|s| s.desired_replicas) == Some(5)).then_some(()))
            },
        )
        .await?;
        let rt = h.wait_ready(&name).await?;
        assert_eq!(rt.status.as_ref().and_then(|s| s.ready_replicas), Some(5));
        holds_for("the Deployment to stay at 5", HOLD, async || {
            let d = deployments.get(&name).await?;
            let replicas = d.spec.and_then(|s| s.replicas);
            Ok((replicas != Some(5)).then(|| format!("it is at {replicas:?}")))
        })
        .await?;
        let fought: Vec<_> = h
            .operator_writes_since(&mark)
            .await?
            .into_iter()
            .filter(|e| e.resource().starts_with("deployments"))
            .collect();
        assert!(
            fought.is_empty(),
            "the operator wrote the Deployment after the HPA's decision: {}",
            describe_requests(&fought)
        );

        // spec.replicas is ignored while the HPA owns the count...
        h.patch_spec(&name, json!({"replicas": 4})).await?;
        h.wait_ready(&name).await?;
        holds_for("the Deployment to stay at 5", HOLD, async || {
            let d = deployments.get(&name).await?;
            let replicas = d.spec.and_then(|s| s.replicas);
            Ok((replicas != Some(5)).then(|| format!("it is at {replicas:?}")))
        })
        .await?;

        // ...and restored when autoscaling is turned off.
        h.patch_spec(&name, json!({"autoscaling": {"enabled": false}}))
            .await?;
        h.wait_gone::<HorizontalPodAutoscaler>("the HPA to be removed", &name, PROMPT)
            .await?;
        recorder.wait_latest(4, PROMPT).await?;
        let rt = h.wait_ready(&name).await?;
        assert_eq!(rt.status.as_ref().and_then(|s| s.desired_replicas), Some(4));
        // The surplus pod drains; the status follows.
        wait_for("status.readyReplicas to reach 4", CONVERGE, async || {
            let rt = runtimes.get(&name).await?;
            Ok((rt.status.and_then(|s| s.ready_replicas) == Some(4)).then_some(()))
        })
        .await?;
        let seen = recorder.values();
        assert!(
            seen.iter().all(|&r| r >= 3),
            "the Deployment dropped below 3 replicas: {seen:?}"
        );
        // Every value seen is one of the intended counts, in order.
        let mut distinct = seen.clone();
        distinct.dedup();
        assert_eq!(distinct, [3, 5, 4], "replicas seen: {seen:?}");
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn autoscaling_from_a_scaled_runtime_starts_within_the_bounds() -> TestResult {
    with_operator(
        "op-autoscaling-bounds",
        &[PROGRESS_DEADLINE_ARG],
        async |h| {
            // One replica running, then autoscaling 2..4: the HPA would never
            // go below 2, so neither does the hand-off.
            let rt = h
                .create_runtime(minimal(
                    "small",
                    json!({"replicas": 1, "resources": {"limits": {"cpu": "200m"}}}),
                )?)
                .await?;
            let name = rt.name_any();
            h.wait_ready(&name).await?;
            let deployments = h.api::<Deployment>();
            let recorder = ReplicaRecorder::start(deployments.clone(), &name).await?;
            h.patch_spec(
                &name,
                json!({"autoscaling": {"enabled": true, "minReplicas": 2, "maxReplicas": 4}}),
            )
            .await?;
            recorder.wait_latest(2, PROMPT).await?;
            let rt = h.wait_ready(&name).await?;
            assert_eq!(rt.status.as_ref().and_then(|s| s.desired_replicas), Some(2));
            let hpa: HorizontalPodAutoscaler = h.wait_exists("the HPA", &name).await?;
            assert_eq!(at(&json_of(&hpa)?, "/spec/minReplicas"), &json!(2));
            assert_eq!(
                at(
                    &json_of(&hpa)?,
                    "/spec/metrics/0/resource/target/averageUtilization"
                ),
                &json!(80),
                "the default CPU target"
            );
            let mut seen = recorder.values();
            seen.dedup();
            assert_eq!(seen, [1, 2]);

            // Off again: back to spec.replicas (1).
            h.patch_spec(&name, json!({"autoscaling": null})).await?;
            h.wait_gone::<HorizontalPodAutoscaler>("the HPA to be removed", &name, PROMPT)
                .await?;
            recorder.wait_latest(1, CONVERGE).await?;
            h.wait_ready(&name).await?;
            Ok(())
        },
    )
    .await
}
