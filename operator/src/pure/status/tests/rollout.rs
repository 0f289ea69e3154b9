//! First rollout, scaling, replica failures, autoscaling.

use super::*;

#[test]
fn first_rollout_to_ready() {
    let mut w = World::new();

    // Nothing applied yet.
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentProgressing",
            "False/RuntimeUnavailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    assert_eq!(s.status.desired_replicas, Some(1));
    assert_eq!(s.status.ready_replicas, None);
    assert_eq!(s.status.available_replicas, None);
    assert_eq!(s.status.current_image, None);
    assert_eq!(s.status.desired_image, Some(image("v1.22.0")));
    assert_eq!(s.status.last_successful_image, None);
    assert_eq!(
        s.status.endpoint.as_deref(),
        Some("http://private-ai.trussium.svc.cluster.local:9000")
    );

    // Created; its controller has not looked at it yet.
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
    assert_events(&s.events, &[]);
    assert_eq!(s.status.ready_replicas, Some(0));
    assert_eq!(s.status.current_image, Some(image("v1.22.0")));

    // A pod is starting.
    w.rolling([1, 1, 0, 0]);
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentProgressing",
            "False/RuntimeUnavailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &[]);
    assert_eq!(
        s.status.last_successful_image, None,
        "set only by a completed rollout"
    );

    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(&s.events, &["Normal/RuntimeReady"]);
    assert_eq!(s.status.ready_replicas, Some(1));
    assert_eq!(s.status.available_replicas, Some(1));
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));
    assert_eq!(
        condition(&s.status, "Ready").message,
        "All requested runtime replicas are ready and available."
    );
    assert_eq!(
        kinds(&w.log),
        ["Normal/RuntimeProgressing", "Normal/RuntimeReady"]
    );
}

#[test]
fn first_reconcile_usually_sees_the_freshly_applied_deployment() {
    let mut w = World::new();
    w.apply();
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "Progressing").reason,
        "DeploymentGenerationPending"
    );
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
}

#[test]
fn scale_up_to_zero_and_back() {
    let mut w = World::new();
    w.provision();
    w.log.clear();

    // 1 → 2
    w.scale(2);
    w.apply();
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentGenerationPending",
            "True/RuntimeAvailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    assert_eq!(s.status.desired_replicas, Some(2));
    w.rolling([3, 2, 1, 1]);
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentProgressing",
            "True/RuntimeAvailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_eq!(
        condition(&s.status, "Progressing").message,
        "Deployment private-ai is rolling out: 2 of 2 desired replicas updated, 1 ready, 1 available, 3 in total."
    );
    assert_events(&s.events, &[]);
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(&s.events, &["Normal/RuntimeReady"]);
    assert_eq!(s.status.ready_replicas, Some(2));

    // 2 → 0
    w.scale(0);
    w.apply();
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentGenerationPending",
            "True/RuntimeAvailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    w.rolling([1, 1, 1, 1]);
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentProgressing",
            "True/RuntimeAvailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_eq!(
        condition(&s.status, "Ready").message,
        "Scaling down to zero: 1 replica remaining."
    );
    assert_events(&s.events, &[]);
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/ScaledToZero",
            "False/ScaledToZero",
            "True/ScaledToZero",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Normal/RuntimeScaledToZero"]);
    assert_eq!(
        (
            s.status.desired_replicas,
            s.status.ready_replicas,
            s.status.available_replicas
        ),
        (Some(0), Some(0), Some(0))
    );

    // 0 → 1
    w.scale(1);
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
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    w.rolling([1, 1, 0, 0]);
    let s = w.reconcile();
    assert_events(&s.events, &[]);
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(&s.events, &["Normal/RuntimeReady"]);

    // Scaling never touches the upgrade lifecycle.
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));
    assert!(w.log.iter().all(|e| !e.reason.as_str().contains("Upgrade")));
}

#[test]
fn scaled_to_zero_from_the_start() {
    let mut w = World::new();
    w.rt.spec.replicas = 0;
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentProgressing",
            "False/ScaledToZero",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    w.apply();
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/ScaledToZero",
            "False/ScaledToZero",
            "True/ScaledToZero",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Normal/RuntimeScaledToZero"]);
    assert_eq!(
        s.status.last_successful_image, None,
        "a zero-replica rollout completes, as Kubernetes says, but no pod of \
         the image was ever ready"
    );
}

#[test]
fn ready_holds_while_surplus_replicas_drain() {
    let mut w = World::new();
    w.provision();
    w.scale(2);
    w.apply();
    w.rolled_out();
    w.reconcile();
    w.log.clear();
    // 2 → 1, before and after the controller observed it (one pod still
    // counted): the requested capacity of the same template serves all
    // along, so nothing flips and nothing is said.
    w.scale(1);
    w.apply();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    w.rolling([2, 2, 2, 2]);
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_eq!(kinds(&w.log), Vec::<String>::new());
}

