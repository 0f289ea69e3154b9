//! Transition times, generations, the endpoint, semantic equality and
//! restarts.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

use super::*;

fn time(status: &TrussiumRuntimeStatus, type_: &str) -> i64 {
    condition(status, type_).last_transition_time.0.as_second()
}

fn times(status: &TrussiumRuntimeStatus) -> Vec<i64> {
    condition_type::ALL
        .iter()
        .map(|t| time(status, t))
        .collect()
}

#[test]
fn transition_times_move_only_when_status_flips() {
    let mut w = World::new();
    let t0 = w.clock;
    w.provision(); // reconciles at t0, t0+10, t0+20
    let s = w.status().clone();
    //              ConfigValid Progressing Available Ready    Degraded Upgrading Stalled
    assert_eq!(times(&s), [t0, t0 + 20, t0 + 20, t0 + 20, t0, t0, t0]);

    // t0+30: a Secret goes missing. Progressing changes reason only.
    w.references = missing(&[SECRET]);
    // Stalled flips to True/SecretNotFound.
    let s = w.reconcile().status;
    assert_eq!(
        times(&s),
        [t0 + 30, t0 + 20, t0 + 20, t0 + 30, t0 + 30, t0, t0 + 30]
    );
    assert_eq!(condition(&s, "Progressing").reason, "ConfigurationInvalid");

    // t0+40: another message; t0+50: another reason. No flip, no new time.
    w.references = missing(&["ghcr-credentials", SECRET]);
    let s = w.reconcile().status;
    assert_eq!(
        times(&s),
        [t0 + 30, t0 + 20, t0 + 20, t0 + 30, t0 + 30, t0, t0 + 30]
    );
    w.references = ReferenceCheck::Failed {
        message: "forbidden".into(),
    };
    let s = w.reconcile().status;
    assert_eq!(
        condition(&s, "ConfigurationValid").reason,
        "ReferenceCheckFailed"
    );
    // A failed check is retried: not stalled (False/Retrying).
    assert_eq!(
        times(&s),
        [t0 + 30, t0 + 20, t0 + 20, t0 + 30, t0 + 30, t0, t0 + 50]
    );

    // t0+60: resolved.
    w.references = resolved();
    let s = w.reconcile().status;
    assert_eq!(
        times(&s),
        [t0 + 60, t0 + 20, t0 + 20, t0 + 60, t0 + 60, t0, t0 + 50]
    );
    assert_conditions(&s, HEALTHY);

    // t0+70: an upgrade flips Upgrading and Progressing; t0+80 completes it.
    w.set_tag("v1.23.0");
    w.apply();
    let s = w.reconcile().status;
    assert_eq!(
        times(&s),
        [
            t0 + 60,
            t0 + 70,
            t0 + 20,
            t0 + 70,
            t0 + 60,
            t0 + 70,
            t0 + 50
        ]
    );
    w.rolled_out();
    let s = w.reconcile().status;
    assert_eq!(
        times(&s),
        [
            t0 + 60,
            t0 + 80,
            t0 + 20,
            t0 + 80,
            t0 + 60,
            t0 + 80,
            t0 + 50
        ]
    );
    assert_eq!(condition(&s, "Upgrading").reason, "UpgradeComplete");
}

#[test]
fn a_new_generation_is_stamped_on_every_condition() {
    let mut w = World::new();
    w.provision();
    let before = w.status().clone();
    w.bump(); // e.g. a podMetadata change that leaves the Deployment alone
    let s = w.reconcile();
    assert_eq!(s.status.observed_generation, Some(2));
    assert!(
        s.status
            .conditions
            .iter()
            .all(|c| c.observed_generation == Some(2))
    );
    assert_eq!(times(&s.status), times(&before));
    assert!(
        !semantically_equal(&before, &s.status),
        "the new generation must be written"
    );
    assert_events(&s.events, &[]);
}

