//! Every cause, from the objects Kubernetes writes for it.

use serde_json::{Value, json};

use k8s_openapi::api::discovery::v1::EndpointSlice;

use super::pods::{REVISION_ANNOTATION, TEMPLATE_HASH_LABEL};
use super::render::{headline, render_detail, render_triage};
use super::*;
use crate::fixtures::{self, now};
use crate::output::Palette;

const NAME: &str = "private-ai";

/// The runtime with `conditions` ((type, status, reason, message)) and
/// lastSuccessfulImage v1.22.0 while spec asks for v1.23.0.
fn runtime(conditions: &[(&str, &str, &str, &str)]) -> TrussiumRuntime {
    let conditions: Vec<Value> = conditions
        .iter()
        .map(|(t, s, r, m)| {
            json!({"type": t, "status": s, "reason": r, "message": m,
                   "lastTransitionTime": "2026-12-01T10:00:00Z", "observedGeneration": 2})
        })
        .collect();
    let rt = json!({
        "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
        "metadata": {"name": NAME, "namespace": "ai", "uid": "rt-uid", "generation": 2},
        "spec": {"image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.23.0"},
                 "replicas": 2,
                 "provider": {"type": "ollama", "model": "llama3.2",
                              "baseURL": "http://ollama:11434/v1"}},
        "status": {"observedGeneration": 2, "readyReplicas": 0,
                   "lastSuccessfulImage": "ghcr.io/trussiumhq/trussium:v1.22.0",
                   "conditions": conditions},
    });
    serde_json::from_value(rt).unwrap_or_else(|e| panic!("{e}"))
}

fn not_ready() -> TrussiumRuntime {
    runtime(&[
        ("Ready", "False", "RuntimeNotReady", "Rollout in progress."),
        ("Progressing", "True", "DeploymentProgressing", "rolling"),
    ])
}

fn deployment() -> Deployment {
    serde_json::from_value(json!({"metadata": {"name": NAME, "namespace": "ai",
        "annotations": {REVISION_ANNOTATION: "2"}}}))
    .unwrap_or_default()
}

fn replica_set(hash: &str, revision: &str, failure: Option<&str>) -> ReplicaSet {
    let conditions: Vec<Value> = failure
        .map(|m| {
            json!({"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
                        "message": m, "lastTransitionTime": "2026-12-01T10:00:00Z"})
        })
        .into_iter()
        .collect();
    serde_json::from_value(json!({
        "metadata": {"name": format!("{NAME}-{hash}"), "namespace": "ai",
                     "labels": {TEMPLATE_HASH_LABEL: hash},
                     "annotations": {REVISION_ANNOTATION: revision}},
        "status": {"replicas": 0, "conditions": conditions}}))
    .unwrap_or_default()
}

fn pod(name: &str, hash: &str, status: Value) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "ai", "labels": {TEMPLATE_HASH_LABEL: hash},
                     "creationTimestamp": "2026-12-01T10:00:00Z"},
        "spec": {"containers": [{"name": "runtime", "image": "ghcr.io/trussiumhq/trussium:v1.23.0",
                 "resources": {"limits": {"memory": "128Mi"}}}]},
        "status": status}))
    .unwrap_or_default()
}

fn waiting(reason: &str, message: &str, last: Option<Value>, restarts: i32) -> Value {
    let mut c = json!({"name": "runtime", "image": "ghcr.io/trussiumhq/trussium:v1.23.0",
        "imageID": "", "ready": false, "restartCount": restarts,
        "state": {"waiting": {"reason": reason, "message": message}}});
    if let Some(last) = last {
        c["lastState"] = json!({"terminated": last});
    }
    json!({"phase": "Pending", "containerStatuses": [c]})
}

fn evidence(rt: TrussiumRuntime, sets: Vec<ReplicaSet>, pods: Vec<Pod>) -> Evidence {
    Evidence {
        runtime: rt,
        deployment: Read::Got(Some(deployment())),
        replica_sets: Read::Got(sets),
        pods: Read::Got(pods),
        events: Some(Read::Got(Vec::new())),
        autoscaler: None,
        endpoints: None,
        previous_log: None,
    }
}

