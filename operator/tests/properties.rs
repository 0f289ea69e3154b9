//! Properties of the pure core over arbitrary valid specs and Deployment
//! states (proptest): the builders and the status projection never panic,
//! and what the contract promises holds after every step of a random walk
//! of reconciles:
//! - Ready=True implies ConfigurationValid=True;
//! - every condition carries the runtime's generation;
//! - lastSuccessfulImage moves only to the desired image, on a completed
//!   rollout of it (the Deployment runs it, has observed its generation and
//!   has updated every desired replica, at least one, and they are ready);
//! - building twice gives equal objects, projecting twice equal statuses;
//! - a status written is a fixed point (announcing it again says nothing);
//! - any status the API server would accept (times past 9999, extreme
//!   integers, unknown conditions, missing fields) is read and rewritten.
//!
//! `PROPTEST_CASES` sets the number of cases (default below).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use proptest::prelude::*;
use serde_json::{Value, json};
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus, condition_type};
use trussium_operator::pure::config::OperatorConfig;
use trussium_operator::pure::events::announcement::{announce, announce_from};
use trussium_operator::pure::lenient;
use trussium_operator::pure::references::ReferenceCheck;
use trussium_operator::pure::resources::{BuildContext, build};
use trussium_operator::pure::status::basis::{SEQUENCE_LIMIT, basis, replacement};
use trussium_operator::pure::status::{StatusInput, project};

const REPOSITORY: &str = "ghcr.io/trussiumhq/trussium";
const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// Cases per property unless `PROPTEST_CASES` says otherwise.
const CASES: u32 = 512;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(CASES),
        // (No regression file: an integration test has no lib.rs beside it.)
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A DNS label.
fn label() -> impl Strategy<Value = String> {
    "[a-z]([a-z0-9-]{0,20}[a-z0-9])?"
}

/// An arbitrary valid TrussiumRuntime (as the API server would store it).
fn runtime() -> impl Strategy<Value = TrussiumRuntime> {
    let image = prop_oneof![
        "v[0-9]\\.[0-9]{1,2}\\.[0-9]".prop_map(|tag| json!({"repository": REPOSITORY, "tag": tag})),
        Just(json!({"repository": REPOSITORY, "digest": DIGEST})),
        Just(json!({"repository": "registry.example.com:5000/ai/trussium", "tag": "latest"})),
    ];
    let provider = (
        prop_oneof![Just("openai"), Just("ollama")],
        "[a-z0-9.-]{1,12}",
        proptest::option::of(label()),
    )
        .prop_map(|(type_, model, secret)| {
            let mut p = json!({"type": type_, "model": model});
            if let Some(secret) = secret {
                p["credentialsSecretRef"] = json!({"name": secret, "key": "api-key"});
            }
            p
        });
    let autoscaling = proptest::option::of((any::<bool>(), 1..5_i32, 0..6_i32)).prop_map(|a| {
        a.map(|(enabled, min, extra)| {
            json!({"enabled": enabled, "minReplicas": min, "maxReplicas": min + extra})
        })
    });
    let pod_labels = proptest::collection::btree_map(
        prop_oneof![
            label(),
            Just("app.kubernetes.io/name".to_string()),
            Just("runtime.trussium.io/x".to_string()),
        ],
        label(),
        0..3,
    );
    (
        label(),
        label(),
        1..50_i64,
        image,
        0..6_i32,
        provider,
        autoscaling,
        (1..65535_i32, any::<bool>(), pod_labels),
        proptest::collection::vec(label(), 0..2),
    )
        .prop_map(
            |(name, namespace, generation, image, replicas, provider, autoscaling, rest, pull)| {
                let (port, policy, pod_labels) = rest;
                let mut spec = json!({
                    "image": image,
                    "replicas": replicas,
                    "provider": provider,
                    "service": {"port": port},
                    "podMetadata": {"labels": pod_labels},
                });
                if let Some(a) = autoscaling {
                    spec["autoscaling"] = a;
                    spec["resources"] = json!({"requests": {"cpu": "100m"}});
                }
                if policy {
                    spec["networkPolicy"] = json!({"enabled": true, "ingress": [
                        {"namespaceSelector": {"matchLabels": {"team": "clients"}}}
                    ]});
                }
                if !pull.is_empty() {
                    spec["imagePullSecrets"] =
                        Value::Array(pull.iter().map(|n| json!({"name": n})).collect());
                }
                serde_json::from_value(json!({
                    "apiVersion": "runtime.trussium.io/v1beta1",
                    "kind": "TrussiumRuntime",
                    "metadata": {
                        "name": name, "namespace": namespace, "generation": generation,
                        "uid": "8a4c2b7e-0d6f-4c1e-9b1a-2f3e4d5c6b7a",
                    },
                    "spec": spec,
                }))
                .expect("a valid runtime")
            },
        )
}

