//! Statuses someone else wrote: a report starts from the operator's own
//! status (see `status::basis`), repairs the stored one, and announces only
//! what really happened.

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use super::*;
use crate::pure::events::announcement::{Announcement, announce_from, event_name};
use crate::pure::status::basis::{
    Basis, SEQUENCE_LIMIT, basis, next_sequence, replacement, same_as_written, sanitized,
};

const UID: &str = "u-1";

fn at(second: i64) -> Timestamp {
    Timestamp::from_second(second).unwrap()
}

/// What an admin writes through the status subresource, over `own`.
fn forged(own: &TrussiumRuntimeStatus) -> TrussiumRuntimeStatus {
    let mut s = own.clone();
    s.last_successful_image = Some("evil.io/backdoor:latest".into());
    s.desired_image = Some("evil.io/backdoor:latest".into());
    s.report_sequence = Some(i64::MAX);
    s.restarted_at = Some("forged".into());
    s.conditions.push(Condition {
        type_: "Frobnicated".into(),
        status: "True".into(),
        reason: "Forged".into(),
        message: "forged".into(),
        observed_generation: Some(1),
        last_transition_time: Time(at(1)),
    });
    if let Some(upgrading) = s.conditions.iter_mut().find(|c| c.type_ == "Upgrading") {
        upgrading.status = "True".into();
        upgrading.reason = "UpgradeInProgress".into();
    }
    s
}

/// One report of `w` from `stored` with the own status `own`, as the shell
/// makes it.
fn report(
    w: &World,
    stored: Option<&TrussiumRuntimeStatus>,
    own: Option<&TrussiumRuntimeStatus>,
    unreadable: bool,
) -> (Basis<'static>, Option<Announcement>) {
    let now = at(w.clock);
    let basis = basis(stored, own, unreadable, now, Some(4242));
    let basis = Basis {
        previous: basis.previous.map(|p| Cow::Owned(p.into_owned())),
        repair: basis.repair,
    };
    let mut rt = w.rt.clone();
    rt.status = basis.previous().cloned();
    let deployment = w.deployment.as_ref().map(FakeDeployment::to_k8s);
    let projected = project(&StatusInput {
        runtime: &rt,
        deployment: deployment.as_ref(),
        references: &w.references,
        reconcile_error: None,
        stall: None,
        config: &w.config,
        waiting: None,
        now,
    });
    let announcement = announce_from("private-ai", UID, &basis, projected);
    (basis, announcement)
}

fn healthy() -> World {
    let mut w = World::new();
    w.provision();
    w.rt.status.as_mut().unwrap().report_sequence = Some(3);
    w
}

#[test]
fn the_own_status_stored_is_the_basis_and_nothing_is_written() {
    let w = healthy();
    let own = w.status().clone();
    let (basis, announcement) = report(&w, Some(&own), Some(&own), false);
    assert!(!basis.repair);
    assert_eq!(basis.previous(), Some(&own));
    assert_eq!(announcement, None);
    assert!(matches!(
        super::super::basis::basis(Some(&own), Some(&own), false, at(w.clock), None).previous,
        Some(Cow::Borrowed(_))
    ));
}

#[test]
fn a_forged_status_is_repaired_from_the_own_one_without_an_event() {
    let w = healthy();
    let own = w.status().clone();
    let stored = forged(&own);
    let (basis, announcement) = report(&w, Some(&stored), Some(&own), false);
    assert!(basis.repair);
    assert_eq!(basis.previous(), Some(&own));
    let a = announcement.expect("a repair is written");
    assert_eq!(a.events, vec![], "the forgery announces nothing");
    // Nothing forged survives: the write is the own status, one sequence on.
    assert!(semantically_equal(&a.status, &own));
    assert_eq!(a.status.report_sequence, Some(4));
    assert_eq!(a.status.last_successful_image, Some(image("v1.22.0")));
    assert!(a.status.condition("Frobnicated").is_none());
    assert_eq!(condition(&a.status, "Upgrading").reason, "NoUpgrade");
}

#[test]
fn a_status_removed_or_unreadable_is_repaired_too() {
    let w = healthy();
    let own = w.status().clone();
    let (basis, a) = report(&w, None, Some(&own), false);
    assert!(basis.repair);
    assert_eq!(a.unwrap().events, vec![]);
    let (basis, a) = report(&w, Some(&own), Some(&own), true);
    assert!(basis.repair);
    assert_eq!(a.unwrap().status.report_sequence, Some(4));
}

#[test]
fn a_forgery_hides_no_real_transition() {
    // The Deployment loses its pods while the status is forged to say
    // nothing changed: the real transition is announced, named after the
    // own sequence, and the forged upgrade is not.
    let mut w = healthy();
    let own = w.status().clone();
    let mut stored = forged(&own);
    if let Some(ready) = stored.conditions.iter_mut().find(|c| c.type_ == "Ready") {
        ready.status = "False".into();
        ready.reason = "RuntimeNotReady".into();
    }
    w.deadline_exceeded([1, 1, 0, 0]);
    let (_, a) = report(&w, Some(&stored), Some(&own), false);
    let a = a.unwrap();
    assert_events(
        &a.events.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>(),
        &["Warning/RuntimeDegraded"],
    );
    assert_eq!(
        a.events[0].0,
        event_name(
            "private-ai",
            UID,
            3,
            crate::pure::events::Reason::RuntimeDegraded
        )
    );
}

