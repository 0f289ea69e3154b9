//! Rollouts an operator upgrade alone causes take turns: this operator
//! converges five runtimes, then "the next release" (this operator built
//! with one more pod template default, scripts/next-operator.sh) replaces
//! it with `--max-concurrent-rollouts=1`. The three runtimes nobody changed
//! roll one at a time, in the order of their names, each after the one
//! before is available, and report `Progressing=True/WaitingForTurn` (and
//! `kubectl trussium status` says so) while they wait; one whose owner
//! changes its image right after the upgrade rolls at once, and one its
//! owner scales is scaled at once while its new template waits its turn.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;
use kube::api::ListParams;
use serde_json::json;
use tokio::time::Instant;
use trussium_e2e::{
    BoxError, Harness, NEW_TAG, Operator, TestResult, ensure, ensure_exit, image, minimal,
    plugin_in, repo_root, with_operator,
};

/// The annotation only the next release puts in the pod template.
const NEXT_DEFAULT: &str = "runtime.trussium.io/next-template-default";

/// Waiting and rolling, in the order of names.
const PACED: [&str; 4] = ["a-first", "b-second", "c-third", SCALED];
/// Its image changed by its owner right after the upgrade: rolls at once.
const OWNED: &str = "d-changed";
/// Scaled by its owner right after the upgrade: the scale goes through at
/// once, the new pod template waits for its turn.
const SCALED: &str = "e-scaled";

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

/// Whether a pod template carries the next release's default.
fn is_next(template: &PodTemplateSpec) -> bool {
    template
        .metadata
        .as_ref()
        .and_then(|m| m.annotations.as_ref())
        .is_some_and(|a| a.contains_key(NEXT_DEFAULT))
}

fn stage(d: &Deployment) -> Stage {
    let spec = d.spec.as_ref();
    if !spec.is_some_and(|s| is_next(&s.template)) {
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

/// When each runtime's ReplicaSet of the next release's template was made
/// (the API server's clock, whole seconds).
async fn next_replica_sets(h: &Harness) -> Result<BTreeMap<String, Timestamp>, BoxError> {
    let mut created = BTreeMap::new();
    for rs in h
        .api::<ReplicaSet>()
        .list(&ListParams::default())
        .await?
        .items
    {
        let next = rs
            .spec
            .as_ref()
            .and_then(|s| s.template.as_ref())
            .is_some_and(is_next);
        let owner = rs
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.kind == "Deployment")
            .map(|o| o.name.clone());
        if let (true, Some(owner), Some(at)) = (next, owner, rs.metadata.creation_timestamp) {
            created.insert(owner, at.0);
        }
    }
    Ok(created)
}

/// When the Deployment's controller last said its rollout completed.
fn rollout_completed(d: &Deployment) -> Option<Timestamp> {
    d.status
        .as_ref()?
        .conditions
        .iter()
        .flatten()
        .find(|c| {
            c.type_ == "Progressing" && c.reason.as_deref() == Some("NewReplicaSetAvailable")
        })?
        .last_update_time
        .as_ref()
        .map(|t| t.0)
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
        // Their owners change these now: the image must not wait, nor the
        // scale (its new template does).
        h.set_image(OWNED, &image(NEW_TAG)).await?;
        h.set_replicas(SCALED, 2).await?;

        let deployments = h.api::<Deployment>();
        let every = ListParams::default();
        let mut timeline: BTreeMap<String, Vec<(Duration, Stage)>> = BTreeMap::new();
        let mut waiting_reported = false;
        let mut scaled_while_waiting = false;
        let mut plugin_said = String::new();
        let deadline = started + Duration::from_secs(150);
        loop {
            // One list: every Deployment as of one moment.
            let listed = deployments.list(&every).await?;
            let now = started.elapsed();
            let mut stages = BTreeMap::new();
            for d in &listed.items {
                let name = d.name_any();
                let s = stage(d);
                let replicas = d.spec.as_ref().and_then(|s| s.replicas);
                if name == SCALED && s == Stage::Old && replicas == Some(2) {
                    scaled_while_waiting = true;
                }
                stages.insert(name.clone(), s);
                let seen = timeline.entry(name).or_default();
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

        // The API server's own clock agrees: each next-release ReplicaSet
        // was made after the runtime before had completed its rollout,
        // and the owner's change before any paced one.
        let created = next_replica_sets(h).await?;
        for pair in PACED.windows(2) {
            let completed = rollout_completed(&deployments.get(pair[0]).await?)
                .ok_or_else(|| format!("{} reports no completed rollout", pair[0]))?;
            let next = created
                .get(pair[1])
                .ok_or_else(|| format!("{} has no next-release ReplicaSet", pair[1]))?;
            ensure(
                completed <= *next,
                format!(
                    "{}'s ReplicaSet was made at {next}, before {} completed at {completed}",
                    pair[1], pair[0]
                ),
            )?;
        }
        let owned_at = created.get(OWNED).ok_or("no next-release ReplicaSet of d-changed")?;
        let paced_at = created.get(PACED[0]).ok_or("no next-release ReplicaSet of a-first")?;
        ensure(
            owned_at < paced_at,
            format!("{OWNED}'s ReplicaSet ({owned_at}) is not older than {}'s ({paced_at})", PACED[0]),
        )?;

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
        ensure(waiting_reported, "c-third never reported Progressing=True/WaitingForTurn")?;
        ensure(
            scaled_while_waiting,
            format!("{SCALED} was not scaled to 2 while its template waited: {timeline:?}"),
        )?;
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
