use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{DeploymentCondition, DeploymentStatus};
use serde_json::json;

use super::*;
use crate::pure::config::OperatorConfig;
use crate::pure::resources::{APPLIED_FROM_ANNOTATION, BuildContext, deployment::deployment, hash};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A runtime the operator has reported on at its generation 3.
fn runtime() -> Result<TrussiumRuntime> {
    Ok(serde_json::from_value(json!({
        "apiVersion": "runtime.trussium.io/v1beta1",
        "kind": "TrussiumRuntime",
        "metadata": {"name": "rt", "namespace": "ns", "uid": "u-1", "generation": 3},
        "spec": {
            "image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0"},
            "provider": {"type": "ollama", "baseURL": "http://ollama:11434/v1", "model": "llama3"},
        },
        "status": {"observedGeneration": 3},
    }))?)
}

fn built(rt: &TrussiumRuntime, secrets: &BTreeMap<String, String>) -> Result<Deployment> {
    let config = OperatorConfig::default();
    let ctx = BuildContext {
        config: &config,
        secret_versions: secrets,
        observed_replicas: None,
    };
    Ok(deployment(rt, &ctx)?)
}

/// `d` as a newer operator would build it: one more pod annotation, and
/// stamped with the applied hash of that.
fn with_new_default(mut d: Deployment) -> Result<Deployment> {
    let spec = d.spec.as_mut().ok_or("no spec")?;
    spec.template
        .metadata
        .get_or_insert_default()
        .annotations
        .get_or_insert_default()
        .insert("example.com/new-default".into(), "on".into());
    hash::restamp(&mut d)?;
    Ok(d)
}

#[test]
fn the_same_build_rolls_nothing() -> Result {
    let rt = runtime()?;
    let d = built(&rt, &BTreeMap::new())?;
    assert_eq!(cause(&rt, &d, &d), Cause::NoRoll);
    Ok(())
}

#[test]
fn what_the_api_server_defaults_rolls_nothing() -> Result {
    let rt = runtime()?;
    let d = built(&rt, &BTreeMap::new())?;
    let mut observed = serde_json::to_value(&d)?;
    observed["spec"]["template"]["spec"]["containers"][0]["terminationMessagePath"] =
        json!("/dev/termination-log");
    observed["spec"]["template"]["spec"]["dnsPolicy"] = json!("ClusterFirst");
    let observed: Deployment = serde_json::from_value(observed)?;
    assert_eq!(cause(&rt, &d, &observed), Cause::NoRoll);
    Ok(())
}

#[test]
fn a_new_operator_default_takes_turns() -> Result {
    let rt = runtime()?;
    let old = built(&rt, &BTreeMap::new())?;
    let new = with_new_default(old.clone())?;
    assert_eq!(cause(&rt, &new, &old), Cause::Operator);
    Ok(())
}

#[test]
fn a_spec_changed_since_the_apply_is_the_owners() -> Result {
    let mut rt = runtime()?;
    let old = built(&rt, &BTreeMap::new())?;
    rt.spec.image.tag = Some("v1.23.0".into());
    rt.metadata.generation = Some(4);
    let new = with_new_default(built(&rt, &BTreeMap::new())?)?;
    assert_eq!(cause(&rt, &new, &old), Cause::Owner);
    // Even once the status says generation 4 was read (it is, while
    // suspended or when the apply failed): the Deployment says what it
    // was applied from.
    if let Some(status) = rt.status.as_mut() {
        status.observed_generation = Some(4);
    }
    assert_eq!(cause(&rt, &new, &old), Cause::Owner);
    Ok(())
}

#[test]
fn a_change_only_other_objects_use_leaves_the_rollout_to_the_operator() -> Result {
    let mut rt = runtime()?;
    let old = built(&rt, &BTreeMap::new())?;
    rt.spec.replicas = 4;
    rt.spec.service.port = 9000;
    rt.metadata.generation = Some(5);
    let new = with_new_default(built(&rt, &BTreeMap::new())?)?;
    assert_eq!(cause(&rt, &new, &old), Cause::Operator);
    Ok(())
}