/// What a Deployment controller may show at any moment.
#[derive(Clone, Debug)]
struct DeploymentState {
    present: bool,
    generation: i64,
    observed_lag: i64,
    spec_replicas: i32,
    desired_image: bool,
    counts: [i32; 4],
    progressing: Option<&'static str>,
    replica_failure: bool,
    /// Overrides the rest: a finished rollout of the desired spec.
    complete: bool,
}

fn deployment_state() -> impl Strategy<Value = DeploymentState> {
    (
        prop::bool::weighted(0.9),
        1..20_i64,
        0..3_i64,
        0..8_i32,
        prop::bool::weighted(0.7),
        [0..8_i32, 0..8_i32, 0..8_i32, 0..8_i32],
        proptest::option::of(prop_oneof![
            Just("NewReplicaSetAvailable"),
            Just("ReplicaSetUpdated"),
            Just("ProgressDeadlineExceeded"),
            Just("NewReplicaSetCreated"),
        ]),
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.4),
    )
        .prop_map(
            |(
                present,
                generation,
                observed_lag,
                spec_replicas,
                desired_image,
                counts,
                progressing,
                replica_failure,
                complete,
            )| {
                DeploymentState {
                    present,
                    generation,
                    observed_lag,
                    spec_replicas,
                    desired_image,
                    counts,
                    progressing,
                    replica_failure,
                    complete,
                }
            },
        )
}

fn references() -> impl Strategy<Value = ReferenceCheck> {
    prop_oneof![
        8 => Just(ReferenceCheck::Resolved { versions: BTreeMap::new() }),
        1 => Just(ReferenceCheck::Missing { names: vec!["creds".into()] }),
        1 => "[a-z ]{0,30}".prop_map(|message| ReferenceCheck::Failed { message }),
    ]
}

/// One reconcile's inputs: the Deployment, the reference check, a reconcile
/// error, and how far the clock moved.
fn step() -> impl Strategy<Value = (DeploymentState, ReferenceCheck, Option<String>, i64)> {
    (
        deployment_state(),
        references(),
        proptest::option::weighted(0.1, "[a-z ]{1,20}"),
        0..100_i64,
    )
}

fn desired_image(rt: &TrussiumRuntime) -> String {
    rt.spec.image.reference()
}

