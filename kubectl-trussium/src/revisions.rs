//! A runtime's rollout history, newest first, from what the cluster keeps:
//! the ReplicaSets of its Deployment (one revision each, as `kubectl rollout
//! history` reads them) and the runtime's status. And where `rollback` goes.
//!
//! Kubernetes keeps when each ReplicaSet was created (when its image was
//! first rolled out) but not when an earlier rollout completed; the current
//! revision's completion is the Deployment's (its `Progressing` condition).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::jiff::Timestamp;
use kube::api::ListParams;
use kube::{Api, ResourceExt};
use serde::Serialize;
use trussium_api::image::version_of;
use trussium_api::operator::RUNTIME_CONTAINER;
use trussium_api::status::ConditionStatus;
use trussium_api::{TrussiumRuntime, condition_type, reason};

use crate::client::Target;
use crate::error::{DEPLOYMENTS, REPLICA_SETS, Refusal, Request, Result};

/// The Deployment controller's revision of a ReplicaSet.
const REVISION: &str = "deployment.kubernetes.io/revision";
/// Earlier revisions a ReplicaSet held (a rollback reuses its ReplicaSet).
const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";

/// One rollout of the runtime's Deployment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Revision {
    pub revision: i64,
    pub image: String,
    pub replica_set: String,
    /// When this revision's ReplicaSet was created for it; unknown for a
    /// revision that reused an earlier ReplicaSet (a rollback).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<Timestamp>,
    pub rollout: Rollout,
    /// The image the runtime's status names as the last that rolled out
    /// completely.
    pub last_successful: bool,
}

/// Where a revision's rollout stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum Rollout {
    /// The Deployment runs this revision and every desired replica is ready.
    #[serde(rename_all = "camelCase")]
    Complete { completed: Option<Timestamp> },
    /// The Deployment is rolling this revision out.
    InProgress,
    /// The operator reported UpgradeFailed for it.
    Failed { message: String },
    /// An earlier revision, replaced by a later one.
    Superseded,
}

/// The revisions, newest first.
pub fn revisions(
    rt: &TrussiumRuntime,
    deployment: Option<&Deployment>,
    replica_sets: &[ReplicaSet],
) -> Vec<Revision> {
    let current = deployment.and_then(|d| revision_of(d.annotations()));
    let last_successful = rt
        .status
        .as_ref()
        .and_then(|s| s.last_successful_image.clone());
    let mut revisions: Vec<Revision> = Vec::new();
    for rs in replica_sets {
        let Some(revision) = revision_of(rs.annotations()) else {
            continue;
        };
        let Some(image) = runtime_image(rs) else {
            continue;
        };
        let earlier: Vec<i64> = rs
            .annotations()
            .get(REVISION_HISTORY)
            .map(|h| h.split(',').filter_map(|r| r.trim().parse().ok()).collect())
            .unwrap_or_default();
        let first = earlier.iter().copied().chain([revision]).min();
        for number in earlier.into_iter().chain([revision]) {
            revisions.push(Revision {
                revision: number,
                image: image.clone(),
                replica_set: rs.name_any(),
                started: (Some(number) == first)
                    .then(|| rs.metadata.creation_timestamp.as_ref().map(|t| t.0))
                    .flatten(),
                rollout: Rollout::Superseded,
                last_successful: last_successful.as_deref() == Some(image.as_str()),
            });
        }
    }
    revisions.sort_by_key(|r| std::cmp::Reverse(r.revision));
    revisions.dedup_by_key(|r| r.revision);
    let current = current.or_else(|| revisions.first().map(|r| r.revision));
    if let Some(newest) = revisions.iter_mut().find(|r| Some(r.revision) == current) {
        newest.rollout = rollout_of(rt, deployment, &newest.image);
    }
    revisions
}

