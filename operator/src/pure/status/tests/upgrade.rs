//! The upgrade lifecycle and the images it reports.

use super::*;

const UPGRADING_PENDING: [&str; 6] = [
    "True/ReferencesResolved",
    "True/DeploymentGenerationPending",
    "True/RuntimeAvailable",
    "False/RuntimeNotReady",
    "False/AsExpected",
    "True/UpgradeInProgress",
];

/// The old pods serve (Available) but the desired spec is not rolled out
/// (not Ready).
const UPGRADING_ROLLING: [&str; 6] = [
    "True/ReferencesResolved",
    "True/DeploymentProgressing",
    "True/RuntimeAvailable",
    "False/RuntimeNotReady",
    "False/AsExpected",
    "True/UpgradeInProgress",
];

const UPGRADED: [&str; 6] = [
    "True/ReferencesResolved",
    "False/ReconciliationComplete",
    "True/RuntimeAvailable",
    "True/RuntimeReady",
    "False/AsExpected",
    "False/UpgradeComplete",
];

const UPGRADE_FAILED: [&str; 6] = [
    "True/ReferencesResolved",
    "False/DeploymentFailed",
    "True/RuntimeAvailable",
    "False/DeploymentFailed",
    "True/ProgressDeadlineExceeded",
    "False/UpgradeFailed",
];

fn images(s: &TrussiumRuntimeStatus) -> [Option<&str>; 3] {
    [
        s.desired_image.as_deref(),
        s.current_image.as_deref(),
        s.last_successful_image.as_deref(),
    ]
}

#[test]
fn upgrade_to_a_good_tag() {
    let mut w = World::new();
    w.provision();
    w.log.clear();
    let (old, new) = (image("v1.22.0"), image("v1.23.0"));

    w.set_tag("v1.23.0");
    w.apply();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_PENDING);
    assert_events(
        &s.events,
        &["Normal/RuntimeUpgradeStarted", "Normal/RuntimeProgressing"],
    );
    assert_eq!(s.events[0].reason.action().as_str(), "Upgrade");
    assert_eq!(
        s.events[0].note,
        format!("Upgrade started from {old} to {new}.")
    );
    assert_eq!(
        images(&s.status),
        [Some(new.as_str()), Some(new.as_str()), Some(old.as_str())]
    );
    assert_eq!(
        condition(&s.status, "Upgrading").message,
        format!("Upgrading from {old} to {new}.")
    );

    // Surge: the new pod starts while the old one serves.
    w.rolling([2, 1, 1, 1]);
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_ROLLING);
    assert_events(&s.events, &[]);
    assert_eq!(
        s.status.last_successful_image,
        Some(old.clone()),
        "moves only at completion"
    );
    assert_eq!(
        condition(&s.status, "Ready").message,
        "Rollout in progress: 1 of 1 desired replicas run the current pod template; 1 ready, 1 available in total, with 1 replica of the previous pod template."
    );

    // The new pod is ready; the old one still drains: rolled out.
    w.rolling([2, 1, 2, 2]);
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(
        &s.events,
        &["Normal/RuntimeReady", "Normal/RuntimeUpgradeCompleted"],
    );
    assert_eq!(
        s.events[1].note,
        format!("Upgrade from {old} to {new} completed.")
    );
    assert_eq!(
        images(&s.status),
        [Some(new.as_str()), Some(new.as_str()), Some(new.as_str())]
    );
    assert_eq!(
        condition(&s.status, "Upgrading").message,
        format!("Upgrade from {old} to {new} completed.")
    );
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(&s.events, &[]);

    // UpgradeComplete persists, message included, through a scale change:
    // scaling is not an upgrade.
    w.scale(2);
    w.apply();
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Upgrading").reason, "UpgradeComplete");
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(&s.events, &["Normal/RuntimeReady"]);
    assert_eq!(
        condition(&s.status, "Upgrading").message,
        format!("Upgrade from {old} to {new} completed.")
    );

    assert_eq!(
        kinds(&w.log),
        [
            "Normal/RuntimeUpgradeStarted",
            "Normal/RuntimeProgressing",
            "Normal/RuntimeReady",
            "Normal/RuntimeUpgradeCompleted",
            "Normal/RuntimeProgressing",
            "Normal/RuntimeReady",
        ]
    );
}