fn to_deployment(rt: &TrussiumRuntime, s: &DeploymentState) -> Option<Deployment> {
    if !s.present {
        return None;
    }
    if s.complete {
        let n = rt.spec.replicas;
        let done = DeploymentState {
            observed_lag: 0,
            spec_replicas: n,
            desired_image: true,
            counts: [n, n, n, n],
            progressing: Some("NewReplicaSetAvailable"),
            replica_failure: false,
            complete: false,
            ..s.clone()
        };
        return to_deployment(rt, &done);
    }
    let image = if s.desired_image {
        desired_image(rt)
    } else {
        format!("{REPOSITORY}:v0.0.1")
    };
    let [replicas, updated, ready, available] = s.counts;
    let mut conditions = Vec::new();
    if let Some(reason) = s.progressing {
        let status = if reason == "ProgressDeadlineExceeded" {
            "False"
        } else {
            "True"
        };
        conditions.push(
            json!({"type": "Progressing", "status": status, "reason": reason, "message": reason}),
        );
    }
    if s.replica_failure {
        conditions.push(json!({"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": "quota"}));
    }
    let observed = (s.generation - s.observed_lag).max(0);
    Some(
        serde_json::from_value(json!({
            "metadata": {"name": rt.metadata.name, "namespace": rt.metadata.namespace, "generation": s.generation},
            "spec": {
                "replicas": s.spec_replicas,
                "selector": {"matchLabels": {"app.kubernetes.io/instance": rt.metadata.name}},
                "template": {"spec": {"containers": [{"name": "runtime", "image": image}]}},
            },
            "status": {
                "observedGeneration": (observed > 0).then_some(observed),
                "replicas": replicas, "updatedReplicas": updated,
                "readyReplicas": ready, "availableReplicas": available,
                "unavailableReplicas": (replicas - available).max(0),
                "conditions": conditions,
            }
        }))
        .expect("a valid Deployment"),
    )
}

/// A date-time the API server accepts (RFC 3339, any year it can hold),
/// most of them out of the operator's range or in its future.
fn any_time() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("9999-12-31T23:59:59Z")),
        Just(json!("0001-01-01T00:00:00Z")),
        Just(json!("2026-01-01T00:00:00Z")),
        (1_i32..9999, 1_u8..13, 1_u8..29)
            .prop_map(|(y, m, d)| json!(format!("{y:04}-{m:02}-{d:02}T23:59:59Z"))),
        Just(json!("not a time")),
    ]
}

/// Any integer JSON holds, from the extremes in.
fn any_integer() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(i64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(u64::MAX)),
        Just(json!(-1)),
        Just(json!(i64::from(i32::MAX) + 1)),
        any::<i64>().prop_map(|n| json!(n)),
        (0..100_i64).prop_map(|n| json!(n)),
    ]
}

fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any_integer(),
        "[ -~]{0,20}".prop_map(|s| json!(s)),
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(1.5)),
    ]
}

/// A condition as anyone with status rights could write it: a type the
/// operator reports or not, any status, fields missing.
fn any_condition() -> impl Strategy<Value = Value> {
    let type_ = prop_oneof![
        proptest::sample::select(condition_type::ALL.to_vec()).prop_map(str::to_string),
        "[A-Za-z]{1,12}",
    ];
    (
        type_,
        prop_oneof![Just("True"), Just("False"), Just("Unknown"), Just("maybe")],
        any_time(),
        proptest::option::of(any_integer()),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(type_, status, time, generation, drop_reason)| {
            let mut c = json!({"type": type_, "status": status, "reason": "Forged",
                "message": "forged", "lastTransitionTime": time});
            if let Some(generation) = generation {
                c["observedGeneration"] = generation;
            }
            if drop_reason && let Some(c) = c.as_object_mut() {
                c.remove("reason");
            }
            c
        })
}

/// A status as the API server would store it from anyone with the rights:
/// any subset of the fields, each any value of about its type.
fn any_status() -> impl Strategy<Value = Value> {
    let keys = [
        "observedGeneration",
        "desiredReplicas",
        "readyReplicas",
        "availableReplicas",
        "desiredImage",
        "currentImage",
        "lastSuccessfulImage",
        "endpoint",
        "observedTemplateHash",
        "reportSequence",
    ];
    (
        proptest::collection::btree_map(
            proptest::sample::select(keys.to_vec()),
            any_value(),
            0..10,
        ),
        proptest::collection::vec(any_condition(), 0..10),
    )
        .prop_map(|(fields, conditions)| {
            let mut status: serde_json::Map<String, Value> = fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            status.insert("conditions".into(), Value::Array(conditions));
            Value::Object(status)
        })
}

fn condition_status<'a>(s: &'a TrussiumRuntimeStatus, type_: &str) -> Option<&'a str> {
    s.condition(type_).map(|c| c.status.as_str())
}