#[test]
fn a_deployment_of_a_release_before_the_stamp_is_judged_by_the_status() -> Result {
    let mut rt = runtime()?;
    let mut old = built(&rt, &BTreeMap::new())?;
    if let Some(a) = old.metadata.annotations.as_mut() {
        a.remove(APPLIED_FROM_ANNOTATION);
    }
    hash::restamp(&mut old)?;
    let new = with_new_default(built(&rt, &BTreeMap::new())?)?;
    assert_eq!(cause(&rt, &new, &old), Cause::Operator);
    rt.metadata.generation = Some(4);
    let new = with_new_default(built(&rt, &BTreeMap::new())?)?;
    assert_eq!(cause(&rt, &new, &old), Cause::Owner);
    Ok(())
}

#[test]
fn a_restart_is_the_owners() -> Result {
    let mut rt = runtime()?;
    let old = built(&rt, &BTreeMap::new())?;
    rt.metadata
        .annotations
        .get_or_insert_default()
        .insert(RESTARTED_AT.into(), "2026-12-04T10:00:00Z".into());
    let new = built(&rt, &BTreeMap::new())?;
    assert_eq!(cause(&rt, &new, &old), Cause::Owner);
    Ok(())
}

#[test]
fn a_rotated_secret_is_the_owners() -> Result {
    let rt = runtime()?;
    let before = BTreeMap::from([("key".to_string(), "7".to_string())]);
    let after = BTreeMap::from([("key".to_string(), "8".to_string())]);
    let old = built(&rt, &before)?;
    let new = built(&rt, &after)?;
    assert_eq!(cause(&rt, &new, &old), Cause::Owner);
    Ok(())
}

#[test]
fn a_template_someone_else_changed_is_put_back_at_once() -> Result {
    let rt = runtime()?;
    let d = built(&rt, &BTreeMap::new())?;
    let mut edited = serde_json::to_value(&d)?;
    edited["spec"]["template"]["spec"]["containers"][0]["image"] = json!("evil:latest");
    let edited: Deployment = serde_json::from_value(edited)?;
    assert_eq!(cause(&rt, &d, &edited), Cause::Repair);
    Ok(())
}

fn key(name: &str) -> Key {
    ("ns".to_string(), name.to_string())
}

fn given(generation: i64) -> Given {
    Given {
        uid: Some("rt-uid".into()),
        generation: Some(generation),
        restarted_at: None,
        deployment_uid: Some("d-uid".into()),
        deployment_generation: Some(1),
    }
}

/// Asks for `name` at `at` seconds after `t0`, with `progress` for every
/// runtime holding a turn; every runtime exists.
fn ask_at(turns: &mut Turns, name: &str, t0: Instant, at: u64, progress: TurnState) -> Turn {
    turns.ask(
        &key(name),
        given(1),
        t0 + Duration::from_secs(at),
        |_, _| progress,
        |_| true,
    )
}

#[test]
fn no_turn_before_the_queue_settles_then_in_the_order_of_names() {
    let mut turns = Turns::new(1);
    let t0 = Instant::now();
    for name in ["c", "a", "b"] {
        assert!(matches!(
            ask_at(&mut turns, name, t0, 0, TurnState::Rolling),
            Turn::Wait(_)
        ));
    }
    // Settled: c asks first, yet a is first in line.
    let c = ask_at(&mut turns, "c", t0, 6, TurnState::Rolling);
    assert_eq!(
        c,
        Turn::Wait(Waiting {
            ahead: 2,
            rolling: 0,
            failed: vec![],
            max: 1
        })
    );
    assert_eq!(ask_at(&mut turns, "a", t0, 6, TurnState::Rolling), Turn::Go);
    // a holds the only turn while it rolls.
    let b = ask_at(&mut turns, "b", t0, 7, TurnState::Rolling);
    assert!(matches!(
        b,
        Turn::Wait(Waiting {
            ahead: 0,
            rolling: 1,
            ..
        })
    ));
    // Asked again, a keeps its turn (its apply may have failed).
    assert_eq!(ask_at(&mut turns, "a", t0, 7, TurnState::Rolling), Turn::Go);
    // Available: the turn passes to b, then c.
    assert_eq!(
        ask_at(&mut turns, "b", t0, 8, TurnState::Available),
        Turn::Go
    );
    assert!(matches!(
        ask_at(&mut turns, "c", t0, 8, TurnState::Rolling),
        Turn::Wait(Waiting { ahead: 0, .. })
    ));
    assert_eq!(ask_at(&mut turns, "c", t0, 9, TurnState::Gone), Turn::Go);
    assert_eq!(turns.counts(), (0, 1));
}

