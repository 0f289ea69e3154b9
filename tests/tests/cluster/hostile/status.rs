//! Status written by someone else: any value the API server accepts is
//! survived, a forged status is repaired within seconds without an Event,
//! later transitions are still announced (also when someone holds their
//! names), and `lastSuccessfulImage` only names an image that was Ready.

use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use kube::api::{ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use serde_json::{Value, json};
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus};
use trussium_e2e::{
    BoxError, CONVERGE, Harness, NEVER_READY_IMAGE, TestResult, ensure, minimal, pairs, wait_for,
    with_operator,
};

use trussium_operator::pure::events::Reason;
use trussium_operator::pure::events::announcement::event_name;

use crate::operator::support::PROGRESS_DEADLINE_ARG;

/// Well under the operator's 5-minute resync.
const REPAIRED: Duration = Duration::from_secs(15);

/// The runtimes, read and written raw: what the tests write may not parse
/// as the type.
fn raw(h: &Harness) -> Api<DynamicObject> {
    Api::namespaced_with(
        h.ns.client.clone(),
        h.namespace(),
        &ApiResource::erase::<TrussiumRuntime>(&()),
    )
}

/// The stored status as JSON.
async fn raw_status(h: &Harness, name: &str) -> Result<Value, BoxError> {
    let object = raw(h).get(name).await?;
    Ok(object.data.get("status").cloned().unwrap_or(Value::Null))
}

/// Writes `status` over the stored one through the status subresource, as
/// an admin would (`kubectl patch --subresource=status --type=merge`).
async fn forge(h: &Harness, name: &str, status: Value) -> TestResult {
    raw(h)
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(&json!({ "status": status })),
        )
        .await?;
    Ok(())
}

/// The stored conditions with `change` made to the one of type `type_`.
fn conditions_with(status: &Value, type_: &str, change: Value) -> Value {
    let mut conditions = status["conditions"].as_array().cloned().unwrap_or_default();
    for c in &mut conditions {
        if c["type"] == type_
            && let (Value::Object(c), Value::Object(change)) = (c, &change)
        {
            c.extend(change.clone());
        }
    }
    Value::Array(conditions)
}

/// `text` without its ANSI colour sequences.
fn without_colours(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
}