#[test]
fn upgrade_to_a_failing_image_then_going_back() {
    let mut w = World::new();
    w.provision();
    w.log.clear();
    let (good, bad) = (image("v1.22.0"), image("v0.0.0-never-ready"));

    w.set_tag("v0.0.0-never-ready");
    w.apply();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_PENDING);
    assert_events(
        &s.events,
        &["Normal/RuntimeUpgradeStarted", "Normal/RuntimeProgressing"],
    );
    w.rolling([2, 1, 1, 1]);
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_ROLLING);

    // The progress deadline passes; the old pod still serves.
    w.deadline_exceeded([2, 1, 1, 1]);
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADE_FAILED);
    assert_events(
        &s.events,
        &["Warning/RuntimeDegraded", "Warning/RuntimeUpgradeFailed"],
    );
    assert_eq!(
        s.events[1].note,
        format!(
            "Upgrade from {good} to {bad} failed: the rollout exceeded its progress deadline; {good} remains the last successful image."
        )
    );
    assert_eq!(
        images(&s.status),
        [Some(bad.as_str()), Some(bad.as_str()), Some(good.as_str())]
    );
    assert!(
        condition(&s.status, "Degraded")
            .message
            .contains("exceeded its progress deadline")
    );
    assert_eq!(
        condition(&s.status, "Upgrading").message,
        format!(
            "Rollout of {bad} exceeded its progress deadline; {good} remains the last successful image."
        )
    );

    // Going back to the last successful image is an image change too. The
    // Deployment still shows the old failure until its controller catches up.
    w.set_tag("v1.22.0");
    w.apply();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_PENDING);
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeUpgradeStarted",
            "Normal/RuntimeProgressing",
            "Normal/RuntimeRecovered",
        ],
    );
    assert_eq!(
        s.events[0].note,
        format!("Upgrade started: returning to the last successful image {good}.")
    );
    assert_eq!(
        images(&s.status),
        [
            Some(good.as_str()),
            Some(good.as_str()),
            Some(good.as_str())
        ]
    );

    // The controller adopts the old ReplicaSet but still shows the failed
    // one's deadline, at first with the failed pod still unavailable: not a
    // failure of going back (no Warning), the deadline was set before going
    // back began; not ready either while the failed pod is counted.
    w.readopted_with_stale_counts([2, 1, 1, 1]);
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_ROLLING);
    assert_events(&s.events, &[]);
    w.readopted_with_a_stale_deadline([2, 1, 1, 1]);
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_ROLLING);
    assert_events(&s.events, &[]);

    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(
        &s.events,
        &["Normal/RuntimeReady", "Normal/RuntimeUpgradeCompleted"],
    );
    assert_eq!(
        s.events[1].note,
        format!("Upgrade completed: {good} is running again.")
    );

    assert_eq!(
        kinds(&w.log),
        [
            "Normal/RuntimeUpgradeStarted",
            "Normal/RuntimeProgressing",
            "Warning/RuntimeDegraded",
            "Warning/RuntimeUpgradeFailed",
            "Normal/RuntimeUpgradeStarted",
            "Normal/RuntimeProgressing",
            "Normal/RuntimeRecovered",
            "Normal/RuntimeReady",
            "Normal/RuntimeUpgradeCompleted",
        ]
    );
}

#[test]
fn going_back_that_fails_too_is_a_failed_upgrade() {
    // The earlier ReplicaSet cannot come back (its image is gone, say): the
    // controller's next verdict is set after going back began, so it counts.
    let mut w = World::new();
    failed_upgrade(&mut w);
    w.reconcile();
    w.set_tag("v1.22.0");
    w.apply();
    w.reconcile();
    w.readopted_with_stale_counts([2, 1, 1, 1]);
    assert_conditions(&w.reconcile().status, UPGRADING_ROLLING);
    w.deadline_exceeded([2, 1, 1, 1]);
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADE_FAILED);
    assert_events(
        &s.events,
        &["Warning/RuntimeDegraded", "Warning/RuntimeUpgradeFailed"],
    );
}

fn failed_upgrade(w: &mut World) {
    w.provision();
    w.set_tag("v0.0.0-never-ready");
    w.apply();
    w.reconcile();
    w.deadline_exceeded([2, 1, 1, 1]);
    w.reconcile();
    w.log.clear();
}

