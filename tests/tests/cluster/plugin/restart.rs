//! `kubectl trussium restart`: the restart goes through the runtime (an
//! annotation the operator copies into the pod template), `--wait` follows
//! the new ReplicaSet to Ready, the Event and the status record it, a
//! runtime at zero replicas has nothing to restart, and `kubectl rollout
//! restart` keeps working beside it.

use std::collections::BTreeSet;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use kube::Api;
use kube::api::ListParams;
use trussium_api::restart::RESTARTED_AT;
use trussium_e2e::{
    CONVERGE, Harness, OLD_TAG, TestResult, ensure, ensure_exit, openai_runtime, plugin_in,
    wait_for, with_operator,
};

const N: &str = "Normal";

/// The names of runtime x's ReplicaSets.
async fn replica_sets(fx: &Harness) -> Result<BTreeSet<String>, trussium_e2e::Error> {
    let api: Api<ReplicaSet> = fx.api();
    let listed = api
        .list(&ListParams::default().labels("app.kubernetes.io/instance=x"))
        .await?;
    Ok(listed
        .items
        .into_iter()
        .filter_map(|rs| rs.metadata.name)
        .collect())
}

async fn template_annotation(
    fx: &Harness,
    key: &str,
) -> Result<Option<String>, trussium_e2e::Error> {
    let api: Api<Deployment> = fx.api();
    Ok(api
        .get("x")
        .await?
        .spec
        .and_then(|s| s.template.metadata)
        .and_then(|m| m.annotations)
        .and_then(|a| a.get(key).cloned()))
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn restart_wait_rolls_a_new_replica_set_and_kubectl_rollout_restart_still_works() -> TestResult
{
    with_operator("plugin-restart", &[], async |fx: &mut Harness| {
        let ns = fx.namespace().to_string();
        fx.create_runtime(openai_runtime("x", OLD_TAG, 1, None))
            .await?;
        let rt = fx.wait_ready("x").await?;
        let mut events = vec![(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        fx.expect_events(&rt, &events).await?;
        let before = replica_sets(fx).await?;

        let out = plugin_in(&ns, &["restart", "x", "--wait", "--timeout", "2m"]).await?;
        ensure_exit(&out, 0, "restart --wait")?;
        ensure(
            out.stdout.contains("x: restart requested at ")
                && out.stdout.contains("x restarted (1/1 ready) in "),
            format!("{out}"),
        )?;
        let rt = fx.get("x").await?;
        let asked = rt
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(RESTARTED_AT))
            .cloned()
            .ok_or("restart set no annotation on the runtime")?;
        ensure(
            rt.status.as_ref().and_then(|s| s.restarted_at.as_deref()) == Some(asked.as_str()),
            "status.restartedAt is not the restart asked for",
        )?;
        ensure(
            template_annotation(fx, RESTARTED_AT).await?.as_deref() == Some(asked.as_str()),
            "the pod template does not carry the restart",
        )?;
        let after = replica_sets(fx).await?;
        ensure(
            after.difference(&before).count() == 1,
            format!("expected one new ReplicaSet: before {before:?}, after {after:?}"),
        )?;
        ensure(
            rt.metadata.generation == Some(1),
            "a restart changed the spec",
        )?;
        events.extend([
            (N, "RuntimeRestartRequested"),
            (N, "RuntimeProgressing"),
            (N, "RuntimeReady"),
        ]);
        let seen = fx.expect_events(&rt, &events).await?;
        let requested = seen
            .iter()
            .find(|e| e.reason == "RuntimeRestartRequested")
            .ok_or("no RuntimeRestartRequested")?;
        ensure(
            requested
                .note
                .contains(&format!("Restart requested at {asked}"))
                && requested.action == "Restart",
            format!("{requested:?}"),
        )?;

        // kubectl's own restart: a rollout the operator leaves alone (its
        // annotation is not ours), and ours stays.
        let rolled = replica_sets(fx).await?;
        let out = fx.kubectl(&["rollout", "restart", "deploy/x"]).await?;
        ensure(out.success, out.both())?;
        wait_for("kubectl's restart to roll out", CONVERGE, async || {
            let kubectl = template_annotation(fx, "kubectl.kubernetes.io/restartedAt").await?;
            let sets = replica_sets(fx).await?;
            Ok((kubectl.is_some() && sets.difference(&rolled).count() == 1).then_some(()))
        })
        .await?;
        let rt = fx.wait_ready("x").await?;
        ensure(
            template_annotation(fx, RESTARTED_AT).await?.as_deref() == Some(asked.as_str())
                && template_annotation(fx, "kubectl.kubernetes.io/restartedAt")
                    .await?
                    .is_some(),
            "one restart undid the other",
        )?;
        events.extend([(N, "RuntimeProgressing"), (N, "RuntimeReady")]);
        fx.expect_events(&rt, &events).await?;

        // Zero replicas: nothing to restart, nothing changed.
        fx.set_replicas("x", 0).await?;
        fx.wait_ready("x").await?;
        let out = plugin_in(&ns, &["restart", "x", "--wait"]).await?;
        ensure_exit(&out, 0, "restart at zero replicas")?;
        ensure(out.stdout.contains("nothing to restart"), format!("{out}"))?;
        let rt = fx.get("x").await?;
        ensure(
            rt.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(RESTARTED_AT))
                == Some(&asked),
            "a restart at zero replicas changed the annotation",
        )?;
        Ok(())
    })
    .await
}