#[test]
fn without_an_own_status_what_cannot_be_ours_is_taken_out() {
    let w = healthy();
    let own = w.status().clone();
    let mut stored = forged(&own);
    let now = at(w.clock);
    // A time in the future, as a time past 9999 is read (`lenient`).
    stored.conditions[3].last_transition_time = Time(crate::pure::lenient::UNREADABLE_TIME);
    let clean = sanitized(&stored, now, Some(4242));
    assert!(clean.condition("Frobnicated").is_none());
    assert_eq!(clean.conditions.len(), 7);
    assert_eq!(clean.conditions[3].last_transition_time.0, at(w.clock));
    assert_eq!(clean.report_sequence, Some(4242));
    let (basis, a) = report(&w, Some(&stored), None, false);
    assert!(basis.repair);
    let a = a.unwrap();
    assert!(a.status.condition("Frobnicated").is_none());
    assert_eq!(a.status.report_sequence, Some(4243));
    // The names start again past every sequence this runtime had.
    for (name, t) in &a.events {
        for earlier in 0..10 {
            assert_ne!(*name, event_name("private-ai", UID, earlier, t.reason));
        }
    }
    // A stored status that is right stays the basis, borrowed, unrepaired.
    let basis = super::super::basis::basis(Some(&own), None, false, now, Some(1));
    assert!(!basis.repair);
    assert!(matches!(basis.previous, Some(Cow::Borrowed(_))));
}

#[test]
fn a_sequence_out_of_range_starts_again_from_the_revision() {
    let s = |n| TrussiumRuntimeStatus {
        report_sequence: Some(n),
        ..Default::default()
    };
    let now = at(1_800_000_000);
    for (forged, revision, expected) in [
        (i64::MAX, Some(77), 77),
        (-1, Some(77), 77),
        (i64::MIN, None, 0),
        (SEQUENCE_LIMIT, Some(u64::MAX), 0),
        (SEQUENCE_LIMIT - 1, Some(77), SEQUENCE_LIMIT - 1),
        (0, Some(77), 0),
    ] {
        let clean = sanitized(&s(forged), now, revision);
        assert_eq!(clean.report_sequence, Some(expected), "{forged}");
    }
    assert_eq!(next_sequence(None), 1);
    assert_eq!(next_sequence(Some(&s(i64::MAX))), 1);
    assert_eq!(next_sequence(Some(&s(-5))), 1);
    assert_eq!(next_sequence(Some(&s(SEQUENCE_LIMIT - 1))), SEQUENCE_LIMIT);
    assert_eq!(next_sequence(Some(&s(41))), 42);
}

#[test]
fn the_written_status_must_match_to_the_sequence() {
    let w = healthy();
    let own = w.status().clone();
    assert!(same_as_written(&own, &own));
    let mut other = own.clone();
    other.report_sequence = Some(9);
    assert!(!same_as_written(&other, &own));
    assert!(!same_as_written(&forged(&own), &own));
}

/// RFC 7386, as the API server applies a JSON merge patch.
fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Default::default());
    }
    let Value::Object(target) = target else {
        return;
    };
    for (key, value) in patch {
        if value.is_null() {
            target.remove(key);
        } else {
            merge(target.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

#[test]
fn a_write_replaces_every_field_whoever_set_it() {
    let w = healthy();
    let own = w.status().clone();
    let mut ours = own.clone();
    // Fields the operator leaves out now.
    ours.current_image = None;
    ours.ready_replicas = None;
    ours.last_successful_image = None;
    let mut stored = serde_json::to_value(forged(&own)).unwrap();
    stored["unknownField"] = Value::from("x");
    merge(&mut stored, &replacement(&ours));
    stored.as_object_mut().unwrap().remove("unknownField");
    assert_eq!(stored, serde_json::to_value(&ours).unwrap());
    // Every field the type has is named.
    let body = replacement(&TrussiumRuntimeStatus::default());
    assert_eq!(body.as_object().unwrap().len(), 12);
    assert!(body.as_object().unwrap().values().all(Value::is_null));
}

/// The tenant's reproduction: `reportSequence` at i64::MAX, then real
/// transitions, reported as the shell reports them (the first without an
/// own status, as after a restart). Every Event gets a name of its own.
#[test]
fn a_sequence_at_the_maximum_silences_nothing() {
    let mut w = healthy();
    let mut stored = w.status().clone();
    stored.report_sequence = Some(i64::MAX);
    let mut own: Option<TrussiumRuntimeStatus> = None;
    let mut names = std::collections::BTreeSet::new();
    let mut published = 0;
    for step in 0..6 {
        if step % 2 == 0 {
            w.deadline_exceeded([2, 2, 0, 0]);
        } else {
            w.rolled_out();
        }
        let (_, a) = report(&w, Some(&stored), own.as_ref(), false);
        let a = a.expect("a transition");
        assert!(!a.events.is_empty());
        for (name, _) in &a.events {
            assert!(names.insert(name.clone()), "{name} repeated");
            published += 1;
        }
        assert!((0..SEQUENCE_LIMIT).contains(&a.status.report_sequence.unwrap()));
        stored = a.status.clone();
        own = Some(a.status);
        w.clock += 10;
    }
    assert!(published >= 6);
}