#[test]
fn an_upgrade_is_ready_once_every_desired_replica_runs_the_new_template() {
    let mut w = World::new();
    w.scale(2);
    w.provision();
    w.log.clear();
    w.set_tag("v1.23.0");
    w.apply();
    // Pending: a new template, whatever the old counts say.
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Ready").reason, "RuntimeNotReady");
    assert!(
        condition(&s.status, "Ready")
            .message
            .starts_with("Waiting for Deployment private-ai to roll out generation 2: "),
        "{}",
        condition(&s.status, "Ready").message
    );
    // Surge: one new pod not ready yet, both old ones serve.
    for counts in [[3, 1, 2, 2], [3, 2, 2, 2], [3, 2, 1, 1]] {
        w.rolling(counts);
        let s = w.reconcile();
        assert_conditions(
            &s.status,
            [
                "True/ReferencesResolved",
                "True/DeploymentProgressing",
                "True/RuntimeAvailable",
                "False/RuntimeNotReady",
                "False/AsExpected",
                "True/UpgradeInProgress",
            ],
        );
    }
    w.rolling([3, 1, 2, 2]);
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "Ready").message,
        "Rollout in progress: 1 of 2 desired replicas run the current pod template; 2 ready, 2 available in total, with 2 replicas of the previous pod template."
    );
    // Both new pods ready, the last old one still counted: ready.
    w.rolling([3, 2, 3, 3]);
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/ReconciliationComplete",
            "True/RuntimeAvailable",
            "True/RuntimeReady",
            "False/AsExpected",
            "False/UpgradeComplete",
        ],
    );
    assert_events(
        &s.events,
        &["Normal/RuntimeReady", "Normal/RuntimeUpgradeCompleted"],
    );
    w.rolled_out();
    let s = w.reconcile();
    assert_events(&s.events, &[]);
    assert_eq!(
        kinds(&w.log),
        [
            "Normal/RuntimeUpgradeStarted",
            "Normal/RuntimeProgressing",
            "Normal/RuntimeReady",
            "Normal/RuntimeUpgradeCompleted"
        ]
    );
}

#[test]
fn a_deployment_change_that_keeps_the_pods_is_not_a_rollout() {
    let mut w = World::new();
    w.provision();
    w.log.clear();
    let healthy = w.status().clone();
    // Someone annotates the Deployment: a new generation, same template.
    w.touch_deployment(None);
    let s = w.reconcile();
    assert!(semantically_equal(&s.status, &healthy), "{:#?}", s.status);
    w.observed();
    let s = w.reconcile();
    assert!(semantically_equal(&s.status, &healthy), "{:#?}", s.status);
    assert_eq!(kinds(&w.log), Vec::<String>::new());

    // `kubectl rollout restart` changes the template: a rollout.
    w.touch_deployment(Some("2026-11-30T00:00:00Z"));
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentGenerationPending",
            "True/RuntimeAvailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_eq!(
        s.status.observed_template_hash, healthy.observed_template_hash,
        "the recorded template is the one the counts describe"
    );
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_ne!(
        s.status.observed_template_hash, healthy.observed_template_hash,
        "the recorded template follows once observed"
    );
    assert_eq!(
        kinds(&w.log),
        ["Normal/RuntimeProgressing", "Normal/RuntimeReady"]
    );
}

#[test]
fn replica_failure_degrades_without_touching_progressing() {
    let mut w = World::new();
    w.provision();
    w.log.clear();
    w.scale(3);
    w.apply();
    w.reconcile();
    w.rolling([2, 2, 2, 2]);
    w.deployment.as_mut().unwrap().replica_failure =
        Some("pods \"private-ai-x\" is forbidden: exceeded quota");
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentProgressing",
            "True/RuntimeAvailable",
            "False/RuntimeNotReady",
            "True/ReplicaFailure",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Warning/RuntimeDegraded"]);
    assert!(
        condition(&s.status, "Degraded")
            .message
            .contains("exceeded quota")
    );
    // Ready names the cause too: what `kubectl wait` and GitOps tools show.
    assert_eq!(
        condition(&s.status, "Ready").message,
        "Rollout in progress: 2 of 3 desired replicas run the current pod template; 2 ready, \
         2 available. Pods cannot be created: pods \"private-ai-x\" is forbidden: exceeded quota"
    );
    let degraded = s.events[0].clone();
    assert!(
        degraded.note.contains("exceeded quota"),
        "{}",
        degraded.note
    );
    assert_eq!(degraded.reason.action().as_str(), "Rollout");

    // A spec change while the quota is still exhausted: the failure stays
    // reported through the pending generation, no false recovery.
    w.scale(4);
    w.apply();
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Degraded").reason, "ReplicaFailure");
    assert!(
        condition(&s.status, "Ready").message.ends_with(
            "Pods cannot be created: pods \"private-ai-x\" is forbidden: exceeded quota"
        )
    );
    assert_events(&s.events, &[]);

    // Quota raised.
    w.deployment.as_mut().unwrap().replica_failure = None;
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(
        &s.events,
        &["Normal/RuntimeRecovered", "Normal/RuntimeReady"],
    );
    assert_eq!(
        kinds(&w.log),
        [
            "Normal/RuntimeProgressing",
            "Warning/RuntimeDegraded",
            "Normal/RuntimeRecovered",
            "Normal/RuntimeReady"
        ]
    );
}