fn both_sets() -> Vec<ReplicaSet> {
    vec![replica_set("old", "1", None), replica_set("new", "2", None)]
}

fn ready_pod(name: &str, hash: &str) -> Pod {
    pod(
        name,
        hash,
        json!({"phase": "Running", "containerStatuses": [{"name": "runtime",
            "image": "x", "imageID": "", "ready": true, "restartCount": 0,
            "state": {"running": {"startedAt": "2026-12-01T10:00:00Z"}}}]}),
    )
}

fn commands(d: &Diagnosis) -> Vec<String> {
    d.next_steps
        .iter()
        .filter_map(|s| s.command.clone())
        .collect()
}

#[test]
fn ready_says_so_and_needs_nothing() {
    let mut rt = runtime(&[("Ready", "True", "RuntimeReady", "All ready.")]);
    if let Some(s) = rt.status.as_mut() {
        s.ready_replicas = Some(2);
    }
    let d = diagnose(&evidence(
        rt,
        both_sets(),
        vec![ready_pod("p-1", "new"), ready_pod("p-2", "new")],
    ));
    assert_eq!(d.cause, Cause::Ready);
    assert!(d.ready);
    assert!(d.next_steps.is_empty());
    assert_eq!(
        headline(&d, Palette::PLAIN),
        "✓ private-ai: Ready, 2 of 2 replicas ready: nothing to fix"
    );
    let scaled = runtime(&[("Ready", "True", "ScaledToZero", "zero")]);
    let d = diagnose(&evidence(scaled, Vec::new(), Vec::new()));
    assert_eq!(d.cause, Cause::ScaledToZero);
    assert!(d.ready);
}

#[test]
fn an_image_that_cannot_be_pulled_suggests_the_rollback() {
    let pulling = pod(
        "p-new",
        "new",
        waiting(
            "ImagePullBackOff",
            "Back-off pulling image \"ghcr.io/trussiumhq/trussium:v1.23.0\": manifest unknown",
            None,
            0,
        ),
    );
    let d = diagnose(&evidence(
        not_ready(),
        both_sets(),
        vec![ready_pod("p-old", "old"), pulling],
    ));
    assert_eq!(d.cause, Cause::ImagePullFailed);
    assert!(!d.ready);
    assert_eq!(
        d.summary,
        "the image ghcr.io/trussiumhq/trussium:v1.23.0 cannot be pulled (ImagePullBackOff, pod p-new)"
    );
    assert_eq!(
        commands(&d),
        ["kubectl trussium rollback private-ai -n ai --wait"]
    );
    assert!(d.evidence[0].message.contains("manifest unknown"));
    assert_eq!(d.evidence[0].object, "Pod/p-new");
    // The new revision's pods first.
    assert_eq!(d.pods[0].name, "p-new");
    assert_eq!(d.pods[0].revision, pods::Revision::New);
    assert_eq!(d.pods[1].revision, pods::Revision::Old);
}

#[test]
fn no_rollback_when_no_other_image_ever_rolled_out() {
    let mut rt = not_ready();
    if let Some(s) = rt.status.as_mut() {
        s.last_successful_image = None;
    }
    let pulling = pod("p", "new", waiting("ErrImagePull", "not found", None, 0));
    let d = diagnose(&evidence(rt, both_sets(), vec![pulling]));
    assert_eq!(d.cause, Cause::ImagePullFailed);
    assert!(commands(&d).is_empty());
}