#[test]
fn as_many_turns_as_the_maximum() {
    let mut turns = Turns::new(2);
    let t0 = Instant::now();
    for name in ["a", "b", "c"] {
        ask_at(&mut turns, name, t0, 0, TurnState::Rolling);
    }
    assert_eq!(ask_at(&mut turns, "b", t0, 5, TurnState::Rolling), Turn::Go);
    assert_eq!(ask_at(&mut turns, "a", t0, 5, TurnState::Rolling), Turn::Go);
    assert!(matches!(
        ask_at(&mut turns, "c", t0, 5, TurnState::Rolling),
        Turn::Wait(Waiting { rolling: 2, .. })
    ));
}

#[test]
fn a_failed_rollout_keeps_its_turn_and_is_named() {
    let mut turns = Turns::new(1);
    let t0 = Instant::now();
    ask_at(&mut turns, "a", t0, 0, TurnState::Rolling);
    ask_at(&mut turns, "b", t0, 0, TurnState::Rolling);
    assert_eq!(ask_at(&mut turns, "a", t0, 5, TurnState::Rolling), Turn::Go);
    let b = ask_at(&mut turns, "b", t0, 6, TurnState::Failed);
    assert_eq!(
        b,
        Turn::Wait(Waiting {
            ahead: 0,
            rolling: 1,
            failed: vec![key("a")],
            max: 1
        })
    );
}

#[test]
fn the_owner_taking_over_frees_the_turn() {
    let mut turns = Turns::new(1);
    let t0 = Instant::now();
    ask_at(&mut turns, "a", t0, 0, TurnState::Rolling);
    assert_eq!(ask_at(&mut turns, "a", t0, 5, TurnState::Rolling), Turn::Go);
    // The same ask (its template now applied): still held.
    turns.not_needed(&key("a"), &given(1));
    assert_eq!(turns.counts(), (0, 1));
    // A new generation: the owner's, the turn passes on.
    turns.not_needed(&key("a"), &given(2));
    assert_eq!(turns.counts(), (0, 0));
}

#[test]
fn a_runtime_gone_or_silent_leaves_the_queue() {
    let mut turns = Turns::new(1);
    let t0 = Instant::now();
    // "0-silent" asks once, first in line, and never again.
    ask_at(&mut turns, "0-silent", t0, 0, TurnState::Rolling);
    ask_at(&mut turns, "a", t0, 0, TurnState::Rolling);
    ask_at(&mut turns, "b", t0, 0, TurnState::Rolling);
    assert_eq!(turns.counts(), (3, 0));
    // Still remembered: a waits behind it.
    assert!(matches!(
        ask_at(&mut turns, "a", t0, 60, TurnState::Rolling),
        Turn::Wait(Waiting { ahead: 1, .. })
    ));
    // Two minutes on, it is forgotten.
    assert_eq!(
        ask_at(&mut turns, "a", t0, 130, TurnState::Rolling),
        Turn::Go
    );
    assert_eq!(turns.counts(), (0, 1));
    // Gone while holding its turn: b gets it.
    turns.forget(&key("a"));
    assert_eq!(
        ask_at(&mut turns, "b", t0, 131, TurnState::Rolling),
        Turn::Go
    );
    assert_eq!(turns.counts(), (0, 1));
}