/// Where the rollout of `image`, the Deployment's current revision, stands.
fn rollout_of(rt: &TrussiumRuntime, deployment: Option<&Deployment>, image: &str) -> Rollout {
    let Some(status) = &rt.status else {
        return Rollout::InProgress;
    };
    let generation = rt.metadata.generation.unwrap_or_default();
    let current = status.observed_generation.unwrap_or_default() >= generation
        && status.desired_image.as_deref() == Some(image);
    if !current {
        return Rollout::InProgress;
    }
    if let Some(c) = status
        .condition(condition_type::UPGRADING)
        .filter(|c| c.reason == reason::UPGRADE_FAILED)
    {
        return Rollout::Failed {
            message: c.message.clone(),
        };
    }
    let ready = status
        .condition(condition_type::READY)
        .filter(|c| ConditionStatus::parse(&c.status) == ConditionStatus::True);
    match ready {
        Some(ready) if status.last_successful_image.as_deref() == Some(image) => {
            let settled = deployment
                .and_then(|d| d.status.as_ref()?.conditions.as_ref())
                .and_then(|cs| {
                    cs.iter().find(|c| {
                        c.type_ == "Progressing"
                            && c.reason.as_deref() == Some("NewReplicaSetAvailable")
                    })
                })
                .and_then(|c| c.last_update_time.as_ref().map(|t| t.0));
            Rollout::Complete {
                completed: settled.or(Some(ready.last_transition_time.0)),
            }
        }
        _ => Rollout::InProgress,
    }
}

fn revision_of(annotations: &BTreeMap<String, String>) -> Option<i64> {
    annotations.get(REVISION)?.parse().ok()
}

/// The image of the runtime container in a ReplicaSet's pod template.
fn runtime_image(rs: &ReplicaSet) -> Option<String> {
    rs.spec
        .as_ref()?
        .template
        .as_ref()?
        .spec
        .as_ref()?
        .containers
        .iter()
        .find(|c| c.name == RUNTIME_CONTAINER)?
        .image
        .clone()
}

/// What `rollback` was asked to go back to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The image before the current one (after a failed upgrade: the last
    /// successful image).
    Previous,
    /// An image the runtime ran: a full reference, or its tag or digest.
    Image(String),
    /// A revision of `history`.
    Revision(i64),
}

/// The image `rollback` sets, and the revision it comes from (if known), or
/// why it refuses.
pub fn rollback_target(
    rt: &TrussiumRuntime,
    history: &[Revision],
    choice: &Choice,
) -> Result<(String, Option<i64>), Refusal> {
    if rt.metadata.deletion_timestamp.is_some() {
        return Err(Refusal::BeingDeleted);
    }
    let desired = rt.spec.image.reference();
    let last_successful = rt
        .status
        .as_ref()
        .and_then(|s| s.last_successful_image.clone())
        .filter(|i| !i.is_empty());
    let revision_of = |image: &str| {
        history
            .iter()
            .find(|r| r.image == image)
            .map(|r| r.revision)
    };
    let target = match choice {
        Choice::Previous => match last_successful {
            None => return Err(Refusal::NoRolloutCompleted),
            // After a failed (or unfinished) upgrade: back to what worked,
            // if the Deployment ran it (status alone could be forged).
            Some(last) if last != desired => {
                if revision_of(&last).is_none() {
                    return Err(Refusal::Unverified(last));
                }
                last
            }
            // After a completed one: the image before it.
            Some(_) => history
                .iter()
                .find(|r| r.image != desired)
                .map(|r| r.image.clone())
                .ok_or(Refusal::NoEarlierImage)?,
        },
        Choice::Image(wanted) => {
            // Only what the Deployment ran: status may say anything.
            let ran: Vec<&str> = history.iter().map(|r| r.image.as_str()).collect();
            find_image(&ran, wanted).ok_or_else(|| Refusal::NeverRan(wanted.clone()))?
        }
        Choice::Revision(number) => history
            .iter()
            .find(|r| r.revision == *number)
            .map(|r| r.image.clone())
            .ok_or_else(|| Refusal::NoSuchRevision {
                revision: *number,
                known: history.iter().map(|r| r.revision).collect(),
            })?,
    };
    if target == desired {
        return Err(Refusal::AlreadyDesired(target));
    }
    let revision = match choice {
        Choice::Revision(number) => Some(*number),
        _ => revision_of(&target),
    };
    Ok((target, revision))
}

