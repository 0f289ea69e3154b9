//! What GitOps tools read: the live runtime of every scenario the status
//! tests reach is dumped for the kstatus / Argo CD test (tests/gitops, run by
//! `make test` after the cargo tests), with what `kubectl wait
//! --for=condition=Ready` does on it; and `kubectl wait` after an upgrade
//! waits for the new pods, like `kubectl rollout status`.

use super::support::{Expect, conditions, settle, snapshot};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use trussium_api::condition_type;
use trussium_e2e::{
    Harness, NEVER_READY_IMAGE, NEW_TAG, OLD_TAG, TestResult, condition, ensure, image,
    openai_runtime, with_operator,
};

const N: &str = "Normal";
const W: &str = "Warning";

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_runtime_no_operator_has_processed_reads_as_in_progress() -> TestResult {
    with_operator("status-unprocessed", &[], async |fx: &mut Harness| {
        fx.operator.stop().await;
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None))
            .await?;
        // The CRD defaults status to {observedGeneration: 0}: kstatus reads
        // InProgress (not Current, as for a custom resource without any
        // status), Argo CD Progressing, and kubectl wait waits.
        let rt = fx.get("x").await?;
        let status = rt.status.clone().ok_or("no defaulted status")?;
        ensure(
            status.observed_generation == Some(0)
                && status.conditions.is_empty()
                && rt.metadata.generation == Some(1),
            format!("status of an unprocessed runtime: {status:?}"),
        )?;
        snapshot(fx, "x", "not-processed-yet", "status_gitops").await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_first_rollout_that_never_becomes_ready_stalls() -> TestResult {
    with_operator(
        "status-first-fails",
        &["--progress-deadline-seconds=15"],
        async |fx: &mut Harness| {
            let bad = NEVER_READY_IMAGE;
            let (repository, tag) = bad.rsplit_once(':').ok_or("no tag")?;
            let mut manifest = openai_runtime("x", OLD_TAG, 1, None);
            manifest["spec"]["image"] = json!({"repository": repository, "tag": tag});
            fx.create_runtime(manifest).await?;
            let rolling = Expect {
                label: "first rollout in progress",
                conditions: conditions(
                    ("True", "DeploymentProgressing"),
                    ("False", "RuntimeUnavailable"),
                    ("False", "RuntimeNotReady"),
                    ("False", "AsExpected"),
                    ("False", "NoUpgrade"),
                ),
                desired_replicas: 1,
                ready_replicas: Some(0),
                available_replicas: Some(0),
                desired_image: bad.to_string(),
                current_image: Some(bad.to_string()),
                last_successful_image: None,
            };
            settle(fx, "x", &rolling).await?;
            snapshot(fx, "x", "first-rollout-in-progress", "status_gitops").await?;

            let failed = Expect {
                label: "first rollout failed",
                conditions: conditions(
                    ("False", "DeploymentFailed"),
                    ("False", "RuntimeUnavailable"),
                    ("False", "DeploymentFailed"),
                    ("True", "ProgressDeadlineExceeded"),
                    ("False", "NoUpgrade"),
                ),
                ..rolling
            };
            let rt = settle(fx, "x", &failed).await?;
            snapshot(fx, "x", "first-rollout-failed", "status_gitops").await?;
            let events = [(N, "RuntimeProgressing"), (W, "RuntimeDegraded")];
            fx.expect_events(&rt, &events).await?;
            fx.events_stay(&rt, &events).await?;
            Ok(())
        },
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn kubectl_wait_after_an_upgrade_waits_for_the_new_pods() -> TestResult {
    with_operator(
        "status-wait",
        &["--progress-deadline-seconds=600"],
        async |fx: &mut Harness| {
            let (v1, v2) = (image(OLD_TAG), image(NEW_TAG));
            fx.create_runtime(openai_runtime("x", OLD_TAG, 2, None))
                .await?;
            settle(
                fx,
                "x",
                &Expect::ready("first rollout", 2, &v1, ("False", "NoUpgrade")),
            )
            .await?;

            // Pods of the new image never become ready: kubectl wait, given
            // 5 s, times out although the old pods serve (Available).
            fx.set_image("x", NEVER_READY_IMAGE).await?;
            let waited = fx
                .kubectl(&[
                    "wait",
                    "--for=condition=Ready",
                    "trussiumruntime/x",
                    "--timeout=5s",
                ])
                .await?;
            ensure(
                !waited.success && waited.stderr.as_str().contains("timed out"),
                format!(
                    "kubectl wait returned during a rollout that cannot finish: {}{}",
                    waited.stdout.as_str(),
                    waited.stderr.as_str()
                ),
            )?;
            // The status says why (progress messages may lag by up to the
            // operator's progress interval, 10 s).
            let mut last = None;
            let seen = trussium_e2e::wait_for(
                "Available, and Ready False on the previous pod template",
                std::time::Duration::from_secs(30),
                async || {
                    let rt = fx.get("x").await?;
                    let of = |t: &str| {
                        condition(&rt, t)
                            .map(|c| (c.status.clone(), c.reason.clone(), c.message.clone()))
                            .unwrap_or_default()
                    };
                    let (available, ready) =
                        (of(condition_type::AVAILABLE), of(condition_type::READY));
                    let upgrading = available.0 == "True"
                        && ready.0 == "False"
                        && ready.1 == "RuntimeNotReady"
                        && ready.2.contains("of the previous pod template");
                    last = Some((available, ready));
                    Ok(upgrading.then_some(()))
                },
            )
            .await;
            ensure(
                seen.is_ok(),
                format!("during the upgrade: (Available, Ready) {last:?}"),
            )?;

            // A good image: kubectl wait returns once the new pods serve.
            fx.set_image("x", &v2).await?;
            let waited = fx
                .kubectl(&[
                    "wait",
                    "--for=condition=Ready",
                    "trussiumruntime/x",
                    "--timeout=90s",
                ])
                .await?;
            ensure(
                waited.success,
                format!(
                    "kubectl wait after the upgrade failed: {}",
                    waited.stderr.as_str()
                ),
            )?;
            // At that moment every desired replica already ran v2 and was
            // ready (counts only grow towards that, so reading them after
            // the return is enough).
            let d = fx.ns.api::<Deployment>().get("x").await?;
            let status = d.status.unwrap_or_default();
            let runs_v2 = d.spec.and_then(|s| s.template.spec).is_some_and(|p| {
                p.containers
                    .iter()
                    .any(|c| c.image.as_deref() == Some(&*v2))
            });
            ensure(
                runs_v2
                    && status.updated_replicas.unwrap_or(0) >= 2
                    && status.ready_replicas.unwrap_or(0) >= 2,
                format!("kubectl wait returned before the new pods were ready: {status:?}"),
            )?;
            settle(
                fx,
                "x",
                &Expect::ready("upgraded", 2, &v2, ("False", "UpgradeComplete")),
            )
            .await?;
            Ok(())
        },
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn annotating_the_deployment_is_not_a_rollout() -> TestResult {
    with_operator(
"status-annotated", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None)).await?;
        let ready = Expect::ready("first rollout", 1, &v1, ("False", "NoUpgrade"));
        let rt = settle(fx, "x", &ready).await?;
        let events = [(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;
        let before = fx.get("x").await?.status;

        // An annotation on the Deployment bumps its generation (annotations
        // are copied to ReplicaSets), yet the pods run the same template.
        let deployments = fx.ns.api::<Deployment>();
        let generation = deployments.get("x").await?.metadata.generation;
        let mark = fx.mark();
        for n in 0..3 {
            let annotated = deployments
                .patch(
                    "x",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"metadata": {"annotations": {"e2e.trussium.io/touched": n.to_string()}}})),
                )
                .await?;
            ensure(
                annotated.metadata.generation > generation,
                "annotating the Deployment did not bump its generation",
            )?;
        }
        // The Deployment controller catches up; the operator reconciles
        // (owned objects are watched) and writes nothing: no status, no Event.
        trussium_e2e::wait_for(
            "the Deployment controller to observe the annotations",
            std::time::Duration::from_secs(60),
            async || {
                let d = deployments.get("x").await?;
                Ok((d.status.and_then(|s| s.observed_generation) == d.metadata.generation)
                    .then_some(()))
            },
        )
        .await?;
        settle(fx, "x", &ready).await?;
        fx.events_stay(&rt, &events).await?;
        let writes = fx.operator_writes(&mark).await?;
        ensure(
            !writes
                .iter()
                .any(|w| w.contains("trussiumruntimes/status") || w.contains(" events ")),
            format!("annotating the Deployment made the operator write {writes:?}"),
        )?;
        ensure(
            fx.get("x").await?.status == before,
            "the status changed although nothing rolled out",
        )?;

        Ok(())
    })
    .await
}