#[test]
fn the_next_in_line_ask_again_soon() {
    let near = Waiting {
        ahead: 1,
        rolling: 1,
        failed: vec![],
        max: 1,
    };
    let far = Waiting {
        ahead: 10,
        ..near.clone()
    };
    assert_eq!(near.ask_again_in(), Duration::from_secs(5));
    assert_eq!(far.ask_again_in(), Duration::from_secs(30));
}

fn deployment_at(generation: i64, status: DeploymentStatus) -> Deployment {
    let mut d = Deployment::default();
    d.metadata.uid = Some("d-uid".into());
    d.metadata.generation = Some(generation);
    d.spec = Some(k8s_openapi::api::apps::v1::DeploymentSpec {
        replicas: Some(2),
        ..Default::default()
    });
    d.status = Some(status);
    d
}

fn counts(observed: i64, total: i32, updated: i32, available: i32) -> DeploymentStatus {
    DeploymentStatus {
        observed_generation: Some(observed),
        replicas: Some(total),
        updated_replicas: Some(updated),
        available_replicas: Some(available),
        ..Default::default()
    }
}

#[test]
fn progress_of_a_deployment() {
    let g = given(1);
    assert_eq!(progress(None, &g), TurnState::Gone);
    // The apply has not landed yet: however it looks, it rolls.
    let done = deployment_at(1, counts(1, 2, 2, 2));
    assert_eq!(progress(Some(&done), &g), TurnState::Rolling);
    // Deleted and made afresh: another Deployment, the turn passes on.
    let mut remade = deployment_at(1, counts(1, 2, 2, 2));
    remade.metadata.uid = Some("remade".into());
    assert_eq!(progress(Some(&remade), &g), TurnState::Gone);
    let done = deployment_at(2, counts(2, 2, 2, 2));
    assert_eq!(progress(Some(&done), &g), TurnState::Available);
    let unseen = deployment_at(2, counts(1, 2, 2, 2));
    assert_eq!(progress(Some(&unseen), &g), TurnState::Rolling);
    let old_pods_left = deployment_at(2, counts(2, 3, 2, 3));
    assert_eq!(progress(Some(&old_pods_left), &g), TurnState::Rolling);
    let mut failed = counts(2, 3, 1, 2);
    failed.conditions = Some(vec![DeploymentCondition {
        type_: "Progressing".into(),
        status: "False".into(),
        reason: Some("ProgressDeadlineExceeded".into()),
        ..Default::default()
    }]);
    assert_eq!(
        progress(Some(&deployment_at(2, failed)), &g),
        TurnState::Failed
    );
}

#[test]
fn a_deleted_runtime_stops_waiting_at_once() {
    let mut turns = Turns::new(1);
    let t0 = Instant::now();
    ask_at(&mut turns, "a", t0, 0, TurnState::Rolling);
    ask_at(&mut turns, "b", t0, 0, TurnState::Rolling);
    let b = turns.ask(
        &key("b"),
        given(1),
        t0 + Duration::from_secs(6),
        |_, _| TurnState::Rolling,
        |k| k != &key("a"),
    );
    assert_eq!(b, Turn::Go, "a, deleted, is no longer ahead");
}

#[test]
fn a_new_runtime_under_the_same_name_frees_the_turn() {
    let mut turns = Turns::new(1);
    let t0 = Instant::now();
    ask_at(&mut turns, "a", t0, 0, TurnState::Rolling);
    assert_eq!(ask_at(&mut turns, "a", t0, 5, TurnState::Rolling), Turn::Go);
    turns.not_needed(
        &key("a"),
        &Given {
            uid: Some("another".into()),
            ..given(1)
        },
    );
    assert_eq!(turns.counts(), (0, 0));
}
