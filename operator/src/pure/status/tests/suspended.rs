//! A suspended runtime: reported as it is, announced once each way.

use super::*;

/// Serving, suspended: Ready as the Deployment is, Progressing held.
const SUSPENDED: [&str; 6] = [
    "True/ReferencesResolved",
    "False/Suspended",
    "True/RuntimeAvailable",
    "True/RuntimeReady",
    "False/AsExpected",
    "False/NoUpgrade",
];

fn suspended_condition(s: &TrussiumRuntimeStatus) -> Option<String> {
    s.condition(condition_type::SUSPENDED)
        .map(|c| format!("{}/{}", c.status, c.reason))
}

#[test]
fn suspend_and_resume_are_announced_once_each_and_ready_holds() {
    let mut w = World::new();
    w.provision();
    w.log.clear();

    w.annotate_suspended(Some("true"), Some("incident 42"));
    let s = w.reconcile();
    assert_events(&s.events, &["Normal/RuntimeSuspended"]);
    assert_conditions(&s.status, SUSPENDED);
    assert_eq!(
        suspended_condition(&s.status).as_deref(),
        Some("True/Suspended")
    );
    let since = condition(&s.status, condition_type::SUSPENDED)
        .last_transition_time
        .clone();
    assert!(
        s.events[0].note.contains("reason: incident 42"),
        "{}",
        s.events[0].note
    );
    // The annotation bumps no generation: the status is of the same one.
    assert_eq!(s.status.observed_generation, Some(w.generation()));

    // Nothing changes while suspended: no write, no Event; since holds.
    let s = w.reconcile();
    assert_events(&s.events, &[]);
    assert_eq!(
        condition(&s.status, condition_type::SUSPENDED).last_transition_time,
        since
    );

    w.annotate_suspended(None, None);
    let s = w.reconcile();
    assert_events(&s.events, &["Normal/RuntimeResumed"]);
    assert_conditions(&s.status, HEALTHY);
    assert_eq!(suspended_condition(&s.status), None);
    assert_eq!(w.log.len(), 2);
}

#[test]
fn an_upgrade_asked_for_while_suspended_waits_for_the_resume() {
    let mut w = World::new();
    w.provision();
    w.annotate_suspended(Some("true"), None);
    w.reconcile();
    w.log.clear();

    // Recorded in the spec (upgrade --force), not applied: the Deployment
    // still runs the old image and serves.
    w.set_tag("v1.23.0");
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, condition_type::PROGRESSING).reason,
        "Suspended"
    );
    assert_eq!(s.status.observed_generation, Some(w.generation()));
    assert_eq!(s.status.current_image, Some(image("v1.22.0")));
    assert_eq!(s.status.desired_image, Some(image("v1.23.0")));
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));
    let upgrading = condition(&s.status, condition_type::UPGRADING);
    assert_eq!(
        format!("{}/{}", upgrading.status, upgrading.reason),
        "True/UpgradeInProgress",
        "the upgrade is asked for"
    );
    assert_events(&s.events, &["Normal/RuntimeUpgradeStarted"]);
    // However long it waits, it neither completes nor fails.
    for _ in 0..5 {
        let s = w.reconcile();
        assert_events(&s.events, &[]);
    }

    // Resumed: applied, rolled out, completed.
    w.annotate_suspended(None, None);
    w.apply();
    let s = w.reconcile();
    assert!(kinds(&s.events).contains(&"Normal/RuntimeResumed".to_string()));
    w.rolled_out();
    let s = w.reconcile();
    assert!(
        kinds(&s.events).contains(&"Normal/RuntimeUpgradeCompleted".to_string()),
        "{:?}",
        kinds(&s.events)
    );
    assert_eq!(s.status.last_successful_image, Some(image("v1.23.0")));
}

#[test]
fn a_value_other_than_true_is_ignored_with_one_warning() {
    let mut w = World::new();
    w.provision();
    w.log.clear();

    w.annotate_suspended(Some("yes"), None);
    let s = w.reconcile();
    assert_events(&s.events, &["Warning/SuspendValueIgnored"]);
    assert!(
        s.events[0].note.contains("only \"true\" suspends"),
        "{}",
        s.events[0].note
    );
    assert_eq!(
        suspended_condition(&s.status).as_deref(),
        Some("False/SuspendValueIgnored")
    );
    assert_conditions(&s.status, HEALTHY);
    assert_events(&w.reconcile().events, &[]);

    // Another wrong value is news; the right one suspends.
    w.annotate_suspended(Some("false"), None);
    assert_events(&w.reconcile().events, &["Warning/SuspendValueIgnored"]);
    w.annotate_suspended(Some("true"), None);
    assert_events(&w.reconcile().events, &["Normal/RuntimeSuspended"]);

    // Removing an ignored value says nothing: nothing was suspended.
    w.annotate_suspended(Some("nope"), None);
    w.reconcile();
    w.log.clear();
    w.annotate_suspended(None, None);
    let s = w.reconcile();
    assert_events(&s.events, &[]);
    assert_eq!(suspended_condition(&s.status), None);
}

#[test]
fn a_runtime_suspended_before_its_first_reconcile_creates_nothing_and_says_so() {
    let mut w = World::new();
    w.annotate_suspended(Some("true"), Some("not yet"));
    // No Deployment: the operator created none.
    let s = w.reconcile();
    assert_events(&s.events, &["Normal/RuntimeSuspended"]);
    let ready = condition(&s.status, condition_type::READY);
    assert_eq!(ready.status, "False");
    assert_eq!(
        condition(&s.status, condition_type::PROGRESSING).reason,
        "Suspended"
    );
}

#[test]
fn the_resumed_note_counts_the_objects_changed_back() {
    use crate::pure::events::diff::resumed_note;
    assert_eq!(
        resumed_note(None),
        "Resumed: the operator manages the runtime's objects again."
    );
    assert!(resumed_note(Some(0)).ends_with("none of them had to change."));
    assert!(resumed_note(Some(1)).ends_with("it changed 1 object back to the spec."));
    assert!(resumed_note(Some(3)).ends_with("it changed 3 objects back to the spec."));
}

#[test]
fn ready_while_suspended_judges_the_deployment_as_it_runs() {
    let mut w = World::new();
    w.provision();
    w.annotate_suspended(Some("true"), None);
    w.reconcile();
    // A hand scale to 3, or a count recorded for later: Ready follows the
    // Deployment's own count, not the spec's.
    if let Some(d) = w.deployment.as_mut() {
        d.generation += 1;
        d.spec_replicas = 3;
    }
    w.rolled_out();
    let s = w.reconcile();
    assert_eq!(s.status.desired_replicas, Some(3));
    assert_eq!(condition(&s.status, condition_type::READY).status, "True");
    w.scale(5);
    let s = w.reconcile();
    assert_eq!(s.status.desired_replicas, Some(3));
    assert_eq!(condition(&s.status, condition_type::READY).status, "True");
    // Resumed: the spec's count again.
    w.annotate_suspended(None, None);
    w.apply();
    let s = w.reconcile();
    assert_eq!(s.status.desired_replicas, Some(5));
    assert_eq!(condition(&s.status, condition_type::READY).status, "False");
}
