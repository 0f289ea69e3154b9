//! The other ways a runtime is degraded, end to end: a reconcile that fails
//! (an owned object the API server refuses to change), a Deployment that
//! cannot create replicas (ResourceQuota), and the desired replica count
//! following the autoscaler.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, ResourceQuota};
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;
use trussium_api::condition_type;

use super::support::snapshot;
use super::support::{Expect, StatusRecorder, conditions, settle};
use trussium_e2e::{
    Harness, OLD_TAG, TestResult, condition, ensure, image, openai_runtime, with_operator,
};

const N: &str = "Normal";
const W: &str = "Warning";
const SECRET: &str = "creds";
/// A resync every 5 s: how a stalled runtime notices that an obstacle no
/// watch shows is gone.
const FAST: &[&str] = &["--resync-seconds=5"];

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_failing_reconcile_warns_once_and_recovers() -> TestResult {
    with_operator("status-reconcile-fails", FAST, async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        // An immutable ConfigMap of someone else's in the way: the runtime's
        // ConfigMap cannot be applied until it is removed (Stalled).
        let blocker: ConfigMap = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x"},
            "immutable": true,
            "data": {"owner": "someone else"},
        }))?;
        let config_maps = fx.ns.api::<ConfigMap>();
        config_maps.create(&PostParams::default(), &blocker).await?;
        fx.create_secret(SECRET, "api-key", "reconcile-test-value")
            .await?;
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, Some(SECRET)))
            .await?;

        let failing = Expect {
            label: "reconcile failing",
            conditions: [
                (
                    condition_type::CONFIGURATION_VALID,
                    "True",
                    "ReferencesResolved",
                ),
                (condition_type::PROGRESSING, "False", "ReconciliationFailed"),
                (condition_type::AVAILABLE, "False", "RuntimeUnavailable"),
                (condition_type::READY, "False", "ReconciliationFailed"),
                (condition_type::DEGRADED, "True", "ReconciliationFailed"),
                (condition_type::UPGRADING, "False", "NoUpgrade"),
            ],
            desired_replicas: 1,
            ready_replicas: None,
            available_replicas: None,
            desired_image: v1.clone(),
            current_image: None,
            last_successful_image: None,
        };
        let rt = settle(fx, "x", &failing).await?;
        let stalled = condition(&rt, condition_type::STALLED).ok_or("no Stalled")?;
        ensure(
            (stalled.status.as_str(), stalled.reason.as_str()) == ("True", "NameConflict"),
            format!("Stalled: {}/{}", stalled.status, stalled.reason),
        )?;
        snapshot(fx, "x", "reconcile-failing", "status_degraded").await?;
        let seen = fx
            .expect_events(&rt, &[(W, "ReconciliationFailed")])
            .await?;
        ensure(
            seen[0].action == "Reconcile" && seen[0].note.contains("ConfigMap"),
            format!(
                "ReconciliationFailed Event: {} / {}",
                seen[0].action, seen[0].note
            ),
        )?;
        // The operator looks again (at the resync); the failure is announced
        // once per episode.
        let mark = fx.mark();
        fx.wait_for_reconciles(SECRET, &mark, 2).await?;
        settle(fx, "x", &failing).await?;
        fx.events_stay(&rt, &[(W, "ReconciliationFailed")]).await?;

        // Out of the way: the next resync converges.
        config_maps.delete("x", &DeleteParams::default()).await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("recovered", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        let events = [
            (W, "ReconciliationFailed"),
            (N, "RuntimeProgressing"),
            (N, "RuntimeRecovered"),
            (N, "RuntimeReady"),
        ];
        let seen = fx.expect_events(&rt, &events).await?;
        ensure(
            seen[2].note.contains("ReconciliationFailed"),
            format!("RuntimeRecovered note: {}", seen[2].note),
        )?;
        fx.events_stay(&rt, &events).await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn replicas_the_deployment_cannot_create_degrade_the_runtime() -> TestResult {
    with_operator("status-replica-failure", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        let quota: ResourceQuota = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "one-pod"},
            "spec": {"hard": {"pods": "1"}},
        }))?;
        fx.ns
            .api::<ResourceQuota>()
            .create(&PostParams::default(), &quota)
            .await?;
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None))
            .await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("first rollout", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;

        // A second replica exceeds the quota.
        fx.set_replicas("x", 2).await?;
        let stuck = Expect {
            label: "second replica refused",
            conditions: conditions(
                ("True", "DeploymentProgressing"),
                ("True", "RuntimeAvailable"),
                ("False", "RuntimeNotReady"),
                ("True", "ReplicaFailure"),
                ("False", "NoUpgrade"),
            ),
            desired_replicas: 2,
            ready_replicas: Some(1),
            available_replicas: Some(1),
            desired_image: v1.clone(),
            current_image: Some(v1.clone()),
            last_successful_image: Some(v1.clone()),
        };
        let rt = settle(fx, "x", &stuck).await?;
        snapshot(fx, "x", "replica-failure", "status_degraded").await?;
        let degraded = condition(&rt, condition_type::DEGRADED)
            .map(|c| c.message.clone())
            .unwrap_or_default();
        ensure(
            degraded.contains("exceeded quota"),
            format!("Degraded message: {degraded}"),
        )?;
        events.extend([(N, "RuntimeProgressing"), (W, "RuntimeDegraded")]);
        let seen = fx.expect_events(&rt, &events).await?;
        ensure(
            seen[3].note.contains("exceeded quota") && seen[3].action == "Rollout",
            format!(
                "RuntimeDegraded Event: {} / {}",
                seen[3].action, seen[3].note
            ),
        )?;
        fx.events_stay(&rt, &events).await?;

        // Back to what fits: recovered and ready. The Deployment may report
        // readiness before it drops the failure or both at once, so the two
        // Events may come in either order.
        fx.set_replicas("x", 1).await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("scaled back", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        let mut recovered = events.clone();
        recovered.extend([(N, "RuntimeRecovered"), (N, "RuntimeReady")]);
        let mut ready_first = events.clone();
        ready_first.extend([(N, "RuntimeReady"), (N, "RuntimeRecovered")]);
        let uid = rt.metadata.uid.clone().unwrap_or_default();
        let final_events = fx
            .expect_any_events(&uid, &[recovered, ready_first])
            .await?;
        fx.events_stay(&rt, &final_events).await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn desired_replicas_follow_the_autoscaler() -> TestResult {
    with_operator("status-autoscaling", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        let mut manifest = openai_runtime("x", OLD_TAG, 1, None);
        manifest["spec"]["autoscaling"] =
            json!({"enabled": true, "minReplicas": 1, "maxReplicas": 5});
        manifest["spec"]["resources"] = json!({"requests": {"cpu": "100m"}});
        fx.create_runtime(manifest).await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("first rollout", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;

        // The HPA (here: someone acting like it, through the scale
        // subresource; the cluster has no metrics) picks 3 replicas.
        let recorder = StatusRecorder::start(&fx.runtimes(), "x").await?;
        let deployments = fx.ns.api::<Deployment>();
        deployments
            .patch_scale(
                "x",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"replicas": 3}})),
            )
            .await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("HPA chose 3", 3, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        ensure(
            rt.spec.replicas == 1 && rt.metadata.generation == Some(1),
            "the runtime's spec changed",
        )?;
        snapshot(fx, "x", "hpa-scaled", "status_degraded").await?;
        // Whether the operator saw the scale-up in flight (Ready False while
        // 1 of 3 ran) depends on how fast KWOK made the pods ready: the
        // Events must match the statuses it actually stored, exactly.
        trussium_e2e::wait_for(
            "the status watch to deliver the settled status",
            std::time::Duration::from_secs(30),
            async || Ok((recorder.statuses().last() == rt.status.as_ref()).then_some(())),
        )
        .await?;
        let ready = recorder.condition_sequence(condition_type::READY);
        let ready: Vec<&str> = ready.iter().map(String::as_str).collect();
        match ready[..] {
            ["True/RuntimeReady"] => {}
            [
                "True/RuntimeReady",
                "False/RuntimeNotReady",
                "True/RuntimeReady",
            ] => {
                events.extend([(N, "RuntimeProgressing"), (N, "RuntimeReady")]);
            }
            _ => return Err(format!("Ready went {ready:?}").into()),
        }
        fx.expect_events(&rt, &events).await?;
        fx.events_stay(&rt, &events).await?;
        Ok(())
    })
    .await
}
