//! What the fault tests share: every runtime of a namespace Ready, the
//! Events of each, and the check that each runtime's first rollout was
//! announced exactly once.

use std::collections::BTreeMap;

use kube::ResourceExt;
use kube::api::ListParams;
use trussium_api::{TrussiumRuntime, condition_type};

use crate::harness::{BoxError, Harness, TestResult, ensure};

const N: &str = "Normal";

/// The Events of every runtime of the namespace, by runtime uid, in order.
pub async fn events_by_runtime(
    h: &Harness,
) -> Result<BTreeMap<String, Vec<(String, String)>>, BoxError> {
    let mut events: Vec<_> = h.events().list(&ListParams::default()).await?.items;
    events.sort_by_key(|e| {
        e.metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or_default()
    });
    let mut by_uid: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for e in events {
        let Some(uid) = e.regarding.as_ref().and_then(|r| r.uid.clone()) else {
            continue;
        };
        by_uid.entry(uid).or_default().push((
            e.type_.clone().unwrap_or_default(),
            e.reason.clone().unwrap_or_default(),
        ));
    }
    Ok(by_uid)
}

/// Every runtime of the namespace is Ready for its generation; returns them.
///
/// A runtime the list shows not Ready is read again by name: once, after an
/// API server restart, its list kept answering from a stale cache for ten
/// minutes while the runtimes were Ready (the operator had written it, and
/// its watch had seen it). The disagreement is printed when it happens.
pub async fn all_ready(
    h: &Harness,
    count: usize,
) -> Result<Option<Vec<TrussiumRuntime>>, BoxError> {
    let mut list = h.runtimes().list(&ListParams::default()).await?.items;
    if list.len() != count {
        return Ok(None);
    }
    let runtimes = h.runtimes();
    for rt in list.iter_mut().filter(|rt| !is_ready(rt)) {
        let fresh = runtimes.get(&rt.name_any()).await?;
        if !is_ready(&fresh) {
            return Ok(None);
        }
        eprintln!(
            "{}: the list shows it not Ready (resourceVersion {:?}), a read by name Ready ({:?})",
            rt.name_any(),
            rt.resource_version(),
            fresh.resource_version()
        );
        *rt = fresh;
    }
    Ok(Some(list))
}

fn is_ready(rt: &TrussiumRuntime) -> bool {
    let status = rt.status.as_ref();
    status.and_then(|s| s.observed_generation) == rt.metadata.generation
        && status
            .and_then(|s| s.condition(condition_type::READY))
            .is_some_and(|c| c.status == "True")
}

/// Each runtime's Events are those of one first rollout, each said once:
/// `RuntimeProgressing` then `RuntimeReady`, or only `RuntimeReady` when the
/// operator first reported after the Deployment had rolled out (it was
/// down meanwhile: a fast rollout skips the progressing state).
pub fn check_first_rollout_events(
    runtimes: &[TrussiumRuntime],
    events: &BTreeMap<String, Vec<(String, String)>>,
) -> TestResult {
    let both = [(N, "RuntimeProgressing"), (N, "RuntimeReady")];
    let mut wrong = Vec::new();
    for rt in runtimes {
        let uid = rt.uid().unwrap_or_default();
        let seen: Vec<(&str, &str)> = events
            .get(&uid)
            .map(|v| v.iter().map(|(t, r)| (t.as_str(), r.as_str())).collect())
            .unwrap_or_default();
        if seen != both && seen != both[1..] {
            wrong.push(format!("{}: {seen:?}", rt.name_any()));
        }
    }
    ensure(
        wrong.is_empty(),
        format!(
            "{} runtimes have other Events than one first rollout's:\n  {}",
            wrong.len(),
            wrong.join("\n  ")
        ),
    )
}