fn times(status: &Value) -> Vec<String> {
    status["conditions"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    c["lastTransitionTime"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_time_past_the_year_9999_is_survived_and_rewritten() -> TestResult {
    with_operator("hostile-time", &[PROGRESS_DEADLINE_ARG], async |h| {
        let rt = h.create_runtime(minimal("x", json!({}))?).await?;
        let name = rt.name_any();
        h.wait_ready(&name).await?;
        let before = raw_status(h, &name).await?;
        let log = h.operator.log_mark();

        // The tenant's reproduction: a valid date-time to the API server,
        // then a spec change right behind it.
        let far = json!({"lastTransitionTime": "9999-12-31T23:59:59Z"});
        forge(
            h,
            &name,
            json!({"conditions": conditions_with(&before, "Ready", far)}),
        )
        .await?;
        ensure(
            times(&raw_status(h, &name).await?)
                .iter()
                .any(|t| t.starts_with("9999")),
            "the API server kept the time",
        )?;
        let scaled = raw(h)
            .patch(
                &name,
                &PatchParams::default(),
                &Patch::Merge(&json!({"spec": {"replicas": 2}})),
            )
            .await?;
        let generation = scaled.metadata.generation.ok_or("no generation")?;

        // The operator acts on it: the time is rewritten at once, and the
        // Deployment scales and the status follows the new generation.
        wait_for("the time to be rewritten", REPAIRED, async || {
            let raw = raw_status(h, &name).await?;
            Ok((!times(&raw).iter().any(|t| t.starts_with("9999"))).then_some(()))
        })
        .await?;
        let status = wait_for("the runtime to be reconciled", CONVERGE, async || {
            let rt = h.get(&name).await?;
            let status = rt.status.clone().unwrap_or_default();
            let done =
                status.observed_generation == Some(generation) && status.ready_replicas == Some(2);
            Ok(done.then_some(status))
        })
        .await?;
        ensure(status.conditions.len() == 7, "seven conditions")?;

        // It said which runtime it could not read, once for that cause.
        let said = without_colours(&h.operator.log_since(log));
        let lines: Vec<_> = said
            .lines()
            .filter(|l| l.contains("cannot read") && l.contains(h.namespace()))
            .collect();
        let names_it = |l: &&str| l.contains("name=x") || l.contains("\"name\":\"x\"");
        ensure(
            lines.len() == 1 && lines.iter().all(names_it),
            format!("expected one line naming the runtime, got {lines:#?}\n{said}"),
        )?;
        ensure(!said.contains("watch stream failed"), "the watch failed")?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_forged_status_is_repaired_at_once_and_announces_nothing() -> TestResult {
    with_operator("hostile-forged", &[PROGRESS_DEADLINE_ARG], async |h| {
        let rt = h.create_runtime(minimal("x", json!({}))?).await?;
        let name = rt.name_any();
        let uid = rt.uid().ok_or("no uid")?;
        let ready = h.wait_ready(&name).await?;
        let image = ready
            .status
            .as_ref()
            .and_then(|s| s.last_successful_image.clone())
            .ok_or("no lastSuccessfulImage")?;
        h.wait_until_quiet(Duration::from_secs(2)).await?;
        let announced = h.events_of(&uid).await?;
        let before = pairs(&announced)
            .into_iter()
            .map(|(t, r)| (t.to_string(), r.to_string()))
            .collect::<Vec<_>>();
        let stored = raw_status(h, &name).await?;

        // The tenant's forgery, through the status subresource.
        let evil = "evil.io/backdoor:latest";
        let mut conditions = conditions_with(
            &stored,
            "Upgrading",
            json!({"status": "True", "reason": "UpgradeInProgress", "message": "forged"}),
        );
        if let Value::Array(cs) = &mut conditions {
            cs.push(
                json!({"type": "Frobnicated", "status": "True", "reason": "Forged",
                "message": "forged", "lastTransitionTime": "2026-01-01T00:00:00Z"}),
            );
        }
        forge(
            h,
            &name,
            json!({"lastSuccessfulImage": evil, "desiredImage": evil,
                "reportSequence": i64::MAX, "conditions": conditions}),
        )
        .await?;

        // Repaired within seconds, every forged field.
        let repaired = wait_for("the status to be repaired", REPAIRED, async || {
            let s: TrussiumRuntimeStatus = h.get(&name).await?.status.unwrap_or_default();
            let clean = s.last_successful_image.as_deref() == Some(image.as_str())
                && s.desired_image.as_deref() == Some(image.as_str())
                && s.condition("Frobnicated").is_none()
                && s.condition("Upgrading")
                    .is_some_and(|c| c.status == "False")
                && s.report_sequence.is_some_and(|n| n < 1 << 53);
            Ok(clean.then_some(s))
        })
        .await?;
        ensure(repaired.conditions.len() == 7, "seven conditions")?;

        // No Event from the forgery, and no loop of writes afterwards: the
        // idle runtime costs nothing.
        h.wait_until_quiet(Duration::from_secs(2)).await?;
        let idle = h.mark();
        tokio::time::sleep(Duration::from_secs(5)).await;
        let requests = h.operator_requests_since(&idle).await?;
        ensure(
            requests.is_empty(),
            format!("an idle runtime cost {} requests", requests.len()),
        )?;
        let after = h.events_of(&uid).await?;
        ensure(
            after.len() == announced.len(),
            format!("the forgery was announced: {:?}", pairs(&after)),
        )?;

        // A real transition after the forged sequence is still announced
        // (with the rollout's progress, unless it was too quick to see).
        h.set_replicas(&name, 0).await?;
        let known: Vec<(&'static str, &'static str)> = before
            .iter()
            .map(|(t, r)| -> (&'static str, &'static str) { (t.clone().leak(), r.clone().leak()) })
            .collect();
        let then = |more: &[(&'static str, &'static str)]| [known.clone(), more.to_vec()].concat();
        h.expect_any_events(
            &uid,
            &[
                then(&[("Normal", "RuntimeScaledToZero")]),
                then(&[
                    ("Normal", "RuntimeProgressing"),
                    ("Normal", "RuntimeScaledToZero"),
                ]),
            ],
        )
        .await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_image_never_ready_is_not_the_last_successful_one() -> TestResult {
    with_operator("hostile-never-ready", &[], async |h| {
        let (repository, tag) = NEVER_READY_IMAGE
            .rsplit_once(':')
            .ok_or("NEVER_READY_IMAGE has no tag")?;
        let rt = h
            .create_runtime(minimal(
                "x",
                json!({"image": {"repository": repository, "tag": tag}}),
            )?)
            .await?;
        let name = rt.name_any();
        // Its pod exists and is not ready.
        wait_for("the pod to be reported not ready", CONVERGE, async || {
            let s = h.get(&name).await?.status.unwrap_or_default();
            Ok((s.current_image.as_deref() == Some(NEVER_READY_IMAGE)
                && s.ready_replicas == Some(0))
            .then_some(()))
        })
        .await?;
        h.set_replicas(&name, 0).await?;
        let rt = h
            .wait_condition(&name, "Ready", "True", Some("ScaledToZero"), CONVERGE)
            .await?;
        let status = rt.status.unwrap_or_default();
        ensure(
            status.last_successful_image.is_none(),
            format!(
                "lastSuccessfulImage names an image no pod ran ready: {:?}",
                status.last_successful_image
            ),
        )?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_event_name_held_by_another_event_does_not_silence_the_event() -> TestResult {
    with_operator("hostile-held-name", &[PROGRESS_DEADLINE_ARG], async |h| {
        let rt = h.create_runtime(minimal("x", json!({}))?).await?;
        let name = rt.name_any();
        let uid = rt.uid().ok_or("no uid")?;
        h.wait_ready(&name).await?;
        h.wait_until_quiet(Duration::from_secs(2)).await?;
        let sequence = h
            .get(&name)
            .await?
            .status
            .and_then(|s| s.report_sequence)
            .ok_or("no reportSequence")?;

        // Someone holds the names the next Events will have (as a forged
        // sequence that went back would make ours repeat), with another note.
        for reason in [Reason::RuntimeProgressing, Reason::RuntimeScaledToZero] {
            let held = event_name(&name, &uid, sequence, reason);
            let holder: Event = serde_json::from_value(json!({
                "metadata": {"name": held, "namespace": h.namespace()},
                "eventTime": "2026-01-01T00:00:00.000000Z",
                "type": "Normal", "reason": reason.as_str(), "action": "Forged",
                "note": "held by someone else",
                "regarding": {"kind": "TrussiumRuntime", "name": name, "uid": uid,
                    "apiVersion": "runtime.trussium.io/v1beta1", "namespace": h.namespace()},
                "reportingController": "someone-else", "reportingInstance": "e2e",
            }))?;
            h.events().create(&PostParams::default(), &holder).await?;
        }

        // The real transition is published all the same.
        h.set_replicas(&name, 0).await?;
        wait_for(
            "the operator's RuntimeScaledToZero Event",
            CONVERGE,
            async || {
                let ours = h.events_of(&uid).await?.into_iter().any(|e| {
                    e.reason == "RuntimeScaledToZero"
                        && e.reporting_controller == trussium_e2e::REPORTING_CONTROLLER
                        && e.note != "held by someone else"
                });
                Ok(ours.then_some(()))
            },
        )
        .await?;
        Ok(())
    })
    .await
}