#[test]
fn a_crash_loop_names_the_exit_code_and_the_log_to_read() {
    let crash = pod(
        "p-1",
        "new",
        waiting(
            "CrashLoopBackOff",
            "back-off 5m0s restarting failed container",
            Some(json!({"exitCode": 3, "reason": "Error"})),
            7,
        ),
    );
    let mut e = evidence(not_ready(), both_sets(), vec![crash]);
    e.previous_log = Some((
        "p-1".into(),
        Read::Got(vec!["starting".into(), "no model llama9".into()]),
    ));
    let d = diagnose(&e);
    assert_eq!(d.cause, Cause::CrashLoop);
    assert_eq!(
        d.summary,
        "the container keeps crashing (last exit code 3, Error; pod p-1, 7 restarts)"
    );
    assert_eq!(
        commands(&d)[0],
        "kubectl logs p-1 -n ai -c runtime --previous"
    );
    assert_eq!(
        d.previous_log,
        Some(PreviousLog {
            pod: "p-1".into(),
            lines: vec!["starting".into(), "no model llama9".into()]
        })
    );
    let text = render_detail(&d, now(), Palette::PLAIN);
    assert!(text.contains("The previous run of p-1 ended with:\n  starting\n  no model llama9\n"));
}

#[test]
fn oom_names_the_limit_it_hit() {
    let oom = |name: &str| {
        pod(
            name,
            "new",
            waiting(
                "CrashLoopBackOff",
                "",
                Some(json!({"exitCode": 137, "reason": "OOMKilled"})),
                3,
            ),
        )
    };
    let d = diagnose(&evidence(
        not_ready(),
        both_sets(),
        vec![oom("p-1"), oom("p-2")],
    ));
    assert_eq!(d.cause, Cause::OOMKilled);
    assert_eq!(
        d.summary,
        "the container is killed for running out of memory (limit 128Mi; 2 pods, 3 restarts)"
    );
}

#[test]
fn unschedulable_quotes_the_scheduler() {
    let message = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.";
    let pending = pod(
        "p-1",
        "new",
        json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "message": message}]}),
    );
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![pending]));
    assert_eq!(d.cause, Cause::Unschedulable);
    assert_eq!(
        d.summary,
        format!("no node can take the pods (pod p-1): {message}")
    );
    assert_eq!(commands(&d), ["kubectl get nodes --show-labels"]);
}

#[test]
fn pods_never_created_say_what_refused_them() {
    let cases = [
        (
            "pods \"private-ai-new-x\" is forbidden: exceeded quota: pods-zero, requested: pods=1, used: pods=0, limited: pods=0",
            "kubectl describe resourcequota -n ai",
        ),
        (
            "pods \"x\" is forbidden: violates PodSecurity \"restricted:latest\": runAsNonRoot != true",
            "kubectl get namespace ai --show-labels",
        ),
        (
            "admission webhook \"deny.example.com\" denied the request: no",
            "kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations",
        ),
    ];
    for (message, command) in cases {
        let sets = vec![
            replica_set("old", "1", None),
            replica_set("new", "2", Some(message)),
        ];
        let d = diagnose(&evidence(not_ready(), sets, Vec::new()));
        assert_eq!(d.cause, Cause::PodsNotCreated, "{message}");
        assert_eq!(d.summary, format!("pods are not created: {message}"));
        assert_eq!(commands(&d), [command]);
        assert_eq!(d.evidence[0].object, "ReplicaSet/private-ai-new");
    }
    // Without ReplicaSets to read, the Deployment's condition says it.
    let mut e = evidence(not_ready(), Vec::new(), Vec::new());
    e.replica_sets = Read::Forbidden("list replicasets.apps in namespace ai".into());
    let mut d = deployment();
    d.status = serde_json::from_value(json!({"conditions": [{"type": "ReplicaFailure",
        "status": "True", "reason": "FailedCreate", "message": "exceeded quota: q"}]}))
    .ok();
    e.deployment = Read::Got(Some(d));
    let d = diagnose(&e);
    assert_eq!(d.cause, Cause::PodsNotCreated);
    assert_eq!(
        d.unread,
        [
            "the ReplicaSets: forbidden to list replicasets.apps in namespace ai; diagnosed without them"
        ]
    );
}

