//! `kubectl trussium` against the operator it ships with: each test runs the
//! real operator in its namespace and drives runtimes it converged (pods made
//! ready by KWOK), through the real kubectl. Nothing here writes a status.
//!
//! The tests in known_states.rs that still write status as the admin need states
//! the operator does not hold still for: a status older than the spec
//! (generation not yet observed), chosen Event histories and ages, a runtime
//! without any status, and an autoscaled runtime's replica count.

use crate::operator::support::PROGRESS_DEADLINE_ARG;
use kube::api::{DeleteParams, Patch, PatchParams};
use serde_json::json;
use trussium_api::TrussiumRuntime;
use trussium_e2e::MARKED_REPOSITORY;
use trussium_e2e::{BoxError, CONVERGE, Harness, TestResult, minimal, wait_for, with_operator};
use trussium_e2e::{
    PluginOutput, ensure_contains, ensure_exit, kubectl_trussium, plugin_dir, plugin_in,
};

use super::support::Running;

const NEVER_READY: &str = "never-ready";

/// The minimal sample at `MARKED_REPOSITORY`:`tag`, with `replicas`.
fn minimal_at(name: &str, tag: &str, replicas: i32) -> Result<serde_json::Value, BoxError> {
    minimal(
        name,
        json!({"image": {"repository": MARKED_REPOSITORY, "tag": tag}, "replicas": replicas}),
    )
}

/// `kubectl trussium ARGS… -n <the harness namespace>`.
async fn trussium(h: &Harness, args: &[&str]) -> Result<PluginOutput, BoxError> {
    Ok(plugin_in(h.namespace(), args).await?)
}

/// Waits until the operator has reported on the runtime's current generation.
async fn observed(h: &Harness, name: &str) -> Result<TrussiumRuntime, BoxError> {
    let runtimes = h.runtimes();
    Ok(wait_for(
        &format!("the operator to report on {name}"),
        CONVERGE,
        async || {
            let rt = runtimes.get(name).await?;
            let seen = rt.status.as_ref().and_then(|s| s.observed_generation);
            Ok((seen.is_some() && seen == rt.metadata.generation).then_some(rt))
        },
    )
    .await?)
}

