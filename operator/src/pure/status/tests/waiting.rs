//! A runtime whose rollout of the operator's new pod template waits for a
//! turn (see `crate::pure::turns`): said once, serving all along, and an ordinary
//! rollout once its turn comes.

use super::*;
use crate::pure::turns::Waiting;

fn waiting() -> Waiting {
    Waiting {
        ahead: 2,
        rolling: 1,
        failed: vec![],
        max: 1,
    }
}

#[test]
fn waiting_for_a_turn_is_said_once_and_the_runtime_keeps_serving() {
    let mut w = World::new();
    w.provision();
    w.log.clear();

    w.waiting = Some(waiting());
    let s = w.reconcile();
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    assert!(
        s.events[0].note.contains("Waiting for a turn"),
        "{}",
        s.events[0].note
    );
    let progressing = condition(&s.status, condition_type::PROGRESSING);
    assert_eq!(
        (progressing.status.as_str(), progressing.reason.as_str()),
        ("True", "WaitingForTurn")
    );
    let ready = condition(&s.status, condition_type::READY);
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_str()),
        ("True", "RuntimeReady")
    );
    let available = condition(&s.status, condition_type::AVAILABLE);
    assert_eq!(available.status, "True");

    // Further back or nearer the front: nothing new to say.
    w.waiting = Some(Waiting {
        ahead: 0,
        ..waiting()
    });
    assert_events(&w.reconcile().events, &[]);

    // Its turn: the new template rolls out like any other.
    w.waiting = None;
    w.touch_deployment(Some("the new version's template"));
    let s = w.reconcile();
    assert_events(&s.events, &[]);
    assert_eq!(
        condition(&s.status, condition_type::PROGRESSING).status,
        "True"
    );
    w.observed();
    w.rolling([2, 1, 1, 1]);
    w.reconcile();
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
}

#[test]
fn a_failed_rollout_holding_a_turn_is_named() {
    let mut w = World::new();
    w.provision();
    w.waiting = Some(Waiting {
        failed: vec![("team-a".into(), "chat".into())],
        ..waiting()
    });
    let s = w.reconcile();
    let progressing = condition(&s.status, condition_type::PROGRESSING);
    assert!(
        progressing.message.contains("team-a/chat"),
        "{}",
        progressing.message
    );
}

#[test]
fn suspended_outranks_waiting() {
    let mut w = World::new();
    w.provision();
    w.annotate_suspended(Some("true"), None);
    w.waiting = Some(waiting());
    let s = w.reconcile();
    let progressing = condition(&s.status, condition_type::PROGRESSING);
    assert_eq!(
        (progressing.status.as_str(), progressing.reason.as_str()),
        ("False", "Suspended")
    );
}
