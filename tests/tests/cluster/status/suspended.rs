//! A suspended runtime, end to end: `kubectl trussium suspend`, hand changes
//! that stay (and not one request from the operator while they are made),
//! the status a suspended runtime shows (and what kubectl wait, kstatus and
//! Argo CD make of it), the plugin refusing changes unless forced, and
//! `resume` putting every object back with an Event that counts them. A
//! value other than "true" suspends nothing and says so once.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use trussium_api::{TrussiumRuntime, condition_type};
use trussium_e2e::{
    CONVERGE, Harness, OLD_TAG, TestResult, ensure, ensure_exit, holds_for, openai_runtime,
    plugin_in, wait_for, with_operator,
};

use super::support::snapshot;

const N: &str = "Normal";
const W: &str = "Warning";

fn condition(rt: &TrussiumRuntime, type_: &str) -> Option<String> {
    rt.status
        .as_ref()
        .and_then(|s| s.condition(type_))
        .map(|c| format!("{}/{}", c.status, c.reason))
}

async fn replicas(deployments: &Api<Deployment>) -> Result<Option<i32>, trussium_e2e::Error> {
    Ok(deployments.get("x").await?.spec.and_then(|s| s.replicas))
}

async fn model(config_maps: &Api<ConfigMap>) -> Result<Option<String>, trussium_e2e::Error> {
    Ok(config_maps
        .get("x")
        .await?
        .data
        .and_then(|d| d.get("TRUSSIUM_PROVIDER_MODEL").cloned()))
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn suspend_keeps_hand_changes_and_resume_puts_them_back() -> TestResult {
    with_operator("status-suspend", &[], async |fx: &mut Harness| {
        let ns = fx.namespace().to_string();
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None))
            .await?;
        let rt = fx.wait_ready("x").await?;
        let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;
        let generation = rt.metadata.generation;

        let out = plugin_in(
            &ns,
            &["suspend", "x", "--reason", "INC-4211 hotfix by hand"],
        )
        .await?;
        ensure_exit(&out, 0, "suspend")?;
        ensure(out.stdout.contains("x suspended"), format!("{out}"))?;
        let rt = fx
            .wait_condition(
                "x",
                condition_type::SUSPENDED,
                "True",
                Some("Suspended"),
                CONVERGE,
            )
            .await?;
        ensure(
            condition(&rt, condition_type::PROGRESSING).as_deref() == Some("False/Suspended"),
            format!(
                "Progressing while suspended: {:?}",
                condition(&rt, condition_type::PROGRESSING)
            ),
        )?;
        ensure(
            condition(&rt, condition_type::READY).as_deref() == Some("True/RuntimeReady"),
            "a suspended runtime that serves stays Ready",
        )?;
        ensure(
            rt.metadata.generation == generation
                && rt.status.as_ref().and_then(|s| s.observed_generation) == generation,
            "suspending changes no generation, and the status is of the current one",
        )?;
        events.push((N, "RuntimeSuspended"));
        let seen = fx.expect_events(&rt, &events).await?;
        let note = &seen.last().ok_or("no Event")?.note;
        ensure(
            note.contains("reason: INC-4211 hotfix by hand"),
            format!("note: {note}"),
        )?;
        snapshot(fx, "x", "suspended", "status_suspended").await?;

        // Hand changes stay. A change to the ConfigMap wakes a reconcile
        // (its watch) that decides from the caches and sends nothing at all.
        let mark = fx.mark();
        let out = fx
            .kubectl(&[
                "patch",
                "configmap/x",
                "--type=merge",
                "-p",
                r#"{"data":{"TRUSSIUM_PROVIDER_MODEL":"by-hand"}}"#,
            ])
            .await?;
        ensure(out.success, out.both())?;
        fx.wait_for_reconciles_of("x", 1, mark.log, CONVERGE)
            .await?;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let requests = fx.operator_requests_since(&mark).await?;
        ensure(
            requests.is_empty(),
            format!(
                "a suspended runtime's reconcile sent requests:\n{}",
                trussium_e2e::describe_requests(&requests)
            ),
        )?;
        // A hand scale: the status follows the pods (its one write), and
        // nothing else is sent.
        let mark = fx.mark();
        let out = fx.kubectl(&["scale", "deploy/x", "--replicas=3"]).await?;
        ensure(out.success, out.both())?;
        let deployments: Api<Deployment> = fx.api();
        let config_maps: Api<ConfigMap> = fx.api();
        holds_for(
            "the hand changes to stay while suspended",
            Duration::from_secs(10),
            async || {
                let (r, m) = (replicas(&deployments).await?, model(&config_maps).await?);
                Ok((r != Some(3) || m.as_deref() != Some("by-hand"))
                    .then(|| format!("replicas {r:?}, model {m:?}")))
            },
        )
        .await?;
        // Its status follows the hand-scaled pods (Ready is judged against
        // the Deployment's own count, and may flip with an Event); nothing
        // else is written.
        let writes = fx.operator_writes(&mark).await?;
        ensure(
            writes.iter().all(|w| {
                w.starts_with("patch trussiumruntimes/status ") || w.starts_with("create events ")
            }),
            format!("while suspended the operator wrote {writes:?}"),
        )?;

        // The plugin refuses changes (exit 13, how to resume); --force
        // records one in the spec, which the operator does not apply.
        let out = plugin_in(&ns, &["scale", "x", "--replicas", "2"]).await?;
        ensure_exit(&out, 13, "scale of a suspended runtime")?;
        ensure(
            out.stderr
                .contains("not scaling x: it is suspended (reason: INC-4211 hotfix by hand)")
                && out
                    .stderr
                    .contains(&format!("kubectl trussium resume x -n {ns}")),
            format!("{out}"),
        )?;
        let out = plugin_in(&ns, &["upgrade", "x", "--tag", "v9.9.9"]).await?;
        ensure_exit(&out, 13, "upgrade of a suspended runtime")?;
        ensure(
            fx.get("x").await?.spec.replicas == 1,
            "a refused scale changed the spec",
        )?;
        let out = plugin_in(&ns, &["scale", "x", "--replicas", "2", "--force"]).await?;
        ensure_exit(&out, 0, "scale --force of a suspended runtime")?;
        ensure(
            out.stdout.contains("applied once it is resumed"),
            format!("{out}"),
        )?;
        wait_for(
            "the forced change's generation to be observed",
            CONVERGE,
            async || {
                let rt = fx.get("x").await?;
                let observed = rt.status.as_ref().and_then(|s| s.observed_generation);
                Ok((rt.spec.replicas == 2 && observed == rt.metadata.generation).then_some(()))
            },
        )
        .await?;
        ensure(
            replicas(&deployments).await? == Some(3),
            "the operator applied a change to a suspended runtime",
        )?;

        // The status view says so, with the reason and how to resume.
        let out = plugin_in(&ns, &["status", "x"]).await?;
        ensure_exit(&out, 0, "status of a suspended runtime")?;
        ensure(
            out.stdout.contains("Suspended")
                && out.stdout.contains("INC-4211 hotfix by hand")
                && out
                    .stdout
                    .contains(&format!("kubectl trussium resume x -n {ns}")),
            format!("{out}"),
        )?;
        let out = plugin_in(&ns, &["status"]).await?;
        ensure(
            out.stdout
                .lines()
                .any(|l| l.starts_with("x ") && l.contains(" SUSPENDED ")),
            format!("the list does not show x suspended:\n{out}"),
        )?;

        // The Events so far: the hand scale may have flipped Ready while
        // its pods started (Ready judges the Deployment as it runs), and
        // said so; settled first.
        let settled = fx.wait_ready("x").await?;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let uid = settled.metadata.uid.clone().ok_or("no uid")?;
        let so_far = fx.events_of(&uid).await?;
        let mut events: Vec<(&str, &str)> = trussium_e2e::pairs(&so_far);

        // Resumed: one reconcile puts both objects back (and applies the
        // recorded replica count), and says how many it changed.
        let out = plugin_in(&ns, &["resume", "x"]).await?;
        ensure_exit(&out, 0, "resume")?;
        wait_for("both objects back to the spec", CONVERGE, async || {
            let (r, m) = (replicas(&deployments).await?, model(&config_maps).await?);
            Ok((r == Some(2) && m.as_deref() == Some("gpt-5")).then_some(()))
        })
        .await?;
        let rt = fx.wait_ready("x").await?;
        ensure(
            condition(&rt, condition_type::SUSPENDED).is_none(),
            "the Suspended condition stayed after resume",
        )?;
        // A replica count and a ConfigMap entry are no new pod template:
        // no rollout. The ConfigMap's entry was someone else's change, put
        // back (and said so, naming kubectl); the replica count is the
        // spec's new one, applied.
        events.extend([(W, "ChangeReverted"), (N, "RuntimeResumed")]);
        let seen = fx.expect_events(&rt, &events).await?;
        let reverted = &seen[seen.len() - 2].note;
        ensure(
            reverted.starts_with(
                "ConfigMap x: /data/TRUSSIUM_PROVIDER_MODEL was changed by kubectl-patch; the operator put back gpt-5.",
            ),
            format!("ChangeReverted note: {reverted}"),
        )?;
        let note = &seen.last().ok_or("no Event")?.note;
        ensure(
            note.ends_with("it changed 2 objects back to the spec."),
            format!("RuntimeResumed note: {note}"),
        )?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_suspend_value_other_than_true_is_ignored_with_one_warning() -> TestResult {
    with_operator("status-suspend-value", &[], async |fx: &mut Harness| {
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None))
            .await?;
        let rt = fx.wait_ready("x").await?;
        let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;

        let out = fx
            .kubectl(&[
                "annotate",
                "trussiumruntime/x",
                "runtime.trussium.io/suspended=yes",
            ])
            .await?;
        ensure(out.success, out.both())?;
        let rt = fx
            .wait_condition(
                "x",
                condition_type::SUSPENDED,
                "False",
                Some("SuspendValueIgnored"),
                CONVERGE,
            )
            .await?;
        events.push((W, "SuspendValueIgnored"));
        let seen = fx.expect_events(&rt, &events).await?;
        let note = &seen.last().ok_or("no Event")?.note;
        ensure(
            note.contains(r#"is "yes"; only "true" suspends"#),
            format!("note: {note}"),
        )?;
        // Not suspended: a hand change is put back as ever, out loud: a
        // Warning names who changed what, what was put back, and what to do
        // instead; the log line names the manager too.
        let log = fx.operator.log_mark();
        let deployments: Api<Deployment> = fx.api();
        for round in 0..2 {
            let out = fx.kubectl(&["scale", "deploy/x", "--replicas=3"]).await?;
            ensure(out.success, out.both())?;
            wait_for("the hand change to be reverted", CONVERGE, async || {
                Ok((replicas(&deployments).await? == Some(1)).then_some(()))
            })
            .await?;
            if round == 0 {
                events.push((W, "ChangeReverted"));
                let seen = fx.expect_events(&rt, &events).await?;
                let note = &seen.last().ok_or("no Event")?.note;
                let ns = fx.namespace();
                ensure(
                    note == &format!(
                        "Deployment x: /spec/replicas was changed by kubectl (scale subresource); the operator put back 1. \
                         To make such a change stick, scale the runtime instead (kubectl trussium scale x -n {ns} --replicas N)."
                    ),
                    format!("ChangeReverted note: {note}"),
                )?;
            }
        }
        // The second revert of the same field within ten minutes: no second
        // Event.
        fx.events_stay(&rt, &events).await?;
        let logged = fx.operator.log_since(log);
        ensure(
            logged.contains("changed_by") && logged.contains("\"kubectl (scale subresource)\""),
            "the operator's log does not name kubectl's scale",
        )?;
        Ok(())
    })
    .await
}