#[test]
fn failed_upgrade_persists_through_unrelated_changes() {
    let mut w = World::new();
    failed_upgrade(&mut w);
    // A label change: a new runtime generation, nothing for the Deployment.
    w.bump();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADE_FAILED);
    assert_events(&s.events, &[]);
}

#[test]
fn stale_deadline_is_not_reported_for_a_pending_generation() {
    let mut w = World::new();
    failed_upgrade(&mut w);
    w.set_tag("v1.24.0");
    w.apply();
    assert_eq!(
        w.deployment.as_ref().unwrap().progressing,
        Some("ProgressDeadlineExceeded")
    );
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_PENDING);
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeUpgradeStarted",
            "Normal/RuntimeProgressing",
            "Normal/RuntimeRecovered",
        ],
    );
    assert_eq!(
        s.events[0].note,
        format!(
            "Upgrade started from {} to {}.",
            image("v1.22.0"),
            image("v1.24.0")
        )
    );
}

#[test]
fn failed_upgrade_that_completes_after_all() {
    let mut w = World::new();
    failed_upgrade(&mut w);
    // The controller kept trying and the image eventually became ready.
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeRecovered",
            "Normal/RuntimeReady",
            "Normal/RuntimeUpgradeCompleted",
        ],
    );
    assert_eq!(
        s.status.last_successful_image,
        Some(image("v0.0.0-never-ready"))
    );
}

#[test]
fn a_failure_of_the_old_image_is_not_a_failure_of_the_new_one() {
    // Going back after a failure while the apply fails: the Deployment still
    // runs the failed image and still reports its deadline for the current
    // generation. That says nothing about the image we now want.
    let mut w = World::new();
    failed_upgrade(&mut w);
    w.set_tag("v1.22.0");
    w.reconcile_error = Some("applying Deployment trussium/private-ai: conflict".into());
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/ReconciliationFailed",
            "True/RuntimeAvailable",
            "False/ReconciliationFailed",
            "True/ReconciliationFailed",
            "True/UpgradeInProgress",
        ],
    );
    assert_events(
        &s.events,
        &[
            "Warning/ReconciliationFailed",
            "Normal/RuntimeUpgradeStarted",
        ],
    );
    assert_eq!(s.status.current_image, Some(image("v0.0.0-never-ready")));
}

#[test]
fn new_target_during_an_upgrade_restarts_it() {
    let mut w = World::new();
    w.provision();
    w.log.clear();
    w.set_tag("v1.23.0");
    w.apply();
    w.reconcile();
    w.rolling([2, 1, 1, 1]);
    w.reconcile();

    w.set_tag("v1.24.0");
    w.apply();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_PENDING);
    assert_events(&s.events, &["Normal/RuntimeUpgradeStarted"]);
    assert_eq!(
        s.events[0].note,
        format!(
            "Upgrade started from {} to {}.",
            image("v1.22.0"),
            image("v1.24.0")
        )
    );
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));

    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(
        &s.events,
        &["Normal/RuntimeReady", "Normal/RuntimeUpgradeCompleted"],
    );
    assert_eq!(
        s.events[1].note,
        format!(
            "Upgrade from {} to {} completed.",
            image("v1.22.0"),
            image("v1.24.0")
        )
    );
    let started = w
        .log
        .iter()
        .filter(|e| e.reason == Reason::RuntimeUpgradeStarted)
        .count();
    assert_eq!(started, 2);
}

#[test]
fn operator_down_for_the_whole_upgrade() {
    let mut w = World::new();
    w.provision();
    w.set_tag("v1.23.0");
    w.apply();
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeUpgradeStarted",
            "Normal/RuntimeUpgradeCompleted",
        ],
    );
}

#[test]
fn operator_down_while_an_upgrade_failed() {
    let mut w = World::new();
    w.provision();
    w.set_tag("v0.0.0-never-ready");
    w.apply();
    w.deadline_exceeded([2, 1, 1, 1]);
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADE_FAILED);
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeUpgradeStarted",
            "Warning/RuntimeDegraded",
            "Warning/RuntimeUpgradeFailed",
        ],
    );
}

