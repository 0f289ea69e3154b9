//! The PodDisruptionBudget: voluntary disruptions take one runtime pod at a time.

use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use trussium_api::TrussiumRuntime;

use super::{BuildContext, BuildError, hash, object_meta, runtime_name, selector};

/// The runtime's policy/v1 PodDisruptionBudget, `maxUnavailable: 1`.
pub fn pod_disruption_budget(
    rt: &TrussiumRuntime,
    _ctx: &BuildContext,
) -> Result<PodDisruptionBudget, BuildError> {
    hash::stamped(PodDisruptionBudget {
        metadata: object_meta(rt)?,
        spec: Some(PodDisruptionBudgetSpec {
            selector: Some(selector(runtime_name(rt)?)),
            max_unavailable: Some(IntOrString::Int(1)),
            ..PodDisruptionBudgetSpec::default()
        }),
        ..PodDisruptionBudget::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{Result, context, fixture, json_of};
    use super::*;

    #[test]
    fn one_unavailable_pod_on_the_runtime_selector() -> Result {
        let pdb = json_of(&pod_disruption_budget(
            &fixture("minimal")?,
            &context().ctx(),
        )?)?;
        assert_eq!(pdb["apiVersion"], "policy/v1");
        assert_eq!(pdb["kind"], "PodDisruptionBudget");
        assert_eq!(
            pdb["spec"],
            json!({
                "maxUnavailable": 1,
                "selector": {"matchLabels": {
                    "app.kubernetes.io/name": "trussium",
                    "app.kubernetes.io/instance": "private-ai",
                }},
            })
        );
        Ok(())
    }
}
