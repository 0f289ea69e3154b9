//! `kubectl trussium logs` through the real API server's pods/log, served
//! for the KWOK nodes by KWOK's kubelet API (every container's log is
//! `.cluster/runtime.log`, its previous run `.cluster/runtime-previous.log`,
//! see tests/cluster/up.sh): every pod's lines with their prefix, --tail,
//! --previous, --pod, --timestamps, and -f following pods as they come and go.

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::ResourceExt;
use kube::api::{DeleteParams, ListParams};
use serde_json::json;
use trussium_e2e::MARKED_REPOSITORY;
use trussium_e2e::{
    BoxError, Harness, PluginOutput, TestResult, ensure, ensure_contains, ensure_exit,
    kubectl_trussium, minimal, plugin_dir, plugin_in, with_operator,
};

use super::support::Running;

const QUICK: Duration = Duration::from_secs(30);

/// The lines every container logs (tests/cluster/up.sh).
const LINES: [&str; 3] = [
    "trussium gateway starting",
    "provider ollama reachable",
    "listening on :9000",
];

async fn trussium(h: &Harness, args: &[&str]) -> Result<PluginOutput, BoxError> {
    Ok(plugin_in(h.namespace(), args).await?)
}

/// The runtime's pods, by name.
async fn pod_names(h: &Harness, name: &str) -> Result<Vec<String>, BoxError> {
    let selector = format!("app.kubernetes.io/instance={name}");
    let mut names: Vec<String> = h
        .api::<Pod>()
        .list(&ListParams::default().labels(&selector))
        .await?
        .items
        .iter()
        .map(ResourceExt::name_any)
        .collect();
    names.sort();
    Ok(names)
}

fn prefix(pod: &str) -> String {
    format!("[pod/{pod}/runtime] ")
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn logs_shows_and_follows_every_pod() -> TestResult {
    plugin_dir()?;
    with_operator("logs", &[], async |h| {
        let image =
            json!({"image": {"repository": MARKED_REPOSITORY, "tag": "v1.0.0"}, "replicas": 2});
        h.create_runtime(minimal("chatty", image.clone())?).await?;
        let mut empty = image.clone();
        empty["replicas"] = json!(0);
        h.create_runtime(minimal("empty", empty)?).await?;
        h.wait_ready("chatty").await?;
        let pods = pod_names(h, "chatty").await?;
        ensure(pods.len() == 2, format!("two pods: {pods:?}"))?;

        // Every pod, in turn, each line with its pod.
        let out = trussium(h, &["logs", "chatty"]).await?;
        eprintln!("$ kubectl trussium logs chatty\n{}", out.stdout);
        ensure_exit(&out, 0, "logs")?;
        let want: Vec<String> = pods
            .iter()
            .flat_map(|p| LINES.iter().map(move |l| format!("{}{l}", prefix(p))))
            .collect();
        let got: Vec<&str> = out.stdout.lines().collect();
        ensure(
            got == want,
            format!("logs chatty:\n{out}\nwanted {want:#?}"),
        )?;

        // --tail, --pod, --timestamps, --previous.
        let out = trussium(h, &["logs", "chatty", "--tail", "1"]).await?;
        let got: Vec<&str> = out.stdout.lines().collect();
        let want: Vec<String> = pods
            .iter()
            .map(|p| format!("{}listening on :9000", prefix(p)))
            .collect();
        ensure(got == want, format!("--tail 1:\n{out}"))?;
        let out = trussium(h, &["logs", "chatty", "--pod", &pods[1], "--timestamps"]).await?;
        ensure(
            out.stdout.lines().count() == 3
                && out.stdout.lines().all(|l| l.starts_with(&prefix(&pods[1])))
                && out.stdout.contains("2026-12-01T10:00:02"),
            format!("--pod --timestamps:\n{out}"),
        )?;
        let out = trussium(h, &["logs", "chatty", "--previous"]).await?;
        ensure_contains(
            &out.stdout,
            &[&format!(
                "{}error: model not found on the provider",
                prefix(&pods[0])
            )],
            &out,
        )?;

        // Bad input: a pod of someone else, a runtime without pods.
        let out = trussium(h, &["logs", "chatty", "--pod", "other"]).await?;
        ensure_exit(&out, 2, "logs --pod of another runtime")?;
        ensure_contains(
            &out.stderr,
            &["pod \"other\" is not one of runtime chatty's pods"],
            &out,
        )?;
        let out = trussium(h, &["logs", "empty"]).await?;
        ensure_exit(&out, 1, "logs of a runtime without pods")?;
        ensure_contains(
            &out.stderr,
            &[
                "TrussiumRuntime \"empty\" has no pods",
                "kubectl trussium diagnose empty",
            ],
            &out,
        )?;
        let out = trussium(h, &["logs", "nope"]).await?;
        ensure_exit(&out, 1, "logs of a runtime that does not exist")?;

        // -f: both pods, then a third that starts meanwhile, then the
        // replacement of one that is deleted.
        let mut follow = Running::spawn(kubectl_trussium(&[
            "logs",
            "chatty",
            "-f",
            "--tail",
            "1",
            "-n",
            h.namespace(),
        ])?)?;
        for pod in &pods {
            follow
                .wait_until_seen(&format!("{}listening on :9000", prefix(pod)), QUICK)
                .await?;
        }
        // --tail 1 held for the pods there at the start.
        ensure(
            !follow.seen.contains("trussium gateway starting"),
            format!("--tail 1 not applied:\n{}", follow.seen),
        )?;
        h.set_replicas("chatty", 3).await?;
        h.wait_ready("chatty").await?;
        let third = pod_names(h, "chatty")
            .await?
            .into_iter()
            .find(|p| !pods.contains(p))
            .ok_or("no third pod")?;
        // A pod that joins is followed from its first line.
        follow
            .wait_until_seen(
                &format!("{}trussium gateway starting", prefix(&third)),
                QUICK,
            )
            .await?;
        h.api::<Pod>()
            .delete(&pods[0], &DeleteParams::default())
            .await?;
        let replacement = trussium_e2e::wait_for("a replacement pod", QUICK, async || {
            let now = pod_names(h, "chatty").await?;
            Ok(now.into_iter().find(|p| !pods.contains(p) && *p != third))
        })
        .await?;
        follow
            .wait_until_seen(
                &format!("{}listening on :9000", prefix(&replacement)),
                QUICK,
            )
            .await?;
        eprintln!(
            "$ kubectl trussium logs chatty -f --tail 1\n{}",
            follow.seen
        );
        // Each pod's lines once.
        let mut lines: Vec<&str> = follow.seen.lines().collect();
        let all = lines.len();
        lines.sort();
        lines.dedup();
        ensure(
            lines.len() == all,
            format!("a line repeated:\n{}", follow.seen),
        )?;
        follow.stop();
        Ok(())
    })
    .await
}