/// `wanted` among the images `ran`: the same reference, or else the one
/// image whose tag (or digest) it is.
fn find_image(ran: &[&str], wanted: &str) -> Option<String> {
    if ran.contains(&wanted) {
        return Some(wanted.to_string());
    }
    let mut by_version: Vec<&str> = ran
        .iter()
        .copied()
        .filter(|image| {
            let version = version_of(image);
            version == wanted || image.ends_with(&format!("@{wanted}"))
        })
        .collect();
    by_version.sort_unstable();
    by_version.dedup();
    match by_version[..] {
        [one] => Some(one.to_string()),
        _ => None,
    }
}

/// Reads the runtime's Deployment and its ReplicaSets (none before the
/// operator has created the Deployment).
pub async fn read(target: &Target, rt: &TrussiumRuntime) -> Result<Vec<Revision>> {
    let name = rt.name_any();
    let deployments: Api<Deployment> = Api::namespaced(target.client.clone(), &target.namespace);
    let get = Request::new("get", DEPLOYMENTS)
        .namespace(Some(&target.namespace))
        .name(&name);
    let deployment = deployments
        .get_opt(&name)
        .await
        .map_err(|e| target.fail(get, e))?;
    let Some(deployment) = deployment.filter(|d| owned_by(d, rt)) else {
        return Ok(revisions(rt, None, &[]));
    };
    let selector = deployment
        .spec
        .as_ref()
        .and_then(|s| s.selector.match_labels.as_ref())
        .map(|labels| {
            labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default();
    let api: Api<ReplicaSet> = Api::namespaced(target.client.clone(), &target.namespace);
    let list = Request::new("list", REPLICA_SETS).namespace(Some(&target.namespace));
    let mut replica_sets = target
        .list_all(&api, ListParams::default().labels(&selector), list)
        .await?;
    replica_sets.retain(|rs| controlled_by(rs, &deployment));
    Ok(revisions(rt, Some(&deployment), &replica_sets))
}

fn owned_by(deployment: &Deployment, rt: &TrussiumRuntime) -> bool {
    let uid = rt.uid();
    deployment
        .owner_references()
        .iter()
        .any(|o| o.controller == Some(true) && Some(&o.uid) == uid.as_ref())
}

fn controlled_by(rs: &ReplicaSet, deployment: &Deployment) -> bool {
    let uid = deployment.uid();
    rs.owner_references()
        .iter()
        .any(|o| o.controller == Some(true) && Some(&o.uid) == uid.as_ref())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const REPO: &str = "ghcr.io/trussiumhq/trussium";

    fn image(tag: &str) -> String {
        format!("{REPO}:{tag}")
    }

    fn rs(name: &str, revision: i64, earlier: &str, tag: &str, created: i64) -> ReplicaSet {
        let mut annotations = json!({ "deployment.kubernetes.io/revision": revision.to_string() });
        if !earlier.is_empty() {
            annotations["deployment.kubernetes.io/revision-history"] = json!(earlier);
        }
        serde_json::from_value(json!({
            "metadata": {"name": name, "annotations": annotations,
                         "creationTimestamp": crate::fixtures::at(created).to_string()},
            "spec": {"selector": {}, "template": {"spec": {"containers": [
                {"name": "sidecar", "image": "busybox"},
                {"name": "runtime", "image": image(tag)}
            ]}}}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A runtime at `desired`, whose status is at its generation.
    fn rt(desired: &str, last: Option<&str>, ready: bool, failed: bool) -> TrussiumRuntime {
        let mut conditions = vec![json!({
            "type": "Ready", "status": if ready { "True" } else { "False" },
            "reason": "RuntimeReady", "message": "",
            "lastTransitionTime": crate::fixtures::at(500).to_string(), "observedGeneration": 3
        })];
        if failed {
            conditions.push(json!({
                "type": "Upgrading", "status": "False", "reason": "UpgradeFailed",
                "message": "deadline exceeded",
                "lastTransitionTime": crate::fixtures::at(400).to_string(), "observedGeneration": 3
            }));
        }
        serde_json::from_value(json!({
            "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
            "metadata": {"name": "rt", "namespace": "ai", "generation": 3},
            "spec": {"image": {"repository": REPO, "tag": desired}, "replicas": 1,
                     "provider": {"type": "ollama", "model": "m"}},
            "status": {"observedGeneration": 3, "desiredImage": image(desired),
                       "lastSuccessfulImage": last.map(image), "conditions": conditions}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn deployment(revision: i64, completed: Option<i64>) -> Deployment {
        let conditions: Vec<_> = completed
            .map(|at| {
                json!({"type": "Progressing", "status": "True",
                              "reason": "NewReplicaSetAvailable",
                              "lastUpdateTime": crate::fixtures::at(at).to_string()})
            })
            .into_iter()
            .collect();
        serde_json::from_value(json!({
            "metadata": {"name": "rt", "annotations": {"deployment.kubernetes.io/revision": revision.to_string()}},
            "status": {"conditions": conditions}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn summary(revisions: &[Revision]) -> Vec<(i64, String, Option<i64>)> {
        revisions
            .iter()
            .map(|r| {
                (
                    r.revision,
                    version_of(&r.image),
                    r.started.map(|t| t.as_second() - 1_700_000_000),
                )
            })
            .collect()
    }

    #[test]
    fn newest_first_with_the_revisions_a_rollback_reused() {
        // v1 (1), v2 (2), then back to v1: its ReplicaSet now holds 3, and 1 before.
        let sets = [rs("rt-a", 3, "1", "v1", 0), rs("rt-b", 2, "", "v2", 100)];
        let history = revisions(
            &rt("v1", Some("v1"), true, false),
            Some(&deployment(3, Some(600))),
            &sets,
        );
        assert_eq!(
            summary(&history),
            [
                (3, "v1".into(), None),
                (2, "v2".into(), Some(100)),
                (1, "v1".into(), Some(0))
            ]
        );
        assert_eq!(
            history[0].rollout,
            Rollout::Complete {
                completed: Some(crate::fixtures::at(600))
            }
        );
        assert_eq!(history[1].rollout, Rollout::Superseded);
        assert!(history[0].last_successful && !history[1].last_successful);
    }

    #[test]
    fn the_current_rollouts_state_comes_from_the_status() {
        let sets = [rs("rt-a", 1, "", "v1", 0), rs("rt-b", 2, "", "v2", 100)];
        let dep = deployment(2, None);
        let failed = revisions(&rt("v2", Some("v1"), false, true), Some(&dep), &sets);
        assert_eq!(
            failed[0].rollout,
            Rollout::Failed {
                message: "deadline exceeded".into()
            }
        );
        assert!(failed[1].last_successful);
        let rolling = revisions(&rt("v2", Some("v1"), false, false), Some(&dep), &sets);
        assert_eq!(rolling[0].rollout, Rollout::InProgress);
        // Without the Deployment's condition, Ready's transition says when.
        let done = revisions(&rt("v2", Some("v2"), true, false), Some(&dep), &sets);
        assert_eq!(
            done[0].rollout,
            Rollout::Complete {
                completed: Some(crate::fixtures::at(500))
            }
        );
        // A status about another image: not an answer yet.
        let lagging = revisions(&rt("v3", Some("v2"), true, false), Some(&dep), &sets);
        assert_eq!(lagging[0].rollout, Rollout::InProgress);
    }

    #[test]
    fn no_deployment_no_history() {
        assert!(revisions(&rt("v1", None, false, false), None, &[]).is_empty());
    }

    fn target(
        rt: &TrussiumRuntime,
        history: &[Revision],
        choice: Choice,
    ) -> Result<String, Refusal> {
        rollback_target(rt, history, &choice).map(|(image, _)| version_of(&image))
    }

    #[test]
    fn rollback_after_a_completed_upgrade_goes_to_the_image_before_it() {
        let sets = [rs("rt-a", 1, "", "v1", 0), rs("rt-b", 2, "", "v2", 100)];
        let runtime = rt("v2", Some("v2"), true, false);
        let history = revisions(&runtime, Some(&deployment(2, Some(200))), &sets);
        assert_eq!(
            rollback_target(&runtime, &history, &Choice::Previous),
            Ok((image("v1"), Some(1)))
        );
    }

    #[test]
    fn rollback_after_a_failed_upgrade_goes_to_the_last_successful_image() {
        let sets = [
            rs("rt-a", 1, "", "v1", 0),
            rs("rt-b", 2, "", "v2", 100),
            rs("rt-c", 3, "", "v3", 200),
        ];
        let runtime = rt("v3", Some("v1"), false, true);
        let history = revisions(&runtime, Some(&deployment(3, None)), &sets);
        assert_eq!(
            target(&runtime, &history, Choice::Previous),
            Ok("v1".into())
        );
    }

    #[test]
    fn rollback_to_a_chosen_image_or_revision() {
        let sets = [
            rs("rt-a", 1, "", "v1", 0),
            rs("rt-b", 2, "", "v2", 100),
            rs("rt-c", 3, "", "v3", 200),
        ];
        let runtime = rt("v3", Some("v3"), true, false);
        let history = revisions(&runtime, Some(&deployment(3, Some(300))), &sets);
        assert_eq!(
            target(&runtime, &history, Choice::Image(image("v1"))),
            Ok("v1".into())
        );
        assert_eq!(
            target(&runtime, &history, Choice::Image("v1".into())),
            Ok("v1".into())
        );
        assert_eq!(
            rollback_target(&runtime, &history, &Choice::Revision(2)),
            Ok((image("v2"), Some(2)))
        );
    }

    #[test]
    fn refusals() {
        let sets = [rs("rt-a", 1, "", "v1", 0), rs("rt-b", 2, "", "v2", 100)];
        let runtime = rt("v2", Some("v2"), true, false);
        let history = revisions(&runtime, Some(&deployment(2, Some(200))), &sets);
        assert_eq!(
            target(&runtime, &history, Choice::Image("v9".into())),
            Err(Refusal::NeverRan("v9".into()))
        );
        assert_eq!(
            target(&runtime, &history, Choice::Image("v2".into())),
            Err(Refusal::AlreadyDesired(image("v2")))
        );
        assert_eq!(
            target(&runtime, &history, Choice::Revision(7)),
            Err(Refusal::NoSuchRevision {
                revision: 7,
                known: vec![2, 1]
            })
        );
        // Only one image ever ran.
        let only = [rs("rt-a", 1, "", "v2", 0)];
        let history = revisions(&runtime, Some(&deployment(1, Some(10))), &only);
        assert_eq!(
            target(&runtime, &history, Choice::Previous),
            Err(Refusal::NoEarlierImage)
        );
        // Nothing ever completed.
        let never = rt("v2", None, false, false);
        assert_eq!(
            target(&never, &[], Choice::Previous),
            Err(Refusal::NoRolloutCompleted)
        );
        let mut deleting = runtime.clone();
        deleting.metadata.deletion_timestamp = Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(crate::fixtures::at(0)),
        );
        assert_eq!(
            target(&deleting, &history, Choice::Previous),
            Err(Refusal::BeingDeleted)
        );
    }

    #[test]
    fn a_forged_last_successful_image_is_refused() {
        let sets = [rs("rt-a", 1, "", "v1", 0), rs("rt-b", 2, "", "v2", 100)];
        let mut runtime = rt("v2", Some("v1"), false, true);
        if let Some(s) = runtime.status.as_mut() {
            s.last_successful_image = Some("evil.io/backdoor:latest".into());
        }
        let history = revisions(&runtime, Some(&deployment(2, None)), &sets);
        assert_eq!(
            rollback_target(&runtime, &history, &Choice::Previous),
            Err(Refusal::Unverified("evil.io/backdoor:latest".into()))
        );
        assert_eq!(
            rollback_target(
                &runtime,
                &history,
                &Choice::Image("evil.io/backdoor:latest".into())
            ),
            Err(Refusal::NeverRan("evil.io/backdoor:latest".into()))
        );
        // Without a Deployment there is nothing to check it against.
        assert_eq!(
            rollback_target(&runtime, &[], &Choice::Previous),
            Err(Refusal::Unverified("evil.io/backdoor:latest".into()))
        );
    }

    #[test]
    fn a_tag_names_an_image_only_when_one_image_has_it() {
        let ran = ["r/a:v1", "r/b:v1", "r/a:v2"];
        assert_eq!(find_image(&ran, "v2"), Some("r/a:v2".into()));
        assert_eq!(find_image(&ran, "v1"), None);
        assert_eq!(find_image(&ran, "r/b:v1"), Some("r/b:v1".into()));
        let digest = format!("sha256:{}", "a".repeat(64));
        let pinned = format!("r/a@{digest}");
        assert_eq!(
            find_image(&[pinned.as_str()], &digest),
            Some(pinned.clone())
        );
    }
}