#[test]
fn endpoint_uses_the_cluster_domain_and_service_port() {
    let mut w = World::new();
    w.config.cluster_domain = "corp.internal.".into();
    w.rt.spec.service.port = 8080;
    let s = w.reconcile();
    assert_eq!(
        s.status.endpoint.as_deref(),
        Some("http://private-ai.trussium.svc.corp.internal:8080")
    );

    let mut w = World::new();
    w.rt.metadata.namespace = None;
    let status = project(&w.input(None, w.clock));
    assert_eq!(status.endpoint, None);
}

#[test]
fn previous_status_without_all_conditions() {
    // A status written by something older: one condition, out of order.
    let mut w = World::new();
    w.provision();
    let mut old = w.status().clone();
    old.conditions.retain(|c| c.type_ == "Ready");
    w.rt.status = Some(old);
    let s = w.reconcile();
    assert_eq!(s.status.conditions.len(), 7);
    assert_events(&s.events, &[]);
}

#[test]
fn no_stored_status_and_an_empty_one_diff_alike() {
    let mut w = World::new();
    w.apply();
    let status = project(&w.input(None, w.clock));
    let empty = TrussiumRuntimeStatus::default();
    assert_eq!(
        transitions(None, &status),
        transitions(Some(&empty), &status)
    );
    assert_events(&transitions(None, &status), &["Normal/RuntimeProgressing"]);
    // What the CRD defaults a status to until the operator writes one.
    let defaulted: TrussiumRuntimeStatus =
        serde_json::from_value(json!({"observedGeneration": 0})).unwrap();
    assert_eq!(
        transitions(Some(&defaulted), &status),
        transitions(None, &status)
    );
    w.rt.status = Some(defaulted);
    let s = w.reconcile();
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    assert_eq!(s.status.observed_generation, Some(1));
}

#[test]
fn restart_mid_upgrade_repeats_nothing() {
    let mut w = World::new();
    w.provision();
    w.set_tag("v1.23.0");
    w.apply();
    w.reconcile();
    w.rolling([2, 1, 1, 1]);
    w.reconcile();

    // A new operator process reads the stored status back from the API.
    let stored: TrussiumRuntimeStatus =
        serde_json::from_str(&serde_json::to_string(w.status()).unwrap()).unwrap();
    w.rt.status = Some(stored.clone());
    w.clock += 86_400;
    let s = w.reconcile();
    assert!(semantically_equal(&stored, &s.status));
    assert_events(&s.events, &[]);
}

fn healthy_status() -> TrussiumRuntimeStatus {
    let mut w = World::new();
    w.provision();
    w.status().clone()
}

#[test]
fn semantic_equality() {
    let a = healthy_status();
    assert!(semantically_equal(&a, &a.clone()));

    let mut reordered = a.clone();
    reordered.conditions.reverse();
    assert!(
        semantically_equal(&a, &reordered),
        "conditions are a map keyed by type"
    );

    let mut subsecond = a.clone();
    let t = &mut subsecond.conditions[0].last_transition_time;
    *t = Time(Timestamp::new(t.0.as_second(), 500_000_000).unwrap());
    assert!(
        semantically_equal(&a, &subsecond),
        "metav1.Time keeps whole seconds"
    );

    let mut moved = a.clone();
    let t = &mut moved.conditions[0].last_transition_time;
    *t = Time(Timestamp::from_second(t.0.as_second() + 1).unwrap());
    assert!(
        !semantically_equal(&a, &moved),
        "a transition time is part of the status"
    );

    let changes: Vec<fn(&mut TrussiumRuntimeStatus)> = vec![
        |s| s.observed_generation = Some(9),
        |s| s.desired_replicas = Some(9),
        |s| s.ready_replicas = Some(9),
        |s| s.available_replicas = Some(9),
        |s| s.desired_image = Some("x:1".into()),
        |s| s.current_image = None,
        |s| s.last_successful_image = None,
        |s| s.endpoint = None,
        |s| s.conditions[3].message.push('!'),
        |s| s.conditions[3].reason = "RuntimeNotReady".into(),
        |s| s.conditions[3].status = "False".into(),
        |s| s.conditions[3].observed_generation = Some(9),
        |s| {
            s.conditions.pop();
        },
        // Same length, a type twice and one missing.
        |s| s.conditions[5] = s.conditions[4].clone(),
    ];
    for (i, change) in changes.into_iter().enumerate() {
        let mut b = a.clone();
        change(&mut b);
        assert!(!semantically_equal(&a, &b), "change {i}");
        assert!(!semantically_equal(&b, &a), "change {i}, reversed");
    }
}