#[test]
fn a_container_that_runs_and_is_never_ready() {
    let running = pod(
        "p-1",
        "new",
        json!({"phase": "Running", "containerStatuses": [{"name": "runtime", "image": "x",
            "imageID": "", "ready": false, "restartCount": 0,
            "state": {"running": {"startedAt": "2026-12-01T10:00:00Z"}}}]}),
    );
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![running]));
    assert_eq!(d.cause, Cause::ContainerNotReady);
    assert_eq!(commands(&d), ["kubectl logs p-1 -n ai -c runtime"]);
}

#[test]
fn a_deadline_with_no_pod_to_blame() {
    let rt = runtime(&[
        ("Ready", "False", "DeploymentFailed", "deadline"),
        (
            "Degraded",
            "True",
            "ProgressDeadlineExceeded",
            "Deployment private-ai exceeded its progress deadline.",
        ),
    ]);
    let d = diagnose(&evidence(rt, both_sets(), Vec::new()));
    assert_eq!(d.cause, Cause::ProgressDeadlineExceeded);
    assert_eq!(
        commands(&d),
        ["kubectl trussium rollback private-ai -n ai --wait"]
    );
}

#[test]
fn the_operators_own_verdicts_come_first() {
    let secret = runtime(&[(
        "ConfigurationValid",
        "False",
        "SecretNotFound",
        "Secret \"openai\" not found in namespace \"ai\".",
    )]);
    let d = diagnose(&evidence(secret, Vec::new(), Vec::new()));
    assert_eq!(d.cause, Cause::SecretNotFound);
    assert!(d.summary.contains("Secret \"openai\" not found"));

    let stalled = runtime(&[(
        "Stalled",
        "True",
        "NameConflict",
        "Service \"private-ai\" exists and is not owned by this runtime.",
    )]);
    let d = diagnose(&evidence(stalled, Vec::new(), Vec::new()));
    assert_eq!(d.cause, Cause::Stalled);
    assert_eq!(
        commands(&d),
        ["kubectl get service private-ai -n ai -o yaml"]
    );

    let mut none = not_ready();
    none.status = None;
    let d = diagnose(&evidence(none, Vec::new(), Vec::new()));
    assert_eq!(d.cause, Cause::NoStatus);
    assert_eq!(commands(&d), ["kubectl trussium check -n ai"]);

    let mut behind = not_ready();
    behind.metadata.generation = Some(3);
    let d = diagnose(&evidence(behind, Vec::new(), Vec::new()));
    assert_eq!(d.cause, Cause::OperatorBehind);

    let mut going = not_ready();
    going.metadata.deletion_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
        fixtures::at(0),
    ));
    assert_eq!(
        diagnose(&evidence(going, Vec::new(), Vec::new())).cause,
        Cause::BeingDeleted
    );
}

#[test]
fn a_rollout_under_way_is_not_a_fault() {
    let starting = pod("p-1", "new", waiting("ContainerCreating", "", None, 0));
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![starting]));
    assert_eq!(d.cause, Cause::RolloutInProgress);
    assert_eq!(
        commands(&d),
        ["kubectl trussium status private-ai -n ai --watch"]
    );
}

#[test]
fn warning_events_about_the_runtimes_objects_are_evidence() {
    let pulling = pod("p-1", "new", waiting("ErrImagePull", "not found", None, 0));
    let mut e = evidence(not_ready(), both_sets(), vec![pulling]);
    let mut about_pod = fixtures::event("e1", "Warning", "Failed", 10, "Failed to pull image");
    about_pod.regarding = serde_json::from_value(json!({"kind": "Pod", "name": "p-1"})).ok();
    let mut elsewhere = fixtures::event("e2", "Warning", "Failed", 20, "someone else's");
    elsewhere.regarding = serde_json::from_value(json!({"kind": "Pod", "name": "other"})).ok();
    let mut normal = fixtures::event("e3", "Normal", "Pulling", 30, "Pulling image");
    normal.regarding = serde_json::from_value(json!({"kind": "Pod", "name": "p-1"})).ok();
    // The same complaint again, later: only the latest is quoted.
    let mut again = fixtures::event("e4", "Warning", "Failed", 40, "Failed to pull image again");
    again.regarding = about_pod.regarding.clone();
    e.events = Some(Read::Got(vec![about_pod, elsewhere, normal, again]));
    let d = diagnose(&e);
    let events: Vec<&str> = d.evidence.iter().map(|i| i.message.as_str()).collect();
    assert_eq!(events, ["not found", "Failed: Failed to pull image again"]);
}

