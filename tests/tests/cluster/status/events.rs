//! Events are said once: never repeated by a restart of the operator (in the
//! middle of an upgrade or after convergence), and the audit log proves that
//! an unchanged reconcile writes neither status nor Events, that the
//! operator's own status write does not start another reconcile while one by
//! anyone else is repaired at once without an Event, and that a
//! metadata-only change of the runtime does not reconcile at all.
//!
//! Every runtime here references an existing Secret: the operator checks it
//! (a metadata GET, which the audit policy records) exactly once per
//! reconcile, so the audit log counts reconciles too.

use std::time::Duration;

use super::support::{Expect, conditions, settle};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use trussium_api::{TrussiumRuntime, condition_type};
use trussium_e2e::{
    Harness, NEVER_READY_IMAGE, OLD_TAG, QUIET_AFTER_SETTLING, TestResult, condition, ensure,
    holds_for, image, openai_runtime, with_operator,
};

use super::support::snapshot;

const N: &str = "Normal";
const W: &str = "Warning";
const SECRET: &str = "creds";

/// Restarts the operator and proves that the new process reconciled the
/// runtime without writing its status or any Event.
async fn restart_says_nothing(
    fx: &mut Harness,
    rt: &TrussiumRuntime,
    events: &[(&str, &str)],
) -> TestResult {
    // Settled conditions can still carry moving messages (a rollout's
    // counts): wait until the operator has had nothing to write for a while,
    // so that what follows the restart is the restart's doing.
    fx.wait_until_quiet(Duration::from_secs(2)).await?;
    let before = fx.get("x").await?.status;
    let mark = fx.mark();
    fx.operator.restart().await?;
    fx.wait_for_reconciles(SECRET, &mark, 1).await?;
    fx.events_stay(rt, events).await?;
    let writes = fx.operator_writes(&mark).await?;
    ensure(
        !writes
            .iter()
            .any(|w| w.contains("trussiumruntimes/status") || w.contains(" events ")),
        format!("a restarted operator wrote status or Events: {writes:?}"),
    )?;
    ensure(
        fx.get("x").await?.status == before,
        "the status changed across the restart",
    )
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn restarts_during_an_upgrade_and_after_convergence_repeat_no_event() -> TestResult {
    // Long enough to restart the operator and watch for a quiet period
    // while the doomed upgrade is still in progress.
    with_operator(
        "status-restart",
        &["--progress-deadline-seconds=40"],
        async |fx: &mut Harness| {
            let v1 = image(OLD_TAG);
            let bad = NEVER_READY_IMAGE.to_string();
            fx.create_secret(SECRET, "api-key", "restart-test-value")
                .await?;
            fx.create_runtime(openai_runtime("x", OLD_TAG, 1, Some(SECRET)))
                .await?;
            let rt = settle(
                fx,
                "x",
                &Expect::ready("first rollout", 1, &v1, ("False", "NoUpgrade")),
            )
            .await?;
            let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
            fx.expect_events(&rt, &events).await?;
            restart_says_nothing(fx, &rt, &events).await?;

            // In the middle of an upgrade: the new pod never becomes ready,
            // the old one serves, the deadline has not passed yet.
            let upgraded_at = tokio::time::Instant::now();
            fx.set_image("x", &bad).await?;
            let rolling = Expect {
                label: "upgrade in progress",
                conditions: conditions(
                    ("True", "DeploymentProgressing"),
                    ("True", "RuntimeAvailable"),
                    ("False", "RuntimeNotReady"),
                    ("False", "AsExpected"),
                    ("True", "UpgradeInProgress"),
                ),
                desired_replicas: 1,
                ready_replicas: Some(1),
                available_replicas: Some(1),
                desired_image: bad.clone(),
                current_image: Some(bad.clone()),
                last_successful_image: Some(v1.clone()),
            };
            let rt = settle(fx, "x", &rolling).await?;
            snapshot(fx, "x", "upgrade-in-progress", "status_events").await?;
            events.extend([(N, "RuntimeUpgradeStarted"), (N, "RuntimeProgressing")]);
            fx.expect_events(&rt, &events).await?;
            restart_says_nothing(fx, &rt, &events).await?;
            ensure(
                upgraded_at.elapsed() < std::time::Duration::from_secs(35),
                "too slow: the restart did not happen well inside the progress deadline",
            )?;
            settle(fx, "x", &rolling).await?;

            // The deadline passes under the restarted operator: said once.
            let failed = Expect {
                label: "upgrade failed",
                conditions: conditions(
                    ("False", "DeploymentFailed"),
                    ("True", "RuntimeAvailable"),
                    ("False", "DeploymentFailed"),
                    ("True", "ProgressDeadlineExceeded"),
                    ("False", "UpgradeFailed"),
                ),
                ..rolling.clone()
            };
            let rt = settle(fx, "x", &failed).await?;
            events.extend([(W, "RuntimeDegraded"), (W, "RuntimeUpgradeFailed")]);
            fx.expect_events(&rt, &events).await?;
            restart_says_nothing(fx, &rt, &events).await?;

            // Recovered and converged: a restart says nothing either.
            fx.set_image("x", &v1).await?;
            let rt = settle(
                fx,
                "x",
                &Expect::ready("back to v1", 1, &v1, ("False", "UpgradeComplete")),
            )
            .await?;
            events.extend([
                (N, "RuntimeUpgradeStarted"),
                (N, "RuntimeProgressing"),
                (N, "RuntimeRecovered"),
                (N, "RuntimeReady"),
                (N, "RuntimeUpgradeCompleted"),
            ]);
            fx.expect_events(&rt, &events).await?;
            restart_says_nothing(fx, &rt, &events).await?;
            Ok(())
        },
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn unchanged_reconciles_and_status_only_updates_write_nothing() -> TestResult {
    with_operator("status-quiet", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        fx.create_secret(SECRET, "api-key", "quiet-test-value").await?;
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, Some(SECRET))).await?;
        let ready = Expect::ready("first rollout", 1, &v1, ("False", "NoUpgrade"));
        let rt = settle(fx, "x", &ready).await?;
        let events = [(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;
        let deployments = fx.ns.api::<Deployment>();

        // Converged: the operator's own last status write starts no further
        // reconcile, and nothing is written.
        fx.wait_until_idle(SECRET, std::time::Duration::from_secs(2))
            .await?;
        let mark = fx.mark();
        fx.stays_idle(SECRET, &mark).await?;

        // A change of the owned Deployment that is not ours (a label)
        // reconciles (owned objects are watched unfiltered) but writes
        // nothing: not the Deployment, not the status, no Event.
        let mark = fx.mark();
        deployments
            .patch(
                "x",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"labels": {"e2e.trussium.io/touched": "1"}}})),
            )
            .await?;
        fx.wait_for_reconciles(SECRET, &mark, 1).await?;
        holds_for("an unchanged reconcile to write nothing", QUIET_AFTER_SETTLING, async || {
            let writes = fx.operator_writes(&mark).await?;
            Ok((!writes.is_empty()).then(|| format!("it wrote {writes:?}")))
        })
        .await?;

        // A metadata-only change of the runtime (an annotation) leaves its
        // generation alone, and the operator reconciles on generation
        // changes only: by design, not even a reconcile.
        fx.wait_until_idle(SECRET, std::time::Duration::from_secs(2))
            .await?;
        let mark = fx.mark();
        let annotated = fx
            .runtimes()
            .patch(
                "x",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"annotations": {"e2e.trussium.io/note": "hello"}}})),
            )
            .await?;
        ensure(
            annotated.metadata.generation == rt.metadata.generation,
            "an annotation changed the generation",
        )?;
        fx.stays_idle(SECRET, &mark).await?;

        // A status-only update by someone else is repaired at once (not at
        // the resync) with one status write and no Event (no condition
        // changed status or reason).
        let mark = fx.mark();
        fx.runtimes()
            .patch_status(
                "x",
                &PatchParams::default(),
                &Patch::<()>::Json(serde_json::from_value(json!([
                    {"op": "test", "path": "/status/conditions/3/type", "value": "Ready"},
                    {"op": "replace", "path": "/status/conditions/3/message", "value": "scribbled by e2e"},
                ]))?),
            )
            .await?;
        let message = |rt: &TrussiumRuntime| {
            condition(rt, condition_type::READY)
                .map(|c| c.message.clone())
                .unwrap_or_default()
        };
        let expected = message(&rt);
        trussium_e2e::wait_for(
            "the operator to repair the Ready message",
            trussium_e2e::PROMPT,
            async || {
                let now = fx.runtimes().get("x").await?;
                Ok((message(&now) == expected).then_some(()))
            },
        )
        .await?;
        settle(fx, "x", &ready).await?;
        fx.events_stay(&rt, &events).await?;
        let writes = fx.operator_writes(&mark).await?;
        ensure(
            writes == ["patch trussiumruntimes/status x"],
            format!("repairing the status wrote {writes:?}"),
        )?;
        // Its own repair starts nothing more.
        fx.wait_until_idle(SECRET, std::time::Duration::from_secs(2))
            .await?;
        let mark = fx.mark();
        fx.stays_idle(SECRET, &mark).await?;

        // A restart: every runtime is reconciled again, nothing is written.
        fx.wait_until_idle(SECRET, std::time::Duration::from_secs(2))
            .await?;
        let mark = fx.mark();
        fx.operator.restart().await?;
        fx.wait_for_reconciles(SECRET, &mark, 1).await?;
        fx.events_stay(&rt, &events).await?;
        let writes = fx.operator_writes(&mark).await?;
        ensure(
            writes.is_empty(),
            format!("a restarted operator wrote {writes:?}"),
        )?;
        Ok(())
    })
    .await
}
