//! Rollouts an operator upgrade alone causes take turns: this operator
//! converges four runtimes, then "the next release" (this operator built
//! with one more pod template default, scripts/next-operator.sh) replaces
//! it with `--max-concurrent-rollouts=1`. The three runtimes nobody changed
//! roll one at a time, in the order of their names, each after the one
//! before is available, and report `Progressing=True/WaitingForTurn` (and
//! `kubectl trussium status` says so) while they wait; the fourth, whose
//! owner changes its spec right after the upgrade, rolls at once.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use serde_json::json;
use tokio::time::Instant;
use trussium_e2e::{
    BoxError, Harness, Operator, TestResult, ensure, ensure_exit, minimal, plugin_in, repo_root,
    with_operator,
};

/// The annotation only the next release puts in the pod template.
const NEXT_DEFAULT: &str = "runtime.trussium.io/next-template-default";

/// Waiting and rolling, in the order of names.
const PACED: [&str; 3] = ["a-first", "b-second", "c-third"];
/// Changed by its owner right after the upgrade.
const OWNED: &str = "d-changed";

fn next_operator() -> Result<PathBuf, BoxError> {
    let path = std::env::var_os("TRUSSIUM_NEXT_OPERATOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| repo_root().join("target"));
            target.join("debug").join("trussium-operator-next")
        });
    ensure(
        path.exists(),
        format!(
            "{} is missing: run scripts/next-operator.sh first (make test does)",
            path.display()
        ),
    )?;
    Ok(path)
}

/// Where a Deployment is with the next release's template.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    Old,
    Rolling,
    Available,
}

fn stage(d: &Deployment) -> Stage {
    let spec = d.spec.as_ref();
    let new = spec
        .and_then(|s| s.template.metadata.as_ref()?.annotations.as_ref())
        .is_some_and(|a| a.contains_key(NEXT_DEFAULT));
    if !new {
        return Stage::Old;
    }
    let status = d.status.clone().unwrap_or_default();
    let wanted = spec.and_then(|s| s.replicas).unwrap_or(1);
    let done = status.observed_generation >= d.metadata.generation
        && status.updated_replicas.unwrap_or(0) >= wanted
        && status.available_replicas.unwrap_or(0) >= wanted
        && status.replicas.unwrap_or(0) <= status.updated_replicas.unwrap_or(0);
    if done {
        Stage::Available
    } else {
        Stage::Rolling
    }
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_upgrade_that_changes_the_pod_template_rolls_one_runtime_at_a_time() -> TestResult {
    let next = next_operator()?;
    with_operator("turns", &[], async |h: &mut Harness| {
        for name in PACED.iter().chain([&OWNED]) {
            h.create_runtime(minimal(name, json!({}))?).await?;
        }
        for name in PACED.iter().chain([&OWNED]) {
            h.wait_ready(name).await?;
        }
        h.operator.stop().await;

        // The upgrade: the next release, one operator-caused rollout at a time.
        let started = Instant::now();
        let command: Vec<OsString> = vec![next.into()];
        h.operator = Operator::start_program(
            &h.ns.client,
            &command,
            h.namespace(),
            &["--max-concurrent-rollouts=1"],
        )
        .await?;
        // Its owner changes this one now: it must not wait.
        h.set_replicas(OWNED, 2).await?;

        let deployments = h.api::<Deployment>();
        let mut timeline: BTreeMap<String, Vec<(Duration, Stage)>> = BTreeMap::new();
        let mut waiting_reported = false;
        let mut plugin_said = String::new();
        let deadline = started + Duration::from_secs(150);
        loop {
            let now = started.elapsed();
            let mut stages = BTreeMap::new();
            for name in PACED.iter().chain([&OWNED]) {
                let d = deployments.get(name).await?;
                let s = stage(&d);
                stages.insert(name.to_string(), s);
                let seen = timeline.entry(name.to_string()).or_default();
                if seen.last().map(|(_, last)| *last) != Some(s) {
                    seen.push((now, s));
                }
            }
            let rolling = PACED
                .iter()
                .filter(|n| stages.get(**n) == Some(&Stage::Rolling))
                .count();
            ensure(
                rolling <= 1,
                format!("{rolling} operator-caused rollouts at once: {timeline:?}"),
            )?;
            // The last in line waits: its status and the plugin say so.
            if !waiting_reported && stages.get(PACED[2]) == Some(&Stage::Old) {
                let rt = h.get(PACED[2]).await?;
                let progressing = rt
                    .status
                    .as_ref()
                    .and_then(|s| s.condition("Progressing").cloned());
                if let Some(c) = progressing
                    && c.status == "True"
                    && c.reason == "WaitingForTurn"
                {
                    ensure(
                        c.message.contains("--max-concurrent-rollouts"),
                        format!("Progressing says: {}", c.message),
                    )?;
                    for args in [&["status"][..], &["status", PACED[2]]] {
                        let out = plugin_in(h.namespace(), args).await?;
                        ensure_exit(&out, 0, "kubectl trussium status")?;
                        plugin_said.push_str(&out.stdout);
                    }
                    waiting_reported = true;
                }
            }
            if stages.values().all(|s| *s == Stage::Available) {
                break;
            }
            ensure(
                Instant::now() < deadline,
                format!("not every runtime rolled in time: {timeline:?}"),
            )?;
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        eprintln!("turns: timeline (seconds after the next release started):");
        for (name, seen) in &timeline {
            let steps: Vec<String> = seen
                .iter()
                .map(|(at, s)| format!("{:.1}s {s:?}", at.as_secs_f64()))
                .collect();
            eprintln!("  {name}: {}", steps.join(" -> "));
        }
        eprintln!("turns: kubectl trussium status while c-third waited:\n{plugin_said}");

        let first = |name: &str, want: Stage| {
            timeline
                .get(name)
                .and_then(|seen| seen.iter().find(|(_, s)| *s == want).map(|(at, _)| *at))
                .ok_or_else(|| format!("{name} never reached {want:?}: {timeline:?}"))
        };
        // In the order of names, each after the one before was available.
        for pair in PACED.windows(2) {
            let before_done = first(pair[0], Stage::Available)?;
            let after_started = first(pair[1], Stage::Rolling)
                .or_else(|_| first(pair[1], Stage::Available))?;
            ensure(
                before_done <= after_started,
                format!(
                    "{} started rolling at {after_started:?}, before {} was available at {before_done:?}",
                    pair[1], pair[0]
                ),
            )?;
        }
        // The owner's change did not wait for a turn: it rolled before the
        // first paced runtime could start (the queue settles for 5 s).
        let owned = first(OWNED, Stage::Rolling).or_else(|_| first(OWNED, Stage::Available))?;
        let paced = first(PACED[0], Stage::Rolling).or_else(|_| first(PACED[0], Stage::Available))?;
        ensure(
            owned < paced,
            format!("{OWNED} (its owner's change) rolled at {owned:?}, after {} at {paced:?}", PACED[0]),
        )?;
        ensure(waiting_reported, "c-third never reported Progressing=True/WaitingForTurn")?;
        for shown in ["c-third     1 QUEUED", "Ready, rollout waits its turn", "WaitingForTurn"] {
            ensure(
                plugin_said.contains(shown),
                format!("kubectl trussium status did not show {shown:?}:\n{plugin_said}"),
            )?;
        }
        // Every runtime ends Ready, its rollout complete.
        for name in PACED {
            h.wait_condition(name, "Progressing", "False", Some("ReconciliationComplete"), Duration::from_secs(60))
                .await?;
            h.wait_ready(name).await?;
        }
        Ok::<(), BoxError>(())
    })
    .await
}