#[test]
fn an_autoscaler_without_metrics_is_a_warning_on_a_ready_runtime() {
    let mut e = evidence(
        runtime(&[("Ready", "True", "RuntimeReady", "ok")]),
        Vec::new(),
        Vec::new(),
    );
    e.autoscaler = Some(Read::Got(
        serde_json::from_value(json!({"metadata": {"name": NAME},
            "spec": {"maxReplicas": 3, "scaleTargetRef": {"kind": "Deployment", "name": NAME}},
            "status": {"desiredReplicas": 2, "conditions": [{"type": "ScalingActive",
            "status": "False", "reason": "FailedGetResourceMetric",
            "message": "unable to get metrics for resource cpu"}]}}))
        .ok(),
    ));
    let d = diagnose(&e);
    assert!(d.ready);
    assert_eq!(
        d.warnings,
        [
            "the HorizontalPodAutoscaler cannot scale (FailedGetResourceMetric): unable to get metrics for resource cpu (is metrics-server installed?)"
        ]
    );
}

#[test]
fn without_pods_it_says_which_permission_is_missing() {
    let mut e = evidence(not_ready(), both_sets(), Vec::new());
    e.pods = Read::Forbidden("list pods in namespace ai".into());
    e.events = Some(Read::Forbidden(
        "list events.events.k8s.io in namespace ai".into(),
    ));
    let d = diagnose(&e);
    assert_eq!(d.cause, Cause::Unknown);
    assert!(
        d.summary
            .starts_with("the pods that would say why cannot be read; the operator reports: ")
    );
    assert_eq!(
        d.unread,
        [
            "the pods: forbidden to list pods in namespace ai; diagnosed without them",
            "the Events: forbidden to list events.events.k8s.io in namespace ai; diagnosed without them"
        ]
    );
    let text = render_detail(&d, now(), Palette::PLAIN);
    assert!(text.contains("Not read:\n  the pods: forbidden"));
}

#[test]
fn hostile_text_is_made_safe() {
    let pulling = pod(
        "p-1",
        "new",
        waiting("ErrImagePull", "evil\u{1b}[2J\nline", None, 0),
    );
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![pulling]));
    let text = render_detail(&d, now(), Palette::PLAIN);
    assert!(!text.contains('\u{1b}'));
    assert!(text.contains("evil\\x1b[2J\\nline"));
}

#[test]
fn triage_lists_only_what_is_not_ready() {
    let ready = diagnose(&evidence(
        runtime(&[("Ready", "True", "RuntimeReady", "ok")]),
        Vec::new(),
        Vec::new(),
    ));
    assert_eq!(
        render_triage(std::slice::from_ref(&ready), Palette::PLAIN),
        "✓ the only runtime is Ready\n"
    );
    assert_eq!(
        render_triage(&[ready.clone(), ready.clone()], Palette::PLAIN),
        "✓ all 2 runtimes are Ready\n"
    );
    let pulling = pod("p-1", "new", waiting("ErrImagePull", "x", None, 0));
    let failing = diagnose(&evidence(not_ready(), both_sets(), vec![pulling]));
    let text = render_triage(&[ready, failing], Palette::PLAIN);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("NAMESPACE   NAME"));
    assert!(lines[1].starts_with("ai          private-ai   ImagePullFailed   the image"));
    assert_eq!(lines.len(), 4);
}