/// A rollout's steps, each reconciled: which of the writes only say how far
/// it has got.
#[test]
fn a_rollout_in_progress_differs_only_in_progress() {
    let mut w = World::new();
    w.reconcile();
    w.apply();
    let pending = w.reconcile().status;
    // Observed, then a pod created, then another: counts, messages and
    // Progressing's reason move, nothing flips.
    w.scale(3);
    w.apply();
    let pending = {
        let s = w.reconcile().status;
        assert!(!only_progress_differs(&pending, &s), "a new generation");
        s
    };
    w.rolling([1, 1, 0, 0]);
    let first = w.reconcile().status;
    assert_ne!(
        condition(&pending, "Progressing").reason,
        condition(&first, "Progressing").reason
    );
    assert!(only_progress_differs(&pending, &first), "{first:#?}");
    w.rolling([2, 2, 1, 1]);
    let second = w.reconcile().status;
    assert!(!semantically_equal(&first, &second));
    assert!(
        !only_progress_differs(&first, &second),
        "Available flips with the first available replica"
    );
    w.rolling([3, 3, 2, 2]);
    let third = w.reconcile().status;
    assert_ne!(third.ready_replicas, second.ready_replicas);
    assert!(only_progress_differs(&second, &third), "{third:#?}");
    w.rolled_out();
    let done = w.reconcile().status;
    assert!(!only_progress_differs(&third, &done), "Ready flips");
}

#[test]
fn anything_but_progress_is_not_progress() {
    let a = healthy_status();
    assert!(only_progress_differs(&a, &a.clone()));

    let mut counts = a.clone();
    counts.ready_replicas = Some(7);
    counts.available_replicas = Some(6);
    counts.observed_template_hash = Some("other".into());
    counts.report_sequence = Some(99);
    assert!(only_progress_differs(&a, &counts));

    type Change = fn(&mut TrussiumRuntimeStatus);
    let changed: [(&str, Change); 7] = [
        ("observedGeneration", |s| s.observed_generation = Some(9)),
        ("desiredReplicas", |s| s.desired_replicas = Some(9)),
        ("desiredImage", |s| s.desired_image = Some("x".into())),
        ("currentImage", |s| s.current_image = Some("x".into())),
        ("lastSuccessfulImage", |s| {
            s.last_successful_image = Some("x".into())
        }),
        ("endpoint", |s| s.endpoint = Some("x".into())),
        ("a condition less", |s| {
            s.conditions.pop();
        }),
    ];
    for (what, change) in changed {
        let mut b = a.clone();
        change(&mut b);
        assert!(!only_progress_differs(&a, &b), "{what}");
    }

    for type_ in condition_type::ALL {
        let with = |change: fn(&mut Condition)| {
            let mut b = a.clone();
            if let Some(c) = b.conditions.iter_mut().find(|c| c.type_ == *type_) {
                change(c);
            }
            b
        };
        let flipped = with(|c| c.status = if c.status == "True" { "False" } else { "True" }.into());
        assert!(!only_progress_differs(&a, &flipped), "{type_} flipped");
        let generation = with(|c| c.observed_generation = Some(99));
        assert!(
            !only_progress_differs(&a, &generation),
            "{type_} generation"
        );
        let time = with(|c| c.last_transition_time = Time(Timestamp::new(1, 0).unwrap()));
        assert!(!only_progress_differs(&a, &time), "{type_} time");
        let message = with(|c| c.message = "other".into());
        let progress = [
            condition_type::PROGRESSING,
            condition_type::AVAILABLE,
            condition_type::READY,
        ]
        .contains(&type_);
        assert_eq!(
            only_progress_differs(&a, &message),
            progress,
            "{type_} message"
        );
        // A healthy runtime's Progressing is False: no reason of any
        // condition may change then.
        let reason = with(|c| c.reason = "Other".into());
        assert!(!only_progress_differs(&a, &reason), "{type_} reason");
    }
}