#[test]
fn initial_provisioning_is_never_an_upgrade() {
    let mut w = World::new();
    w.apply();
    w.reconcile();
    w.rolling([1, 1, 0, 0]);
    w.reconcile();
    // The image changes before the first rollout completed.
    w.set_tag("v1.23.0");
    w.apply();
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Upgrading").reason, "NoUpgrade");
    assert_eq!(
        condition(&s.status, "Upgrading").message,
        "No upgrade: the initial rollout is not an upgrade."
    );
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_eq!(s.status.last_successful_image, Some(image("v1.23.0")));
    assert_eq!(
        condition(&s.status, "Upgrading").message,
        format!(
            "No upgrade in progress; the last successful image is {}.",
            image("v1.23.0")
        )
    );
    assert!(
        w.log.iter().all(|e| !e.reason.as_str().contains("Upgrade")),
        "{:?}",
        kinds(&w.log)
    );
}

#[test]
fn a_failed_initial_rollout_is_not_a_failed_upgrade() {
    let mut w = World::new();
    w.apply();
    w.reconcile();
    w.deadline_exceeded([1, 1, 0, 0]);
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/DeploymentFailed",
            "False/RuntimeUnavailable",
            "False/DeploymentFailed",
            "True/ProgressDeadlineExceeded",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Warning/RuntimeDegraded"]);
    assert_eq!(s.status.last_successful_image, None);

    w.set_tag("v1.22.1");
    w.apply();
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(
        &s.events,
        &["Normal/RuntimeRecovered", "Normal/RuntimeReady"],
    );
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.1")));
}

#[test]
fn digest_images() {
    let other = "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
    let mut w = World::new();
    w.rt.spec.image.tag = None;
    w.rt.spec.image.digest = Some(DIGEST.into());
    w.provision();
    let pinned = format!("{REPO}@{DIGEST}");
    assert_eq!(images(w.status()), [Some(pinned.as_str()); 3]);
    w.log.clear();

    w.set_digest(other);
    w.apply();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_PENDING);
    let next = format!("{REPO}@{other}");
    assert_eq!(
        s.events[0].note,
        format!("Upgrade started from {pinned} to {next}.")
    );
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_eq!(images(&s.status), [Some(next.as_str()); 3]);

    // From a digest to a tag is an image change like any other.
    w.set_tag("v1.23.0");
    w.apply();
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "Upgrading").reason,
        "UpgradeInProgress"
    );
    assert_eq!(s.status.last_successful_image, Some(next));
}

#[test]
fn upgrade_while_scaled_to_zero_completes_once_a_replica_is_ready() {
    let mut w = World::new();
    w.provision();
    w.scale(0);
    w.apply();
    w.rolled_out();
    w.reconcile();
    w.log.clear();

    w.set_tag("v1.23.0");
    w.apply();
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "Upgrading").reason,
        "UpgradeInProgress"
    );
    assert_events(
        &s.events,
        &["Normal/RuntimeUpgradeStarted", "Normal/RuntimeProgressing"],
    );
    // The Deployment's rollout completes at zero, and no pod ran the image:
    // scaled to zero is reached, the upgrade is not complete.
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/ScaledToZero",
            "False/ScaledToZero",
            "True/ScaledToZero",
            "False/AsExpected",
            "True/UpgradeInProgress",
        ],
    );
    assert_events(&s.events, &["Normal/RuntimeScaledToZero"]);
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));
    assert!(
        condition(&s.status, "Upgrading")
            .message
            .contains("Scaled to zero"),
        "{}",
        condition(&s.status, "Upgrading").message
    );

    // Scaled up: the upgrade completes when a replica of it is ready.
    w.scale(1);
    w.apply();
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "Upgrading").reason,
        "UpgradeInProgress"
    );
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));
    w.rolled_out();
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Upgrading").reason, "UpgradeComplete");
    assert_eq!(s.status.last_successful_image, Some(image("v1.23.0")));
    assert_events(
        &s.events,
        &["Normal/RuntimeReady", "Normal/RuntimeUpgradeCompleted"],
    );
}