#[test]
fn json_has_the_documented_shape() {
    let pulling = pod("p-1", "new", waiting("ErrImagePull", "x", None, 0));
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![pulling]));
    let v = serde_json::to_value(&d).unwrap_or_default();
    assert_eq!(v["cause"], "ImagePullFailed");
    assert_eq!(v["ready"], false);
    assert_eq!(v["namespace"], "ai");
    assert_eq!(v["pods"][0]["problem"]["kind"], "imagePull");
    assert_eq!(v["pods"][0]["revision"], "new");
    assert_eq!(
        v["nextSteps"][1]["command"],
        "kubectl trussium rollback private-ai -n ai --wait"
    );
    assert_eq!(v["evidence"][0]["object"], "Pod/p-1");
}

#[test]
fn a_ready_runtime_whose_service_routes_nowhere() {
    let mut rt = runtime(&[("Ready", "True", "RuntimeReady", "All ready.")]);
    if let Some(s) = rt.status.as_mut() {
        s.ready_replicas = Some(1);
    }
    let slice = |ready: Option<bool>| -> EndpointSlice {
        let endpoints: Vec<Value> = ready
            .map(|r| json!({"addresses": ["10.244.0.5"], "conditions": {"ready": r}}))
            .into_iter()
            .collect();
        serde_json::from_value(json!({"metadata": {"name": "s"}, "addressType": "IPv4",
            "endpoints": endpoints}))
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let with = |slices: Vec<EndpointSlice>, pods: Vec<Pod>| {
        let mut e = evidence(rt.clone(), both_sets(), pods);
        e.endpoints = Some(Read::Got(slices));
        diagnose(&e)
    };
    let d = with(vec![slice(None)], vec![ready_pod("p-1", "new")]);
    assert_eq!(d.cause, Cause::NoEndpoints);
    assert!(!d.ready);
    assert_eq!(
        commands(&d),
        ["kubectl get endpointslices -n ai -l kubernetes.io/service-name=private-ai"]
    );
    assert_eq!(
        with(vec![slice(Some(false))], vec![ready_pod("p-1", "new")]).cause,
        Cause::NoEndpoints
    );
    // A ready endpoint, or no ready pod to route to: not this.
    assert_eq!(
        with(vec![slice(Some(true))], vec![ready_pod("p-1", "new")]).cause,
        Cause::Ready
    );
    assert_eq!(with(vec![slice(None)], Vec::new()).cause, Cause::Ready);
    // Not read: nothing said about it, and the reason is named.
    let mut e = evidence(rt.clone(), both_sets(), vec![ready_pod("p-1", "new")]);
    e.endpoints = Some(Read::Forbidden(
        "list endpointslices.discovery.k8s.io in namespace ai".into(),
    ));
    let d = diagnose(&e);
    assert_eq!(d.cause, Cause::Ready);
    assert_eq!(d.unread.len(), 1);
}

#[test]
fn the_new_revisions_pods_decide_before_an_old_pods_trouble() {
    // An old pod cannot pull (its registry is down too); the new ones crash.
    let old = pod(
        "p-old",
        "old",
        waiting("ImagePullBackOff", "registry down", None, 0),
    );
    let crash = pod(
        "p-new",
        "new",
        waiting(
            "CrashLoopBackOff",
            "",
            Some(json!({"exitCode": 1, "reason": "Error"})),
            4,
        ),
    );
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![old, crash]));
    assert_eq!(d.cause, Cause::CrashLoop);
    assert_eq!(d.pod.as_deref(), Some("p-new"));
    assert_eq!(d.evidence[0].object, "Pod/p-new");
    assert_eq!(d.evidence[0].message, "last run ended: exit code 1");
}

#[test]
fn a_container_the_kubelet_cannot_start_quotes_it() {
    let p = pod(
        "p-1",
        "new",
        waiting(
            "CreateContainerConfigError",
            "couldn't find key api-key in Secret ai/openai",
            None,
            0,
        ),
    );
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![p]));
    assert_eq!(d.cause, Cause::ContainerCannotStart);
    assert_eq!(
        d.summary,
        "the kubelet cannot start the container (CreateContainerConfigError, pod p-1): couldn't find key api-key in Secret ai/openai"
    );
    // No rollback: the image is not the problem.
    assert!(commands(&d).is_empty());
}