proptest! {
    #![proptest_config(config())]

    /// Any status the API server would accept is survived: the runtime is
    /// read, and what the operator writes over it parses, holds only the
    /// conditions it reports, a sequence in range and none of the forged
    /// values; written, it is a fixed point (nothing more to write or say).
    #[test]
    fn any_status_is_survived_and_rewritten(
        rt in runtime(),
        status in any_status(),
        own in prop::bool::ANY,
        state in deployment_state(),
        revision in 1..1_000_000_u64,
    ) {
        let mut object = serde_json::to_value(&rt).expect("a runtime serializes");
        object["status"] = status;
        let read = lenient::read(object).expect("any status is read");
        let stored = read.runtime.status.clone();
        let now = Timestamp::from_second(1_800_000_000).expect("a valid time");
        let deployment = to_deployment(&rt, &state);
        let config = OperatorConfig::default();
        let references = ReferenceCheck::Resolved { versions: BTreeMap::new() };
        let project_from = |previous: Option<&TrussiumRuntimeStatus>| {
            let mut from = rt.clone();
            from.status = previous.cloned();
            project(&StatusInput {
                runtime: &from,
                deployment: deployment.as_ref(),
                references: &references,
                reconcile_error: None,
                stall: None,
                config: &config,
                waiting: None,
                now,
            })
        };
        // With an own status (the operator ran before) or without.
        let own_status = own.then(|| {
            let a = announce("x", "u", None, project_from(None)).expect("a first report");
            a.status
        });
        let unreadable = !read.problems.is_empty();
        let b = basis(stored.as_ref(), own_status.as_ref(), unreadable, now, Some(revision));
        let projected = project_from(b.previous());
        let Some(a) = announce_from("x", "u", &b, projected) else {
            // Nothing to write: the stored status was right as it was.
            prop_assert!(!b.repair && !unreadable);
            return Ok(());
        };
        let written: TrussiumRuntimeStatus =
            serde_json::from_value(serde_json::to_value(replacement(&a.status)).expect("json"))
                .expect("what is written parses");
        let types: Vec<_> = written.conditions.iter().map(|c| c.type_.as_str()).collect();
        prop_assert_eq!(types, condition_type::ALL.to_vec());
        prop_assert!(written.report_sequence.is_some_and(|n| (1..=SEQUENCE_LIMIT).contains(&n)));
        for c in &written.conditions {
            prop_assert!(c.last_transition_time.0 <= now, "a time in the future survived");
        }
        // Written, it is the own status and stored: nothing more to do.
        let b = basis(Some(&written), Some(&written), false, now, Some(revision + 1));
        prop_assert!(announce_from("x", "u", &b, project_from(Some(&written))).is_none());
    }

    /// Building never panics on a valid spec and is deterministic.
    #[test]
    fn building_is_total_and_deterministic(
        rt in runtime(),
        observed_replicas in proptest::option::of(0..10_i32),
    ) {
        let config = OperatorConfig::default();
        let versions: BTreeMap<String, String> = BTreeMap::from([("creds".into(), "7".into())]);
        let ctx = BuildContext { config: &config, secret_versions: &versions, observed_replicas };
        let first = build(&rt, &ctx);
        let second = build(&rt, &ctx);
        prop_assert_eq!(format!("{first:?}"), format!("{second:?}"));
        let desired = first.expect("a valid runtime builds");
        let deployment = serde_json::to_value(&desired.deployment).expect("serializable");
        let image = desired_image(&rt);
        prop_assert_eq!(
            deployment.pointer("/spec/template/spec/containers/0/image").and_then(Value::as_str),
            Some(image.as_str())
        );
        // Reserved pod labels never come from podMetadata.
        let labels = deployment.pointer("/spec/template/metadata/labels").cloned().unwrap_or_default();
        prop_assert_eq!(labels.get("app.kubernetes.io/name").and_then(Value::as_str), Some("trussium"));
        prop_assert!(labels.get("runtime.trussium.io/x").is_none());
    }

    /// A random walk of reconciles: every step's status keeps the promises.
    #[test]
    fn the_projection_keeps_its_promises(
        rt in runtime(),
        steps in proptest::collection::vec(step(), 1..8),
    ) {
        let config = OperatorConfig::default();
        let mut rt = rt;
        let mut now = Timestamp::from_second(1_800_000_000).expect("a valid time");
        for (state, references, error, advance) in steps {
            now = now.checked_add(SignedDuration::from_secs(advance)).expect("in range");
            let deployment = to_deployment(&rt, &state);
            let input = StatusInput {
                runtime: &rt,
                deployment: deployment.as_ref(),
                references: &references,
                reconcile_error: error.as_deref(),
                stall: None,
                config: &config,
                waiting: None,
                now,
            };
            let status = project(&input);
            prop_assert_eq!(&status, &project(&input), "projecting twice differs");

            // Ready => ConfigurationValid.
            if condition_status(&status, condition_type::READY) == Some("True") {
                prop_assert_eq!(condition_status(&status, condition_type::CONFIGURATION_VALID), Some("True"));
            }
            // Every condition carries the observed generation.
            for c in &status.conditions {
                prop_assert_eq!(c.observed_generation, rt.metadata.generation, "{}", c.type_);
            }
            prop_assert_eq!(status.observed_generation, rt.metadata.generation);
            // lastSuccessfulImage moves only on a completed rollout of the
            // desired image.
            let previous = rt.status.as_ref().and_then(|s| s.last_successful_image.clone());
            if status.last_successful_image != previous {
                let desired = desired_image(&rt);
                prop_assert_eq!(status.last_successful_image.as_deref(), Some(desired.as_str()));
                let d = deployment.as_ref().expect("a rollout needs a Deployment");
                let d_status = d.status.as_ref().expect("with a status");
                let running = d
                    .spec
                    .as_ref()
                    .and_then(|s| s.template.spec.as_ref())
                    .and_then(|p| p.containers.first())
                    .and_then(|c| c.image.clone());
                prop_assert_eq!(running.as_deref(), Some(desired.as_str()), "moved to an image the Deployment does not run");
                // The Deployment has observed its generation, or (the
                // contract's "a generation that keeps the pod template")
                // the counts describe the template already recorded.
                let previous_template = rt.status.as_ref().and_then(|s| s.observed_template_hash.clone());
                prop_assert!(
                    d_status.observed_generation == d.metadata.generation
                        || (previous_template.is_some() && previous_template == status.observed_template_hash),
                    "moved on a Deployment that has not observed its generation"
                );
                // ...and it was Ready: at least one replica desired, every
                // one of them updated and ready.
                let wanted = status.desired_replicas.unwrap_or_default();
                prop_assert!(wanted > 0, "moved to an image no replica ran");
                prop_assert!(d_status.updated_replicas.unwrap_or_default() >= wanted);
                prop_assert!(d_status.ready_replicas.unwrap_or_default() >= wanted);
                let resolved = matches!(references, ReferenceCheck::Resolved { .. });
                prop_assert!(resolved, "moved while the references do not resolve");
            }

            // What is written is a fixed point: announcing it again says
            // nothing, and its sequence moved by one.
            let uid = rt.metadata.uid.clone().unwrap_or_default();
            let name = rt.metadata.name.clone().unwrap_or_default();
            if let Some(a) = announce(&name, &uid, rt.status.as_ref(), status) {
                let before = rt.status.as_ref().and_then(|s| s.report_sequence).unwrap_or(0);
                prop_assert_eq!(a.status.report_sequence, Some(before + 1));
                prop_assert!(announce(&name, &uid, Some(&a.status), a.status.clone()).is_none());
                let mut names: Vec<_> = a.events.iter().map(|(n, _)| n.clone()).collect();
                names.dedup();
                prop_assert_eq!(names.len(), a.events.len(), "two Events share a name");
                rt.status = Some(a.status);
            }
        }
    }
}