#[test]
fn replica_failure_on_a_complete_rollout_keeps_progressing_complete() {
    let mut w = World::new();
    w.provision();
    w.deployment.as_mut().unwrap().replica_failure = Some("admission webhook denied the pod");
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "False/ReconciliationComplete",
            "True/RuntimeAvailable",
            "True/RuntimeReady",
            "True/ReplicaFailure",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Warning/RuntimeDegraded"]);
}

const AUTOSCALED: &str = r#"
apiVersion: runtime.trussium.io/v1beta1
kind: TrussiumRuntime
metadata: {name: private-ai, namespace: trussium, generation: 1}
spec:
  image: {repository: ghcr.io/trussiumhq/trussium, tag: v1.22.0}
  replicas: 1
  provider: {type: ollama, model: llama3.2}
  resources: {requests: {cpu: 250m}}
  autoscaling: {enabled: true, minReplicas: 2, maxReplicas: 5}
"#;

/// The HPA sets the Deployment's spec.replicas (a new Deployment generation,
/// not a new runtime generation).
fn hpa_scales(w: &mut World, replicas: i32) {
    let d = w.deployment.as_mut().unwrap();
    d.spec_replicas = replicas;
    d.generation += 1;
}

#[test]
fn without_autoscaling_spec_replicas_is_desired_before_the_deployment_has_it() {
    let mut w = World::new();
    w.provision();
    w.scale(4);
    // Not applied yet: the Deployment still asks for the old count.
    assert_ne!(w.deployment.as_ref().map(|d| d.spec_replicas), Some(4));
    let s = w.reconcile();
    assert_eq!(s.status.desired_replicas, Some(4));
}

#[test]
fn autoscaling_follows_the_hpa() {
    let mut w = World::from_yaml(AUTOSCALED);
    w.references = ReferenceCheck::Resolved {
        versions: BTreeMap::new(),
    };
    // Before a Deployment exists: spec.replicas.
    let s = w.reconcile();
    assert_eq!(s.status.desired_replicas, Some(1));
    assert_eq!(
        condition(&s.status, "ConfigurationValid").message,
        "No Secrets are referenced."
    );
    w.apply();
    w.rolled_out();
    w.reconcile();

    hpa_scales(&mut w, 3);
    let s = w.reconcile();
    assert_eq!(s.status.desired_replicas, Some(3));
    assert_eq!(condition(&s.status, "Ready").reason, "RuntimeNotReady");
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    w.rolling([3, 3, 2, 2]);
    let s = w.reconcile();
    assert_eq!(condition(&s.status, "Ready").reason, "RuntimeNotReady");
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_eq!(s.status.ready_replicas, Some(3));
    assert_events(&s.events, &["Normal/RuntimeReady"]);

    // spec.replicas is ignored while the HPA owns the count.
    w.scale(7);
    w.apply();
    let s = w.reconcile();
    assert_eq!(s.status.desired_replicas, Some(3));
    assert_conditions(&s.status, HEALTHY);
    assert_events(&s.events, &[]);

    // Autoscaling off: spec.replicas again. Going down to 2 of the same
    // template is served at once (the surplus drains): no rollout, no Event.
    w.rt.spec.autoscaling.as_mut().unwrap().enabled = false;
    w.scale(2);
    w.apply();
    let s = w.reconcile();
    assert_eq!(s.status.desired_replicas, Some(2));
    assert_conditions(&s.status, HEALTHY);
    assert_events(&s.events, &[]);
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_eq!(s.status.ready_replicas, Some(2));
    assert_events(&s.events, &[]);

    // Up to 4: the controller has yet to act on it.
    w.scale(4);
    w.apply();
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "Progressing").reason,
        "DeploymentGenerationPending"
    );
    assert_eq!(condition(&s.status, "Ready").reason, "RuntimeNotReady");
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
}

#[test]
fn a_deleted_deployment_is_progressing_again() {
    let mut w = World::new();
    w.provision();
    w.deployment = None;
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "True/ReferencesResolved",
            "True/DeploymentProgressing",
            "False/RuntimeUnavailable",
            "False/RuntimeNotReady",
            "False/AsExpected",
            "False/NoUpgrade",
        ],
    );
    assert_events(&s.events, &["Normal/RuntimeProgressing"]);
    assert_eq!(
        (s.status.current_image.as_deref(), s.status.ready_replicas),
        (None, None)
    );
    assert_eq!(s.status.last_successful_image, Some(image("v1.22.0")));
    w.apply();
    w.rolled_out();
    let s = w.reconcile();
    assert_conditions(&s.status, HEALTHY);
    assert_events(&s.events, &["Normal/RuntimeReady"]);
}