#[test]
fn an_operator_behind_the_spec_outranks_its_old_verdicts() {
    let mut rt = runtime(&[(
        "ConfigurationValid",
        "False",
        "SecretNotFound",
        "Secret \"openai\" not found.",
    )]);
    rt.metadata.generation = Some(3);
    let d = diagnose(&evidence(rt, Vec::new(), Vec::new()));
    assert_eq!(d.cause, Cause::OperatorBehind);
}

#[test]
fn pods_that_fail_to_list_are_not_blamed_on_permissions() {
    let mut e = evidence(not_ready(), both_sets(), Vec::new());
    e.pods = Read::Failed("list pods failed (504): timeout".into());
    let d = diagnose(&e);
    assert_eq!(d.cause, Cause::Unknown);
    assert_eq!(
        d.next_steps[0].why,
        "run it again: the error is under Not read"
    );
}

#[test]
fn hostile_text_in_images_reasons_and_logs_is_made_safe_everywhere() {
    let evil = "evil\u{1b}]0;pwned\u{7}";
    let mut c = json!({"name": "runtime", "image": format!("r/t:{evil}"),
        "imageID": "", "ready": false, "restartCount": 5,
        "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        "lastState": {"terminated": {"exitCode": 1, "reason": evil}}});
    c["state"]["waiting"]["message"] = json!(evil);
    let crash = pod(
        "p-1",
        "new",
        json!({"phase": "Running", "containerStatuses": [c]}),
    );
    let mut e = evidence(not_ready(), both_sets(), vec![crash]);
    e.previous_log = Some(("p-1".into(), Read::Got(vec![evil.to_string()])));
    let d = diagnose(&e);
    let texts = [
        headline(&d, Palette::PLAIN),
        render_detail(&d, now(), Palette::PLAIN),
        render_triage(std::slice::from_ref(&d), Palette::PLAIN),
    ];
    for text in texts {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text}"
        );
    }
}

#[test]
fn a_crash_without_an_exit_code_or_an_oom_without_a_limit_says_so() {
    let crash = pod("p-1", "new", waiting("CrashLoopBackOff", "", None, 2));
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![crash]));
    assert_eq!(d.cause, Cause::CrashLoop);
    assert_eq!(
        d.summary,
        "the container keeps crashing (last no exit code; pod p-1, 2 restarts)"
    );
    assert_eq!(d.evidence[0].message, "last run ended: no exit code");

    let unlimited: Pod = serde_json::from_value(json!({
        "metadata": {"name": "p-1", "namespace": "ai", "labels": {TEMPLATE_HASH_LABEL: "new"}},
        "spec": {"containers": [{"name": "runtime", "image": "x"}]},
        "status": waiting("CrashLoopBackOff", "",
            Some(json!({"exitCode": 137, "reason": "OOMKilled"})), 2)}))
    .unwrap_or_else(|e| panic!("{e}"));
    let d = diagnose(&evidence(not_ready(), both_sets(), vec![unlimited]));
    assert_eq!(d.cause, Cause::OOMKilled);
    assert_eq!(
        d.summary,
        "the container is killed for running out of memory (no limit set on the container; pod p-1, 2 restarts)"
    );
}

#[test]
fn forbidden_pods_name_the_permission_to_ask_for() {
    let mut e = evidence(not_ready(), both_sets(), Vec::new());
    e.pods = Read::Forbidden("list pods in namespace ai".into());
    let d = diagnose(&e);
    assert_eq!(
        d.next_steps,
        [Step {
            why: "diagnose with an identity that may get and list pods and events in namespace ai"
                .into(),
            command: None,
        }]
    );
    assert_eq!(d.evidence[0].object, "TrussiumRuntime/private-ai");
}
