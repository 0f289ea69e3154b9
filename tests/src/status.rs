//! Reading a runtime's status: its conditions, and whether it is Ready.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::ListParams;
use kube::{Api, ResourceExt};
use trussium_api::{ConditionStatus, TrussiumRuntime, condition_type};

use crate::BoxError;

/// A condition of a runtime's status.
pub fn condition<'a>(rt: &'a TrussiumRuntime, type_: &str) -> Option<&'a Condition> {
    rt.status.as_ref()?.condition(type_)
}

/// `status/reason` of a condition, e.g. `True/RuntimeReady`.
pub fn condition_summary(rt: &TrussiumRuntime, type_: &str) -> String {
    condition(rt, type_).map_or_else(
        || "absent".to_string(),
        |c| format!("{}/{}", c.status, c.reason),
    )
}

/// Ready for its current generation.
pub fn is_ready(rt: &TrussiumRuntime) -> bool {
    let status = rt.status.as_ref();
    status.and_then(|s| s.observed_generation) == rt.metadata.generation
        && status
            .and_then(|s| s.condition_status(condition_type::READY))
            .is_some_and(|s| s == ConditionStatus::True)
}

/// Every runtime `runtimes` lists is Ready for its generation, and there
/// are `count` of them; returns them.
///
/// A runtime the list shows not Ready is read again by name: once, after an
/// API server restart, its list kept answering from a stale cache for ten
/// minutes while the runtimes were Ready (the operator had written it, and
/// its watch had seen it). The disagreement is printed when it happens.
pub async fn all_ready(
    runtimes: &Api<TrussiumRuntime>,
    count: usize,
) -> Result<Option<Vec<TrussiumRuntime>>, BoxError> {
    let mut list = runtimes.list(&ListParams::default()).await?.items;
    if list.len() != count {
        return Ok(None);
    }
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
