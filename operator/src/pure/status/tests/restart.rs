//! A restart asked for on the runtime: announced once, rolled like any
//! template change; kubectl's own restart is not one of ours.

use super::*;

#[test]
fn a_requested_restart_is_announced_and_rolls_the_pods() {
    let mut w = World::new();
    w.provision();
    w.log.clear();

    w.request_restart("2026-12-04T10:00:00Z");
    // Not applied yet: the template does not carry it, nothing is said.
    let s = w.reconcile();
    assert_events(&s.events, &[]);
    assert_eq!(s.status.restarted_at, None);

    w.apply();
    let s = w.reconcile();
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeRestartRequested",
            "Normal/RuntimeProgressing",
        ],
    );
    assert!(
        s.events[0]
            .note
            .contains("Restart requested at 2026-12-04T10:00:00Z"),
        "{}",
        s.events[0].note
    );
    assert_eq!(
        s.status.restarted_at.as_deref(),
        Some("2026-12-04T10:00:00Z")
    );
    assert_eq!(condition(&s.status, condition_type::READY).status, "False");

    w.rolling([2, 1, 1, 1]);
    assert_events(&w.reconcile().events, &[]);
    w.rolled_out();
    let s = w.reconcile();
    assert_events(&s.events, &["Normal/RuntimeReady"]);
    assert_conditions(&s.status, HEALTHY);

    // The same value again is no new restart; another one is.
    w.apply();
    assert_events(&w.reconcile().events, &[]);
    w.request_restart("2026-12-04T11:00:00Z");
    w.apply();
    let s = w.reconcile();
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeRestartRequested",
            "Normal/RuntimeProgressing",
        ],
    );
}

#[test]
fn kubectl_rollout_restart_is_a_rollout_but_not_a_requested_restart() {
    let mut w = World::new();
    w.provision();
    w.log.clear();
    w.touch_deployment(Some("2026-12-04T10:00:00Z"));
    let s = w.reconcile();
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    assert_eq!(s.status.restarted_at, None);
}

#[test]
fn a_restart_asked_for_while_suspended_waits_for_the_resume() {
    let mut w = World::new();
    w.provision();
    w.annotate_suspended(Some("true"), None);
    w.reconcile();
    w.log.clear();
    // Suspended: the operator applies nothing.
    w.request_restart("2026-12-04T10:00:00Z");
    assert_events(&w.reconcile().events, &[]);
    w.annotate_suspended(None, None);
    w.apply();
    let s = w.reconcile();
    assert_events(
        &s.events,
        &[
            "Normal/RuntimeResumed",
            "Normal/RuntimeRestartRequested",
            "Normal/RuntimeProgressing",
        ],
    );
}
