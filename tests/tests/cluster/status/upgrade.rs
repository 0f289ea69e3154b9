//! The upgrade lifecycle end to end, with KWOK driving pods: an upgrade to a
//! good tag (Started → Completed, lastSuccessfulImage moving only at
//! completion), and an upgrade to an image whose pods never become ready
//! (progress deadline → UpgradeFailed, Degraded) with the recovery by going
//! back to the previous tag.

use super::support::{Expect, StatusRecorder, UpgradeStep, conditions, settle};
use serde_json::json;
use trussium_api::condition_type;
use trussium_e2e::{
    Harness, NEVER_READY_IMAGE, NEW_TAG, OLD_TAG, REPOSITORY, TestResult, ensure, image,
    openai_runtime, pairs, with_operator,
};

use super::support::snapshot;

const N: &str = "Normal";
const W: &str = "Warning";

fn step(upgrading: &str, last: &str, desired: &str) -> UpgradeStep {
    UpgradeStep {
        upgrading: upgrading.to_string(),
        last_successful_image: Some(last.to_string()),
        desired_image: Some(desired.to_string()),
    }
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn upgrade_to_a_good_tag_starts_and_completes() -> TestResult {
    with_operator("status-upgrade", &[], async |fx: &mut Harness| {
        let (v1, v2) = (image(OLD_TAG), image(NEW_TAG));
        fx.create_runtime(openai_runtime("x", OLD_TAG, 2, None))
            .await?;
        // The initial rollout is not an upgrade; its success sets
        // lastSuccessfulImage.
        let rt = settle(
            fx,
            "x",
            &Expect::ready("first rollout", 2, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;

        let recorder = StatusRecorder::start(&fx.runtimes(), "x").await?;
        fx.set_image("x", &v2).await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("upgraded", 2, &v2, ("False", "UpgradeComplete")),
        )
        .await?;
        snapshot(fx, "x", "upgrade-complete", "status_upgrade").await?;

        // Every status the operator stored on the way: Upgrading went
        // NoUpgrade → UpgradeInProgress → UpgradeComplete, and
        // lastSuccessfulImage moved only with the completion.
        let steps = recorder.upgrade_steps();
        let expected = vec![
            step("False/NoUpgrade", &v1, &v1),
            step("True/UpgradeInProgress", &v1, &v2),
            step("False/UpgradeComplete", &v2, &v2),
        ];
        ensure(
            steps == expected,
            format!("upgrade steps: expected {expected:#?}\ngot {steps:#?}"),
        )?;
        // While in progress the current image is already the new one (it is
        // what the Deployment is configured with).
        let in_progress: Vec<_> = recorder
            .statuses()
            .into_iter()
            .filter(|s| {
                s.condition(condition_type::UPGRADING)
                    .is_some_and(|c| c.reason == "UpgradeInProgress")
            })
            .collect();
        ensure(
            in_progress.iter().all(|s| {
                s.current_image.as_deref() == Some(v2.as_str())
                    && s.last_successful_image.as_deref() == Some(v1.as_str())
            }),
            format!("in-progress statuses: {in_progress:#?}"),
        )?;
        let upgrading = in_progress
            .first()
            .and_then(|s| s.condition(condition_type::UPGRADING))
            .ok_or("no UpgradeInProgress status")?;
        ensure(
            upgrading.message.contains(&v1) && upgrading.message.contains(&v2),
            format!("UpgradeInProgress message: {}", upgrading.message),
        )?;

        events.extend([
            (N, "RuntimeUpgradeStarted"),
            (N, "RuntimeProgressing"),
            (N, "RuntimeReady"),
            (N, "RuntimeUpgradeCompleted"),
        ]);
        let seen = fx.expect_events(&rt, &events).await?;
        for e in seen
            .iter()
            .filter(|e| e.reason.starts_with("RuntimeUpgrade"))
        {
            ensure(
                e.note.contains(&v1) && e.note.contains(&v2) && e.action == "Upgrade",
                format!("{} does not name both images: {}", e.reason, e.note),
            )?;
        }
        fx.events_stay(&rt, &events).await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn upgrade_to_a_never_ready_image_fails_and_going_back_recovers() -> TestResult {
    with_operator(
        "status-upgrade-fail",
        &["--progress-deadline-seconds=10"],
        async |fx: &mut Harness| {
            let v1 = image(OLD_TAG);
            let bad = NEVER_READY_IMAGE.to_string();
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

            let recorder = StatusRecorder::start(&fx.runtimes(), "x").await?;
            fx.set_image("x", &bad).await?;
            // The old pod keeps serving; the new one never becomes ready and
            // after 10 s the Deployment gives up.
            let failed = Expect {
                label: "upgrade failed",
                conditions: conditions(
                    ("False", "DeploymentFailed"),
                    ("True", "RuntimeAvailable"),
                    ("False", "DeploymentFailed"),
                    ("True", "ProgressDeadlineExceeded"),
                    ("False", "UpgradeFailed"),
                ),
                desired_replicas: 1,
                ready_replicas: Some(1),
                available_replicas: Some(1),
                desired_image: bad.clone(),
                current_image: Some(bad.clone()),
                last_successful_image: Some(v1.clone()),
            };
            let rt = settle(fx, "x", &failed).await?;
            snapshot(fx, "x", "upgrade-failed", "status_upgrade").await?;
            // Ready went False when the upgrade started (the new pod never
            // became ready): no RuntimeReady in between.
            events.extend([
                (N, "RuntimeUpgradeStarted"),
                (N, "RuntimeProgressing"),
                (W, "RuntimeDegraded"),
                (W, "RuntimeUpgradeFailed"),
            ]);
            let seen = fx.expect_events(&rt, &events).await?;
            for e in seen
                .iter()
                .filter(|e| e.reason.starts_with("RuntimeUpgrade"))
            {
                ensure(
                    e.note.contains(&v1) && e.note.contains(&bad),
                    format!("{} does not name both images: {}", e.reason, e.note),
                )?;
            }
            let failure = seen.last().ok_or("no events")?;
            ensure(
                failure
                    .note
                    .contains(&format!("{v1} remains the last successful image")),
                format!("RuntimeUpgradeFailed note: {}", failure.note),
            )?;
            fx.events_stay(&rt, &events).await?;

            // Going back to the last successful image is an upgrade too, and
            // it recovers the runtime.
            fx.set_image("x", &v1).await?;
            let rt = settle(
                fx,
                "x",
                &Expect::ready("back to v1", 1, &v1, ("False", "UpgradeComplete")),
            )
            .await?;
            snapshot(fx, "x", "going-back", "status_upgrade").await?;
            events.extend([
                (N, "RuntimeUpgradeStarted"),
                (N, "RuntimeProgressing"),
                (N, "RuntimeRecovered"),
                (N, "RuntimeReady"),
                (N, "RuntimeUpgradeCompleted"),
            ]);
            let seen = fx.expect_events(&rt, &events).await?;
            let recovered = seen
                .iter()
                .find(|e| e.reason == "RuntimeRecovered")
                .ok_or("no RuntimeRecovered")?;
            ensure(
                recovered.note.contains("ProgressDeadlineExceeded"),
                format!("RuntimeRecovered note: {}", recovered.note),
            )?;
            fx.events_stay(&rt, &events).await?;

            // lastSuccessfulImage never left v1; Upgrading went
            // NoUpgrade → InProgress → Failed → InProgress → Complete.
            let steps = recorder.upgrade_steps();
            let expected = vec![
                step("False/NoUpgrade", &v1, &v1),
                step("True/UpgradeInProgress", &v1, &bad),
                step("False/UpgradeFailed", &v1, &bad),
                step("True/UpgradeInProgress", &v1, &v1),
                step("False/UpgradeComplete", &v1, &v1),
            ];
            ensure(
                steps == expected,
                format!("upgrade steps: expected {expected:#?}\ngot {steps:#?}"),
            )?;
            let degraded = recorder.condition_sequence(condition_type::DEGRADED);
            ensure(
                degraded
                    == [
                        "False/AsExpected",
                        "True/ProgressDeadlineExceeded",
                        "False/AsExpected",
                    ],
                format!("Degraded went {degraded:?}"),
            )?;
            let ready = recorder.condition_sequence(condition_type::READY);
            ensure(
                ready
                    == [
                        "True/RuntimeReady",
                        "False/RuntimeNotReady",
                        "False/DeploymentFailed",
                        "False/RuntimeNotReady",
                        "True/RuntimeReady",
                    ],
                format!("Ready went {ready:?}"),
            )?;
            Ok(())
        },
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_upgrade_to_a_digest_while_scaled_to_zero_completes_once_a_replica_is_ready()
-> TestResult {
    with_operator("status-upgrade-zero", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        let pinned = format!("{REPOSITORY}@{digest}");
        fx.create_runtime(openai_runtime("x", OLD_TAG, 0, None))
            .await?;
        // Scaled to zero from the start: the empty rollout completes, but no
        // pod of the image was ever ready: no success yet.
        let created = Expect {
            last_successful_image: None,
            ..Expect::scaled_to_zero("created at zero", &v1)
        };
        let rt = settle(fx, "x", &created).await?;
        let events = vec![(N, "RuntimeProgressing"), (N, "RuntimeScaledToZero")];
        fx.expect_events(&rt, &events).await?;

        // A first success at one replica, then back to zero.
        fx.set_replicas("x", 1).await?;
        settle(
            fx,
            "x",
            &Expect::ready("scaled up", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        fx.set_replicas("x", 0).await?;
        let rt = settle(fx, "x", &Expect::scaled_to_zero("back at zero", &v1)).await?;
        let uid = rt.metadata.uid.clone().ok_or("no uid")?;
        let up = [(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        let then = |more: &[(&'static str, &'static str)]| {
            [events.clone(), up.to_vec(), more.to_vec()].concat()
        };
        fx.expect_any_events(
            &uid,
            &[
                then(&[(N, "RuntimeScaledToZero")]),
                then(&[(N, "RuntimeProgressing"), (N, "RuntimeScaledToZero")]),
            ],
        )
        .await?;

        // Pinning a digest is an upgrade; at zero nothing runs it, so it
        // stays in progress, and the last successful image stays.
        fx.patch_spec("x", json!({"image": {"tag": null, "digest": digest}}))
            .await?;
        let pending = Expect {
            label: "pinned while at zero",
            conditions: conditions(
                ("False", "ScaledToZero"),
                ("False", "ScaledToZero"),
                ("True", "ScaledToZero"),
                ("False", "AsExpected"),
                ("True", "UpgradeInProgress"),
            ),
            current_image: Some(pinned.clone()),
            last_successful_image: Some(v1.clone()),
            ..Expect::scaled_to_zero("pinned while at zero", &pinned)
        };
        settle(fx, "x", &pending).await?;

        // Scaled up: it completes once a replica of it is ready.
        fx.set_replicas("x", 1).await?;
        let done = Expect::ready(
            "pinned and scaled up",
            1,
            &pinned,
            ("False", "UpgradeComplete"),
        );
        let rt = settle(fx, "x", &done).await?;
        let seen = fx.events_of(&uid).await?;
        let upgrades: Vec<_> = seen
            .iter()
            .filter(|e| e.reason.starts_with("RuntimeUpgrade"))
            .collect();
        ensure(
            upgrades
                .iter()
                .map(|e| e.reason.as_str())
                .collect::<Vec<_>>()
                == ["RuntimeUpgradeStarted", "RuntimeUpgradeCompleted"],
            format!("upgrade Events: {:?}", pairs(&seen)),
        )?;
        for e in upgrades {
            ensure(
                e.note.contains(&v1) && e.note.contains(&pinned),
                format!("{} does not name both images: {}", e.reason, e.note),
            )?;
        }
        let last = pairs(&seen).last().copied();
        ensure(
            last == Some((N, "RuntimeUpgradeCompleted")),
            format!("the last Event: {last:?}"),
        )?;
        fx.events_stay(&rt, &pairs(&seen)).await?;
        Ok(())
    })
    .await
}