/// The tenant's reproduction: the first image never became ready (pods
/// Pending), then the runtime was scaled to zero. No pod of it was ever
/// ready: it is not the last successful image.
#[test]
fn an_image_no_pod_ever_ran_ready_is_never_the_last_successful_one() {
    let mut w = World::new();
    w.reconcile();
    w.apply();
    w.rolling([1, 1, 0, 0]);
    let s = w.reconcile();
    assert_eq!(s.status.last_successful_image, None);
    w.scale(0);
    w.apply();
    w.rolled_out();
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Ready").reason, "ScaledToZero");
    assert_eq!(s.status.last_successful_image, None);
    assert_eq!(condition(&s.status, "Upgrading").reason, "NoUpgrade");
    // Another image while at zero: still provisioning, never an upgrade.
    w.set_tag("v1.23.0");
    w.apply();
    w.rolled_out();
    let s = w.reconcile();
    assert_eq!(s.status.last_successful_image, None);
    assert_eq!(condition(&s.status, "Upgrading").reason, "NoUpgrade");
    // Scaled up and ready: now it is.
    w.scale(2);
    w.apply();
    w.reconcile();
    w.rolled_out();
    let s = w.reconcile();
    assert_eq!(s.status.last_successful_image, Some(image("v1.23.0")));
    assert!(
        !kinds(&w.log).iter().any(|k| k.contains("Upgrade")),
        "{:?}",
        kinds(&w.log)
    );
}

/// A failed upgrade scaled to zero has not completed after all.
#[test]
fn a_failed_upgrade_scaled_to_zero_stays_failed() {
    let mut w = World::new();
    w.provision();
    w.set_tag("v1.23.0");
    w.apply();
    w.reconcile();
    w.deadline_exceeded([2, 1, 1, 1]);
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Upgrading").reason, "UpgradeFailed");
    w.scale(0);
    w.apply();
    w.rolled_out();
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Upgrading").reason, "UpgradeFailed");
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));
}

#[test]
fn image_change_while_a_secret_is_missing() {
    let mut w = World::new();
    w.provision();
    w.log.clear();
    w.references = missing(&[SECRET]);
    w.set_tag("v1.23.0");
    // Blocked: nothing is applied.
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "False/SecretNotFound",
            "False/ConfigurationInvalid",
            "True/RuntimeAvailable",
            "False/ConfigurationInvalid",
            "True/ConfigurationInvalid",
            "True/UpgradeInProgress",
        ],
    );
    assert_events(
        &s.events,
        &[
            "Warning/ConfigurationInvalid",
            "Normal/RuntimeUpgradeStarted",
        ],
    );
    assert_eq!(
        images(&s.status),
        [
            Some(image("v1.23.0").as_str()),
            Some(image("v1.22.0").as_str()),
            Some(image("v1.22.0").as_str())
        ]
    );

    w.references = resolved();
    w.apply();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADING_PENDING);
    assert_events(
        &s.events,
        &["Normal/RuntimeProgressing", "Normal/RuntimeRecovered"],
    );
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(
        &s.events,
        &["Normal/RuntimeReady", "Normal/RuntimeUpgradeCompleted"],
    );
    let warnings = w
        .log
        .iter()
        .filter(|e| e.reason.event_type() == EventType::Warning)
        .count();
    assert_eq!(warnings, 1);
}

#[test]
fn a_missing_secret_freezes_the_upgrade_lifecycle() {
    let mut w = World::new();
    w.provision();
    w.set_tag("v1.23.0");
    w.apply();
    w.reconcile();
    w.references = missing(&[SECRET]);
    // Even a rollout that completes meanwhile does not complete the upgrade
    // until the configuration is valid again.
    w.rolled_out();
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "Upgrading").reason,
        "UpgradeInProgress"
    );
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);

    w.references = resolved();
    let s = w.reconcile();
    assert_conditions(&s.status, UPGRADED);
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeRecovered",
            "Normal/RuntimeReady",
            "Normal/RuntimeUpgradeCompleted",
        ],
    );

    // A completed upgrade stays complete while blocked.
    w.references = missing(&[SECRET]);
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Upgrading").reason, "UpgradeComplete");
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);
}

#[test]
fn a_missing_secret_keeps_a_failed_upgrade_failed() {
    let mut w = World::new();
    failed_upgrade(&mut w);
    w.references = missing(&[SECRET]);
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "False/SecretNotFound",
            "False/ConfigurationInvalid",
            "True/RuntimeAvailable",
            "False/ConfigurationInvalid",
            "True/ConfigurationInvalid",
            "False/UpgradeFailed",
        ],
    );
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);
}
