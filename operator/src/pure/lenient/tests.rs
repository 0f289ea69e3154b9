//! Hostile statuses, each a value the API server accepts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use trussium_api::condition_type;

use super::*;

fn runtime(status: Value) -> Value {
    json!({
        "apiVersion": "runtime.trussium.io/v1beta1",
        "kind": "TrussiumRuntime",
        "metadata": {"name": "private-ai", "namespace": "ai", "uid": "u-1", "generation": 2},
        "spec": {
            "image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0"},
            "provider": {"type": "openai", "model": "gpt-5",
                "credentialsSecretRef": {"name": "openai", "key": "api-key"}}
        },
        "status": status,
    })
}

fn condition(type_: &str, time: &str) -> Value {
    json!({"type": type_, "status": "True", "reason": "RuntimeReady", "message": "m",
        "observedGeneration": 1, "lastTransitionTime": time})
}

#[test]
fn a_status_that_parses_is_read_whole() {
    let status = json!({"observedGeneration": 1, "desiredImage": "r:a", "reportSequence": 3,
        "conditions": [condition("Ready", "2026-01-01T00:00:00Z")]});
    let read = read(runtime(status.clone())).unwrap();
    assert!(read.problems.is_empty());
    assert_eq!(
        read.runtime.status,
        Some(serde_json::from_value(status).unwrap())
    );
    // No status at all, or null.
    let mut no_status = runtime(Value::Null);
    assert_eq!(read_back(no_status.clone()).runtime.status, None);
    no_status.as_object_mut().unwrap().remove("status");
    assert_eq!(read_back(no_status).runtime.status, None);
}

fn read_back(object: Value) -> Read {
    read(object).unwrap()
}

#[test]
fn a_time_past_the_year_9999_keeps_its_condition_at_the_latest_time() {
    let status = json!({"desiredImage": "r:a", "conditions": [
        condition("Ready", "9999-12-31T23:59:59Z"),
        condition("Available", "2026-01-01T00:00:00Z"),
    ]});
    let read = read_back(runtime(status));
    let status = read.runtime.status.unwrap();
    assert_eq!(status.desired_image.as_deref(), Some("r:a"));
    let ready = status.condition(condition_type::READY).unwrap();
    assert_eq!(ready.last_transition_time.0, UNREADABLE_TIME);
    assert_eq!(ready.status, "True");
    assert!(status.condition(condition_type::AVAILABLE).is_some());
    assert_eq!(read.problems.len(), 1, "{:?}", read.problems);
    assert!(read.problems[0].starts_with("status.conditions[Ready]"));
}

#[test]
fn fields_that_do_not_fit_are_left_out_and_said() {
    let status = json!({
        "observedGeneration": 1,
        "readyReplicas": 4_294_967_296_i64,
        "availableReplicas": -3,
        "desiredReplicas": "two",
        "reportSequence": i64::MAX,
        "currentImage": 7,
        "lastSuccessfulImage": "r:a",
        "conditions": [
            {"type": "Ready"},
            condition("Frobnicated", "2026-01-01T00:00:00Z"),
            "not a condition",
        ],
    });
    let read = read_back(runtime(status));
    let status = read.runtime.status.unwrap();
    assert_eq!(status.observed_generation, Some(1));
    assert_eq!(status.ready_replicas, None);
    // Negative and extreme values that fit the type are read as they are:
    // the projection never reads them back (see `status::basis`).
    assert_eq!(status.available_replicas, Some(-3));
    assert_eq!(status.report_sequence, Some(i64::MAX));
    assert_eq!(status.desired_replicas, None);
    assert_eq!(status.current_image, None);
    assert_eq!(status.last_successful_image.as_deref(), Some("r:a"));
    // The unknown type parses (it is dropped later); the others do not.
    let types: Vec<_> = status.conditions.iter().map(|c| c.type_.as_str()).collect();
    assert_eq!(types, ["Frobnicated"]);
    let fields: Vec<_> = read
        .problems
        .iter()
        .map(|p| p.split(':').next().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "status.conditions[Ready]",
            "status.conditions[2]",
            "status.currentImage",
            "status.desiredReplicas",
            "status.readyReplicas",
        ]
    );
}

#[test]
fn a_status_that_is_no_object_reads_as_empty() {
    for status in [json!("garbage"), json!([1, 2]), json!(3)] {
        let read = read_back(runtime(status));
        assert_eq!(read.runtime.status, Some(TrussiumRuntimeStatus::default()));
        assert_eq!(read.problems.len(), 1);
    }
    let read = read_back(runtime(json!({"conditions": {"a": 1}})));
    assert_eq!(read.problems, ["status.conditions: not a list"]);
}

#[test]
fn problems_are_one_bounded_line() {
    let long = format!("\u{1b}]0;title\u{7}\n{}", "x".repeat(10_000));
    let read = read_back(runtime(json!({"desiredReplicas": long})));
    assert_eq!(read.problems.len(), 1);
    let problem = &read.problems[0];
    assert!(problem.len() <= MAX_PROBLEM, "{}", problem.len());
    assert!(!problem.chars().any(char::is_control), "{problem:?}");
}

#[test]
fn a_spec_that_does_not_parse_makes_the_runtime_unreadable() {
    let mut object = runtime(json!({}));
    object["spec"]["replicas"] = json!(1_u64 << 40);
    let err = read(object).unwrap_err();
    assert!(
        err.contains("replicas") || err.contains("invalid value"),
        "{err}"
    );
    assert!(read(json!("x")).is_err());
}

#[test]
fn a_placeholder_carries_the_metadata() {
    let metadata = ObjectMeta {
        name: Some("private-ai".into()),
        namespace: Some("ai".into()),
        ..ObjectMeta::default()
    };
    let rt = placeholder(metadata.clone()).unwrap();
    assert_eq!(rt.metadata, metadata);
    assert_eq!(rt.status, None);
}
