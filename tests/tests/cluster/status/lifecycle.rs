//! Status and Events of a runtime's life, end to end, with KWOK driving pods:
//! the first rollout (and `kubectl wait`), scaling to 2, to 0 and back, a
//! missing Secret that is created later, and generation vs
//! observedGeneration while the operator is down.
//!
//! Every settled step is checked in full: the six conditions (status, reason,
//! observedGeneration), the status fields, and the exact list of Events
//! published about the runtime so far.

use std::time::Duration;

use super::support::{Expect, settle};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Service, ServiceAccount};
use kube::Api;
use serde_json::json;
use trussium_api::{TrussiumRuntime, condition_type};
use trussium_e2e::{
    Harness, OLD_TAG, OPERATOR_USER, QUIET_AFTER_SETTLING, TestResult, ensure, holds_for, image,
    openai_runtime, wait_for, with_operator,
};

use super::support::snapshot;

const N: &str = "Normal";
const W: &str = "Warning";

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn first_rollout_then_scale_to_two_to_zero_and_back() -> TestResult {
    with_operator("status-scale", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None))
            .await?;

        // kubectl wait, started before the runtime is ready, returns once it is.
        let waited = fx
            .kubectl(&[
                "wait",
                "--for=condition=Ready",
                "trussiumruntime/x",
                "--timeout=60s",
            ])
            .await?;
        ensure(
            waited.success,
            format!(
                "kubectl wait failed: {}{}",
                waited.stdout.as_str(),
                waited.stderr.as_str()
            ),
        )?;
        ensure(
            waited.stdout.as_str().contains("condition met"),
            "kubectl wait did not say `condition met`",
        )?;

        let rt = settle(
            fx,
            "x",
            &Expect::ready("first rollout", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        ensure(
            rt.metadata.generation == Some(1),
            "the operator changed the runtime's spec",
        )?;
        snapshot(fx, "x", "first-rollout-complete", "status_lifecycle").await?;
        let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;
        let first = rt.clone();
        // Condition times have whole seconds: let the next flips land in a
        // later second than the first rollout's.
        let latest = first
            .status
            .iter()
            .flat_map(|s| s.conditions.iter())
            .map(|c| c.last_transition_time.0.as_second())
            .max()
            .unwrap_or_default();
        wait_for(
            "the clock to pass the first rollout's second",
            Duration::from_secs(3),
            async || Ok((k8s_openapi::jiff::Timestamp::now().as_second() > latest).then_some(())),
        )
        .await?;

        // Scale to 2.
        fx.set_replicas("x", 2).await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("scaled to 2", 2, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        events.extend([(N, "RuntimeProgressing"), (N, "RuntimeReady")]);
        fx.expect_events(&rt, &events).await?;
        // lastTransitionTime moves only when a condition's status flips:
        // ConfigurationValid, Available and Upgrading held; Progressing and
        // Ready went True/False and back.
        let time = |rt: &TrussiumRuntime, type_: &str| {
            rt.status
                .as_ref()
                .and_then(|s| s.condition(type_))
                .map(|c| c.last_transition_time.clone())
        };
        for type_ in [
            condition_type::CONFIGURATION_VALID,
            condition_type::AVAILABLE,
            condition_type::DEGRADED,
            condition_type::UPGRADING,
        ] {
            ensure(
                time(&first, type_) == time(&rt, type_),
                format!("{type_} lastTransitionTime moved without a flip"),
            )?;
        }
        for type_ in [condition_type::PROGRESSING, condition_type::READY] {
            ensure(
                time(&first, type_) < time(&rt, type_),
                format!("{type_} flipped twice but its lastTransitionTime did not move"),
            )?;
        }

        // Scale to 0: Ready=True/ScaledToZero, Available=False/ScaledToZero.
        fx.set_replicas("x", 0).await?;
        let rt = settle(fx, "x", &Expect::scaled_to_zero("scaled to 0", &v1)).await?;
        snapshot(fx, "x", "scaled-to-zero", "status_lifecycle").await?;
        events.extend([(N, "RuntimeProgressing"), (N, "RuntimeScaledToZero")]);
        let seen = fx.expect_events(&rt, &events).await?;
        let zero = seen.last().ok_or("no events")?;
        ensure(
            zero.action == "Scale",
            format!("RuntimeScaledToZero action {}", zero.action),
        )?;
        // kubectl wait agrees: a runtime scaled to zero as asked is Ready.
        let waited = fx
            .kubectl(&[
                "wait",
                "--for=condition=Ready",
                "trussiumruntime/x",
                "--timeout=5s",
            ])
            .await?;
        ensure(waited.success, "kubectl wait at zero replicas failed")?;

        // Back to 1.
        fx.set_replicas("x", 1).await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("back to 1", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        events.extend([(N, "RuntimeProgressing"), (N, "RuntimeReady")]);
        let seen = fx.expect_events(&rt, &events).await?;
        for e in &seen {
            let (type_, action) = match e.reason.as_str() {
                "RuntimeProgressing" | "RuntimeReady" => ("Normal", "Rollout"),
                "RuntimeScaledToZero" => ("Normal", "Scale"),
                other => return Err(format!("unexpected Event {other}").into()),
            };
            ensure(
                (e.type_.as_str(), e.action.as_str()) == (type_, action),
                format!("{} is {}/{}", e.reason, e.type_, e.action),
            )?;
        }
        fx.events_stay(&rt, &events).await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn missing_secret_blocks_then_its_creation_recovers() -> TestResult {
    with_operator("status-secret", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        let secret_value = format!("trussium-e2e-{}-sk-do-not-leak", fx.namespace());
        let mark = fx.mark();
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, Some("creds")))
            .await?;

        let invalid = Expect {
            label: "missing Secret",
            conditions: [
                (
                    condition_type::CONFIGURATION_VALID,
                    "False",
                    "SecretNotFound",
                ),
                (condition_type::PROGRESSING, "False", "ConfigurationInvalid"),
                (condition_type::AVAILABLE, "False", "RuntimeUnavailable"),
                (condition_type::READY, "False", "ConfigurationInvalid"),
                (condition_type::DEGRADED, "True", "ConfigurationInvalid"),
                (condition_type::UPGRADING, "False", "NoUpgrade"),
            ],
            desired_replicas: 1,
            ready_replicas: None,
            available_replicas: None,
            desired_image: v1.clone(),
            current_image: None,
            last_successful_image: None,
        };
        let rt = settle(fx, "x", &invalid).await?;
        snapshot(fx, "x", "missing-secret", "status_lifecycle").await?;
        let message = rt
            .status
            .as_ref()
            .and_then(|s| s.condition(condition_type::CONFIGURATION_VALID))
            .map(|c| c.message.clone())
            .unwrap_or_default();
        ensure(
            message.contains("\"creds\""),
            format!("ConfigurationValid message does not name the Secret: {message}"),
        )?;
        let seen = fx
            .expect_events(&rt, &[(W, "ConfigurationInvalid")])
            .await?;
        ensure(
            seen[0].note.contains("\"creds\"") && seen[0].action == "ValidateReferences",
            format!("ConfigurationInvalid Event: {:?}", seen[0]),
        )?;
        // Nothing is created while the reference is unresolved, and the
        // Warning is not repeated.
        fx.events_stay(&rt, &[(W, "ConfigurationInvalid")]).await?;
        let ns = fx.namespace();
        let client = fx.ns.client.clone();
        ensure(
            Api::<Deployment>::namespaced(client.clone(), ns)
                .get_opt("x")
                .await?
                .is_none()
                && Api::<ConfigMap>::namespaced(client.clone(), ns)
                    .get_opt("x")
                    .await?
                    .is_none()
                && Api::<Service>::namespaced(client.clone(), ns)
                    .get_opt("x")
                    .await?
                    .is_none()
                && Api::<ServiceAccount>::namespaced(client.clone(), ns)
                    .get_opt("x")
                    .await?
                    .is_none(),
            "an owned object exists although the Secret is missing",
        )?;
        let writes = fx.operator_writes(&mark).await?;
        ensure(
            writes.iter().all(|w| {
                w.starts_with("patch trussiumruntimes/status ") || w.starts_with("create events ")
            }),
            format!("writes other than status and Events while blocked: {writes:?}"),
        )?;

        // The Secret appears: the Secret watch brings the runtime back.
        fx.create_secret("creds", "api-key", &secret_value).await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("Secret created", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        let expected = [
            (W, "ConfigurationInvalid"),
            (N, "RuntimeProgressing"),
            (N, "RuntimeRecovered"),
            (N, "RuntimeReady"),
        ];
        let seen = fx.expect_events(&rt, &expected).await?;
        ensure(
            seen[2].note.contains("ConfigurationInvalid"),
            format!(
                "RuntimeRecovered note does not say from what: {}",
                seen[2].note
            ),
        )?;
        fx.events_stay(&rt, &expected).await?;

        // The Secret is deleted while the runtime serves: blocked again, the
        // old Deployment still serves (Available), one more Warning.
        fx.secrets().delete("creds", &Default::default()).await?;
        let blocked = Expect {
            label: "Secret deleted",
            conditions: [
                (
                    condition_type::CONFIGURATION_VALID,
                    "False",
                    "SecretNotFound",
                ),
                (condition_type::PROGRESSING, "False", "ConfigurationInvalid"),
                (condition_type::AVAILABLE, "True", "RuntimeAvailable"),
                (condition_type::READY, "False", "ConfigurationInvalid"),
                (condition_type::DEGRADED, "True", "ConfigurationInvalid"),
                (condition_type::UPGRADING, "False", "NoUpgrade"),
            ],
            ready_replicas: Some(1),
            available_replicas: Some(1),
            current_image: Some(v1.clone()),
            last_successful_image: Some(v1.clone()),
            ..invalid.clone()
        };
        let rt = settle(fx, "x", &blocked).await?;
        let mut expected = expected.to_vec();
        expected.push((W, "ConfigurationInvalid"));
        fx.expect_events(&rt, &expected).await?;

        // Created again (a new value): the pods roll onto it, and recover.
        let second_value = format!("{secret_value}-rotated");
        fx.create_secret("creds", "api-key", &second_value).await?;
        let rt = settle(
            fx,
            "x",
            &Expect::ready("Secret created again", 1, &v1, ("False", "NoUpgrade")),
        )
        .await?;
        expected.extend([
            (N, "RuntimeProgressing"),
            (N, "RuntimeRecovered"),
            (N, "RuntimeReady"),
        ]);
        fx.expect_events(&rt, &expected).await?;
        fx.events_stay(&rt, &expected).await?;

        // Never a Secret's value, as text or base64: not in the status, not
        // in an Event, and not in anything the API server sent the operator
        // about Secrets (the audit policy records Secret responses in full).
        let mut needles = Vec::new();
        for value in [&secret_value, &second_value] {
            let base64 =
                serde_json::to_string(&k8s_openapi::ByteString(value.as_bytes().to_vec()))?;
            needles.push(value.clone());
            needles.push(base64.trim_matches('"').to_string());
        }
        let leaks = |text: &str| needles.iter().any(|n| text.contains(n.as_str()));
        ensure(
            !leaks(&serde_json::to_string(&fx.get("x").await?)?),
            "a Secret value is in the runtime",
        )?;
        for e in fx.events().list(&Default::default()).await?.items {
            ensure(
                !leaks(&serde_json::to_string(&e)?),
                "a Secret value is in an Event",
            )?;
        }
        fx.audit.settle().await?;
        let audited = fx.audit.events_since(&mark)?;
        // The check can see a value: our own creation of the Secret is
        // recorded with it.
        ensure(
            audited.iter().any(|e| {
                e.user.username != OPERATOR_USER
                    && serde_json::to_string(&e.response_object).is_ok_and(|t| leaks(&t))
            }),
            "the audit log shows no Secret value at all: the leak check is blind",
        )?;
        // The operator learns of Secrets from its metadata-only watch (started
        // before the mark, so usually nothing of it is recorded here); any
        // Secret request it did send must not carry a value either.
        for e in audited {
            if e.user.username == OPERATOR_USER && e.resource() == "secrets" {
                ensure(
                    !leaks(&serde_json::to_string(&e.response_object)?),
                    format!("the operator received a Secret value: {}", e.request_uri),
                )?;
            }
        }
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn observed_generation_lags_while_the_operator_is_down() -> TestResult {
    with_operator("status-generation", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None)).await?;
        let rt = settle(fx, "x",
                &Expect::ready("first rollout", 1, &v1, ("False", "NoUpgrade")),
            )
            .await?;
        let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;
        let before = rt.status.clone().ok_or("no status")?;

        // Operator down: a spec change leaves status.observedGeneration (and
        // every condition's) behind, so consumers can tell the status is stale.
        fx.operator.stop().await;
        let generation = fx.set_replicas("x", 2).await?;
        ensure(
            generation == 2,
            format!("generation {generation} after one spec change"),
        )?;
        holds_for("the status to stay as it was", QUIET_AFTER_SETTLING, async || {
            let rt = fx.get("x").await?;
            Ok((rt.status.as_ref() != Some(&before))
                .then(|| "it changed while the operator was down".to_string()))
        })
        .await?;
        snapshot(fx, "x", "operator-stopped", "status_lifecycle").await?;
        let stale = fx.get("x").await?;
        let status = stale.status.as_ref().ok_or("no status")?;
        ensure(
            stale.metadata.generation == Some(2) && status.observed_generation == Some(1),
            "observedGeneration does not lag behind metadata.generation",
        )?;
        ensure(
            status
                .conditions
                .iter()
                .all(|c| c.observed_generation == Some(1)),
            "a condition claims to describe the new generation",
        )?;
        // kubectl wait honours the lag: Ready=True of generation 1 is not
        // Ready for generation 2.
        let waited = fx
            .kubectl(&[
                "wait",
                "--for=condition=Ready",
                "trussiumruntime/x",
                "--timeout=3s",
            ])
            .await?;
        ensure(
            !waited.success
                && waited.stderr.as_str().contains("timed out waiting"),
            format!(
                "kubectl wait accepted a Ready condition of an older generation (or failed otherwise): {}",
                waited.stderr.as_str()
            ),
        )?;

        // Back up: it catches up.
        fx.operator.restart().await?;
        let rt = settle(fx, "x",
                &Expect::ready("caught up", 2, &v1, ("False", "NoUpgrade")),
            )
            .await?;
        events.extend([(N, "RuntimeProgressing"), (N, "RuntimeReady")]);
        fx.expect_events(&rt, &events).await?;
        let waited = fx
            .kubectl(&[
                "wait",
                "--for=condition=Ready",
                "trussiumruntime/x",
                "--timeout=30s",
            ])
            .await?;
        ensure(
            waited.success,
            "kubectl wait failed after catching up",
        )?;
        fx.events_stay(&rt, &events).await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn spec_changes_that_spare_the_deployment_only_move_observed_generation() -> TestResult {
    with_operator("status-spared", &[], async |fx: &mut Harness| {
        let v1 = image(OLD_TAG);
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None)).await?;
        let ready = Expect::ready("first rollout", 1, &v1, ("False", "NoUpgrade"));
        let first = settle(fx, "x", &ready).await?;
        let events = [(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&first, &events).await?;
        let deployments = fx.ns.api::<Deployment>();
        let deployment_generation = deployments.get("x").await?.metadata.generation;
        let conditions_of = |rt: &TrussiumRuntime| {
            rt.status
                .as_ref()
                .map(|s| {
                    s.conditions
                        .iter()
                        .map(|c| (c.type_.clone(), c.status.clone(), c.reason.clone(), c.last_transition_time.clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        };

        for (step, spec) in [
            ("Service port", json!({"service": {"port": 9100}})),
            (
                "NetworkPolicy",
                json!({"networkPolicy": {"enabled": true, "ingress": [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}}
                ]}}),
            ),
        ] {
            let mark = fx.mark();
            let generation = fx.set_spec("x", spec).await?;
            // settle() checks observedGeneration (status and every
            // condition) against the new generation, and the endpoint
            // against the new port.
            let rt = settle(fx, "x", &ready).await?;
            ensure(
                rt.metadata.generation == Some(generation),
                format!("{step}: generation moved on"),
            )?;
            ensure(
                conditions_of(&rt) == conditions_of(&first),
                format!("{step}: a condition changed (status, reason or transition time)"),
            )?;
            ensure(
                deployments.get("x").await?.metadata.generation == deployment_generation,
                format!("{step}: the Deployment changed"),
            )?;
            fx.events_stay(&rt, &events).await?;
            let writes = fx.operator_writes(&mark).await?;
            let status_writes = writes
                .iter()
                .filter(|w| w.contains("trussiumruntimes/status"))
                .count();
            ensure(
                status_writes == 1 && !writes.iter().any(|w| w.contains(" events ")),
                format!("{step}: expected one status write and no Event, got {writes:?}"),
            )?;
        }
        let rt = fx.get("x").await?;
        ensure(
            rt.status.as_ref().and_then(|s| s.endpoint.as_deref())
                == Some(&*format!("http://x.{}.svc.cluster.local:9100", fx.namespace())),
            "the endpoint does not follow the Service port",
        )?;
        Ok(())
    })
    .await
}