/// What a refused command must not have touched.
fn spec_of(rt: &TrussiumRuntime) -> (Option<i64>, String) {
    (rt.metadata.generation, rt.spec.image.reference())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn status_list_watch_scale_upgrade_and_events_on_a_converged_runtime() -> TestResult {
    plugin_dir()?;
    with_operator("plugin-op", &[], async |h: &mut Harness| {
        h.create_runtime(minimal_at("rt", "v1", 2)?).await?;
        h.wait_ready("rt").await?;

        // The list and the detailed view of what the operator reported.
        let out = trussium(h, &["status"]).await?;
        ensure_exit(&out, 0, "status (list)")?;
        let row = out.first_row();
        if row.get(..6) != Some(&["rt", "2", "2", "ollama", "llama3.2", "v1"][..]) {
            return Err(format!("list row {row:?}\n{out}").into());
        }
        let out = trussium(h, &["status", "rt"]).await?;
        ensure_exit(&out, 0, "status rt")?;
        for needle in [
            "Status:       Ready",
            "Replicas:     2/2 ready, 2 available",
            &format!("Last successful:  {}:v1", MARKED_REPOSITORY),
            "RuntimeReady",
        ] {
            ensure_contains(&out.stdout, &[needle], &out)?;
        }
        if out.stdout.contains("Next steps") {
            return Err(format!("nothing to do for a ready runtime\n{out}").into());
        }

        // --watch follows a scale made with the plugin, as the operator
        // rolls it out.
        let mut watch = Running::spawn(kubectl_trussium(&[
            "status",
            "rt",
            "-n",
            h.namespace(),
            "--watch",
        ])?)?;
        watch.wait_for_line("Replicas:     2/2", CONVERGE).await?;
        let out = trussium(h, &["scale", "rt", "--replicas", "3"]).await?;
        ensure_exit(&out, 0, "scale")?;
        watch
            .wait_for_line("Replicas:     3/3 ready", CONVERGE)
            .await?;
        watch.stop();

        // upgrade --wait: success.
        let out = trussium(
            h,
            &["upgrade", "rt", "--tag", "v2", "--wait", "--timeout", "3m"],
        )
        .await?;
        ensure_exit(&out, 0, "upgrade --wait to v2")?;
        // (The ready count it prints may include a surge pod still going away.)
        ensure_contains(&out.stdout, &["rt upgraded to v2 ("], &out)?;

        // Nothing to roll back to: v2 is already the desired image.
        let before = h.runtimes().get("rt").await?;
        let out = trussium(h, &["rollback", "rt", "--to-image", "v2"]).await?;
        ensure_exit(&out, 7, "rollback to the desired image")?;
        ensure_contains(&out.stderr, &["its desired image is already"], &out)?;
        let after = h.runtimes().get("rt").await?;
        if spec_of(&before) != spec_of(&after) {
            return Err(format!("a refused rollback changed the spec\n{out}").into());
        }

        // upgrade --wait: timeout, while the never-ready pods keep the
        // rollout going (the default progress deadline is far away).
        let out = trussium(
            h,
            &[
                "upgrade",
                "rt",
                "--tag",
                NEVER_READY,
                "--wait",
                "--timeout",
                "5s",
            ],
        )
        .await?;
        ensure_exit(&out, 4, "upgrade --wait that times out")?;
        ensure_contains(&out.stderr, &["timed out after 5s"], &out)?;

        // rollback --wait: back to v2, the last successful image.
        let out = trussium(h, &["rollback", "rt", "--wait", "--timeout", "3m"]).await?;
        ensure_exit(&out, 0, "rollback --wait")?;
        ensure_contains(&out.stdout, &["rt rolled back to v2"], &out)?;
        let rt = h.wait_ready("rt").await?;
        if rt.spec.image.tag.as_deref() != Some("v2") {
            return Err(format!("spec.image after the rollback: {:?}", rt.spec.image).into());
        }

        // events: the operator's own Events, oldest first.
        let out = trussium(h, &["events", "rt"]).await?;
        ensure_exit(&out, 0, "events")?;
        let position = |reason: &str| out.stdout.find(reason);
        match (
            position("RuntimeReady"),
            position("RuntimeUpgradeStarted"),
            position("RuntimeUpgradeCompleted"),
        ) {
            (Some(a), Some(b), Some(c)) if a < b && b < c => Ok(()),
            _ => Err(format!("events out of order or missing\n{out}").into()),
        }
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_failed_upgrade_says_rollback_and_rollback_recovers() -> TestResult {
    plugin_dir()?;
    with_operator(
        "plugin-op-fail",
        &[PROGRESS_DEADLINE_ARG],
        async |h: &mut Harness| {
            h.create_runtime(minimal_at("rt", "v1", 1)?).await?;
            h.wait_ready("rt").await?;
            let v1 = format!("{}:v1", MARKED_REPOSITORY);

            // upgrade --wait: failure (the progress deadline passes).
            let out = trussium(
                h,
                &[
                    "upgrade",
                    "rt",
                    "--tag",
                    NEVER_READY,
                    "--wait",
                    "--timeout",
                    "3m",
                ],
            )
            .await?;
            ensure_exit(&out, 3, "upgrade --wait that fails")?;
            ensure_contains(&out.stdout, &["rt: upgrade to never-ready failed"], &out)?;
            ensure_contains(
                &out.stdout,
                &[&format!("last successful image is still {v1}")],
                &out,
            )?;

            // status says what to do next.
            let out = trussium(h, &["status", "rt"]).await?;
            ensure_exit(&out, 0, "status after the failure")?;
            ensure_contains(&out.stdout, &["Status:       "], &out)?;
            ensure_contains(&out.stdout, &["Next steps"], &out)?;
            ensure_contains(
                &out.stdout,
                &[&format!(
                    "kubectl trussium rollback rt -n {} --wait",
                    h.namespace()
                )],
                &out,
            )?;

            let out = trussium(h, &["rollback", "rt", "--wait", "--timeout", "3m"]).await?;
            ensure_exit(&out, 0, "rollback --wait")?;
            ensure_contains(&out.stdout, &["rt rolled back to v1 ("], &out)?;

            h.wait_ready("rt").await?;
            let out = trussium(h, &["status", "rt"]).await?;
            ensure_contains(&out.stdout, &["Status:       Ready"], &out)?;
            if out.stdout.contains("Next steps") {
                return Err(format!("nothing left to do after the rollback\n{out}").into());
            }
            let out = trussium(h, &["rollback", "rt", "--to-image", "v1"]).await?;
            ensure_exit(&out, 7, "a rollback to the image it runs")?;
            Ok(())
        },
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn rollback_refuses_without_changing_anything_and_status_names_the_missing_secret()
-> TestResult {
    plugin_dir()?;
    with_operator("plugin-op-refuse", &[], async |h: &mut Harness| {
        // Never ready from the start: no rollout ever completed.
        h.create_runtime(minimal_at("never", NEVER_READY, 1)?).await?;
        let before = observed(h, "never").await?;
        let out = trussium(h, &["rollback", "never"]).await?;
        ensure_exit(&out, 6, "rollback without a last successful image")?;
        ensure_contains(&out.stderr, &["no rollout has completed yet"], &out)?;
        let after = h.runtimes().get("never").await?;
        if spec_of(&before) != spec_of(&after) {
            return Err(format!("a refused rollback changed the spec\n{out}").into());
        }

        // Being deleted (held by a finalizer of the test's own).
        let mut held = minimal_at("held", "v1", 1)?;
        held["metadata"]["finalizers"] = json!(["trussium.io/plugin-test-hold"]);
        h.create_runtime(held).await?;
        h.wait_ready("held").await?;
        h.runtimes()
            .delete("held", &DeleteParams::default())
            .await?;
        let before = h.runtimes().get("held").await?;
        let out = trussium(h, &["rollback", "held"]).await?;
        ensure_exit(&out, 8, "rollback of a runtime being deleted")?;
        ensure_contains(&out.stderr, &["it is being deleted"], &out)?;
        let after = h.runtimes().get("held").await?;
        let unchanged = spec_of(&before) == spec_of(&after);
        h.runtimes()
            .patch(
                "held",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"finalizers": null}})),
            )
            .await?;
        if !unchanged {
            return Err(format!("a refused rollback changed the spec\n{out}").into());
        }

        // A missing Secret: status gives the command that creates it.
        let mut creds = minimal_at("creds", "v1", 1)?;
        creds["spec"]["provider"] = json!({
            "type": "openai", "model": "gpt-5",
            "credentialsSecretRef": {"name": "openai-creds", "key": "apiKey"}
        });
        h.create_runtime(creds).await?;
        h.wait_condition(
            "creds",
            "ConfigurationValid",
            "False",
            Some("SecretNotFound"),
            CONVERGE,
        )
        .await?;
        let out = trussium(h, &["status", "creds"]).await?;
        ensure_exit(&out, 0, "status of a runtime missing its Secret")?;
        ensure_contains(&out.stdout, &[&format!(
                "kubectl create secret generic openai-creds -n {} --from-file=apiKey=<file holding the credentials>",
                h.namespace()
            )], &out)?;
        Ok(())
    })
    .await
}
