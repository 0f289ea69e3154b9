//! Missing Secrets, failed reference checks and failed reconciles.

use super::*;

const BLOCKED_FRESH: [&str; 6] = [
    "False/SecretNotFound",
    "False/ConfigurationInvalid",
    "False/RuntimeUnavailable",
    "False/ConfigurationInvalid",
    "True/ConfigurationInvalid",
    "False/NoUpgrade",
];

#[test]
fn missing_secret_on_a_new_runtime_then_created() {
    let mut w = World::new();
    w.references = missing(&[SECRET]);
    let s = w.reconcile();
    assert_conditions(&s.status, BLOCKED_FRESH);
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);
    let warning = &s.events[0];
    assert_eq!(warning.reason.action().as_str(), "ValidateReferences");
    assert!(
        warning.note.contains("\"openai-credentials\""),
        "{}",
        warning.note
    );
    assert!(
        condition(&s.status, "ConfigurationValid")
            .message
            .contains("\"openai-credentials\"")
    );
    assert!(
        condition(&s.status, "Degraded")
            .message
            .contains("\"openai-credentials\"")
    );

    // Still missing: nothing new (the harness also checks a plain repeat).
    let s = w.reconcile();
    assert_events(&s.events, &[]);

    // The Secret appears; the reconciler applies.
    w.references = resolved();
    w.apply();
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentGenerationPending",
            "False/RuntimeUnavailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_events(
        &s.events,
        &["Normal/RuntimeProgressing", "Normal/RuntimeRecovered"],
    );
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(&s.events, &["Normal/RuntimeReady"]);

    assert_eq!(
        kinds(&w.log),
        [
            "Warning/ConfigurationInvalid",
            "Normal/RuntimeProgressing",
            "Normal/RuntimeRecovered",
            "Normal/RuntimeReady"
        ]
    );
}

#[test]
fn secret_deleted_under_a_healthy_runtime_then_recreated() {
    let mut w = World::new();
    w.provision();
    w.log.clear();

    w.references = missing(&[SECRET]);
    let s = w.reconcile();
    // The old Deployment still serves.
    assert_conditions(
        &s.status,
        [
            "False/SecretNotFound",
            "False/ConfigurationInvalid",
            "True/RuntimeAvailable",
            "False/ConfigurationInvalid",
            "True/ConfigurationInvalid",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);
    assert_eq!(s.status.current_image, Some(image("v1.22.0")));
    assert_eq!(s.status.ready_replicas, Some(1));

    // A second Secret goes missing: a new warning, since it says something new.
    w.references = missing(&["ghcr-credentials", SECRET]);
    let s = w.reconcile();
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);
    assert!(
        s.events[0]
            .note
            .contains("\"ghcr-credentials\", \"openai-credentials\"")
    );

    w.references = resolved();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(
        &s.events,
        &["Normal/RuntimeRecovered", "Normal/RuntimeReady"],
    );
    assert_eq!(
        kinds(&w.log),
        [
            "Warning/ConfigurationInvalid",
            "Warning/ConfigurationInvalid",
            "Normal/RuntimeRecovered",
            "Normal/RuntimeReady"
        ]
    );
}

#[test]
fn reference_check_failure() {
    let mut w = World::new();
    w.provision();
    w.references = ReferenceCheck::Failed {
        message: "secrets \"openai-credentials\" is forbidden".into(),
    };
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "False/ReferenceCheckFailed",
            "False/ConfigurationInvalid",
            "True/RuntimeAvailable",
            "False/ConfigurationInvalid",
            "True/ConfigurationInvalid",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);
    assert!(s.events[0].note.contains("forbidden"));

    // From "cannot check" to "missing": another reason, another warning.
    w.references = missing(&[SECRET]);
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "ConfigurationValid").reason,
        "SecretNotFound"
    );
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);

    w.references = resolved();
    let s = w.reconcile();
    assert_events(
        &s.events,
        &["Normal/RuntimeRecovered", "Normal/RuntimeReady"],
    );
}

#[test]
fn reconcile_error_then_recovery() {
    let mut w = World::new();
    w.provision();
    w.log.clear();

    w.reconcile_error =
        Some("applying Service trussium/private-ai: the server rejected our request".into());
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/ReconciliationFailed",
            "True/RuntimeAvailable",
            "False/ReconciliationFailed",
            "True/ReconciliationFailed",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Warning/ReconciliationFailed"]);
    assert_eq!(s.events[0].reason.action().as_str(), "Reconcile");
    assert!(
        s.events[0]
            .note
            .contains("applying Service trussium/private-ai")
    );

    // Another failure text on the retry: status says so, no second Event.
    w.reconcile_error = Some("applying Service trussium/private-ai: timeout".into());
    let s = w.reconcile();
    assert!(condition(&s.status, "Degraded").message.contains("timeout"));
    assert_events(&s.events, &[]);

    w.reconcile_error = None;
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(
        &s.events,
        &["Normal/RuntimeRecovered", "Normal/RuntimeReady"],
    );
    assert_eq!(
        kinds(&w.log),
        [
            "Warning/ReconciliationFailed",
            "Normal/RuntimeRecovered",
            "Normal/RuntimeReady"
        ]
    );
}

#[test]
fn reconcile_error_on_the_first_reconcile() {
    let mut w = World::new();
    w.reconcile_error = Some("creating ConfigMap trussium/private-ai: forbidden".into());
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/ReconciliationFailed",
            "False/RuntimeUnavailable",
            "False/ReconciliationFailed",
            "True/ReconciliationFailed",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Warning/ReconciliationFailed"]);
    w.reconcile_error = None;
    w.apply();
    let s = w.reconcile();
    assert_events(
        &s.events,
        &["Normal/RuntimeProgressing", "Normal/RuntimeRecovered"],
    );
}

#[test]
fn invalid_configuration_outranks_a_reconcile_error() {
    let mut w = World::new();
    w.references = missing(&[SECRET]);
    w.reconcile_error = Some("should not matter".into());
    let s = w.reconcile();
    assert_conditions(&s.status, BLOCKED_FRESH);
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);
}

#[test]
fn degraded_moving_from_configuration_to_reconcile_failure() {
    let mut w = World::new();
    w.references = missing(&[SECRET]);
    w.reconcile();
    w.references = resolved();
    w.reconcile_error = Some("applying Deployment trussium/private-ai: conflict".into());
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "Degraded").reason,
        "ReconciliationFailed"
    );
    assert_events(&s.events, &["Warning/ReconciliationFailed"]);
}

#[test]
fn long_check_messages_are_bounded() {
    let mut w = World::new();
    w.references = ReferenceCheck::Failed {
        message: "x".repeat(4000),
    };
    let s = w.reconcile();
    assert!(s.events[0].note.len() <= crate::pure::events::MAX_NOTE_BYTES);
    assert!(condition(&s.status, "ConfigurationValid").message.len() <= 1024);
}
